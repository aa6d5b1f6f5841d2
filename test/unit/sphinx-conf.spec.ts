/**
 * What reaches sphinx.conf (issue 20, docs/search-nodes.md "The config file"): the SQL as continued
 * lines with its line comments dropped and '#' escaped, connection URLs read and masked, the renderer
 * refusing any value that would leave its directive (even one that skipped the input schemas), and
 * indexer's output read into docs, bytes and errors.
 */
import { attributeNames, confValueError, maskedMysqlUrl, parseMysqlUrl, sqlQueryLines } from '../../src/contracts/search-nodes.js';
import { parseIndexerOutput, shellQuote, writeConfCommand } from '../../src/modules/search-nodes/sphinx-commands.js';
import { renderSphinxConf, SphinxConfError, type ConfSource } from '../../src/modules/search-nodes/sphinx-conf.js';

const conn = { user: 'reader', password: 'p#ss\\w x', host: '10.0.0.5', port: 3306, db: 'network' };
const src = (o: Partial<ConfSource> = {}): ConfSource => ({ source: 'books', index: 'books_idx', attribute: 'cat_id,status', query: 'SELECT id, title, cat_id, status FROM books', conn, ...o });
const settings = { dataDir: '/var/lib/sphinxsearch/data', port: 9312, sphinxqlPort: 9306 };

describe('sqlQueryLines', () => {
  test('line comments dropped, strings kept, # escaped, blank lines dropped, right-trimmed', () => {
    expect(sqlQueryLines("SELECT id, title -- cols\n\n  FROM t  \nWHERE a = '# -- not a comment' # gone\n  AND b = \"x#\" AND `c#` = 1 /* # kept */")).toEqual({
      lines: ['SELECT id, title', '  FROM t', "WHERE a = '\\# -- not a comment'", '  AND b = "x\\#" AND `c\\#` = 1 /* \\# kept */'],
    });
    // '--' without a space after it is no comment (1--1 is 1 - -1)
    expect(sqlQueryLines('SELECT 1--1, id FROM t')).toEqual({ lines: ['SELECT 1--1, id FROM t'] });
    // escaped quotes inside strings
    expect(sqlQueryLines("SELECT id FROM t WHERE a = 'it''s' AND b = 'x\\' # y'")).toEqual({ lines: ["SELECT id FROM t WHERE a = 'it''s' AND b = 'x\\' \\# y'"] });
  });
  test('refused: a line ending with a backslash, unclosed strings or comments, nothing left', () => {
    expect(sqlQueryLines('SELECT id \\\nFROM t')).toEqual({ error: expect.stringMatching(/line 1 ends with a backslash/) });
    expect(sqlQueryLines("SELECT 'a")).toEqual({ error: expect.stringMatching(/unclosed string/) });
    expect(sqlQueryLines('SELECT /* a')).toEqual({ error: expect.stringMatching(/unclosed/) });
    expect(sqlQueryLines('# nothing\n-- at all')).toEqual({ error: 'is required' });
    expect(sqlQueryLines('SELECT 1\u2028FROM t')).toEqual({ error: expect.stringMatching(/control/) });
  });
});

describe('connection URLs', () => {
  test('read, decoded and masked', () => {
    expect(parseMysqlUrl('mysql://reader:p%23ss%5Cw%20x@10.0.0.5/network')).toEqual(conn);
    expect(parseMysqlUrl('mysql://u@[::1]:3307/db')).toEqual({ user: 'u', password: null, host: '::1', port: 3307, db: 'db' });
    expect(parseMysqlUrl('mysql://u:@localhost/db')).toEqual({ user: 'u', password: null, host: 'localhost', port: 3306, db: 'db' });
    expect(parseMysqlUrl('mysql://u:a@b@db.example.com:3310/x')).toEqual({ user: 'u', password: 'a@b', host: 'db.example.com', port: 3310, db: 'x' });
    expect(maskedMysqlUrl(conn, true)).toBe('mysql://reader:***@10.0.0.5:3306/network');
    expect(maskedMysqlUrl({ ...conn, user: 'a b', host: '::1' }, false)).toBe('mysql://a%20b@[::1]:3306/network');
  });
  test('refused', () => {
    for (const u of ['mysql://u:p@h/db#x', 'mysql://u:p@[zz]/db', 'mysql://u:p@h:0/db', 'mysql://:p@h/db', 'pgsql://u@h/db', 'mysql://u:p%5C@h/db']) {
      expect([u, 'error' in parseMysqlUrl(u)]).toEqual([u, true]);
    }
    expect(confValueError('a\\')).toMatch(/backslash/);
    expect(confValueError(' a')).toMatch(/white space/);
    expect(confValueError('a\nb')).toMatch(/line breaks/);
    expect(confValueError('a#b\\c')).toBeNull();
  });
  test('attributes', () => {
    expect(attributeNames(' a , b,c ')).toEqual({ names: ['a', 'b', 'c'] });
    expect(attributeNames('a,A')).toEqual({ error: "Attribute 'A' is listed twice" });
  });
});

describe('renderSphinxConf', () => {
  test('one source + index per source, the indexer and searchd sections; # escaped', () => {
    const text = renderSphinxConf([src({ query: 'SELECT id, title, cat_id, status\nFROM books -- all' })], settings);
    expect(text).toContain([
      'source books', '{', '    type = mysql', '    sql_host = 10.0.0.5', '    sql_user = reader', '    sql_pass = p\\#ss\\w x', '    sql_db = network', '    sql_port = 3306',
      '    sql_query_pre = SET NAMES utf8', '    sql_query = SELECT id, title, cat_id, status \\', '        FROM books', '    sql_attr_uint = cat_id', '    sql_attr_uint = status', '}',
      '', 'index books_idx', '{', '    source = books', '    path = /var/lib/sphinxsearch/data/books_idx',
    ].join('\n'));
    expect(text).toMatch(/searchd\n\{\n {4}listen = 9312\n {4}listen = 9306:mysql41\n {4}log = \/var\/lib\/sphinxsearch\/data\/searchd\.log\n {4}query_log = .*\n {4}pid_file = \/var\/lib\/sphinxsearch\/data\/searchd\.pid\n/);
    // every directive is on a line of its own: the only lines that do not start a key are the continued SQL
    const keys = text.split('\n').filter((l) => /^ {4}\S/.test(l)).map((l) => l.trim().split(' ')[0]);
    expect(new Set(keys)).toEqual(new Set(['type', 'sql_host', 'sql_user', 'sql_pass', 'sql_db', 'sql_port', 'sql_query_pre', 'sql_query', 'sql_attr_uint', 'source', 'path', 'docinfo', 'morphology',
      'mem_limit', 'listen', 'log', 'query_log', 'pid_file', 'binlog_path', 'read_timeout', 'max_children', 'seamless_rotate', 'preopen_indexes', 'unlink_old', 'workers']));
  });
  test('a value that skipped the input schemas (a row changed by hand) is refused, naming the source', () => {
    const bad: Array<[Partial<ConfSource>, RegExp]> = [
      [{ conn: { ...conn, password: 'x\nsql_host = evil' } }, /sql_pass must not contain line breaks/],
      [{ conn: { ...conn, password: 'x\\' } }, /sql_pass must not end with a backslash/],
      [{ source: 'a b' }, /'a b' is not a Sphinx name/],
      [{ index: 'x\n}' }, /is not a Sphinx name/],
      [{ attribute: 'a\nsql_query = x' }, /Attribute/],
      [{ query: 'SELECT 1 \\\n}' }, /sql_query line 1 ends with a backslash/],
      [{ conn: { ...conn, port: 0 } }, /port 0/],
    ];
    for (const [o, re] of bad) {
      expect(() => renderSphinxConf([src(o)], settings)).toThrow(SphinxConfError);
      expect(() => renderSphinxConf([src(o)], settings)).toThrow(re);
    }
    // '}' inside a value is just text: the parser reads a value to the end of its line
    expect(renderSphinxConf([src({ conn: { ...conn, user: 'u }' } })], settings)).toContain('    sql_user = u }\n');
    expect(() => renderSphinxConf([src(), src({ index: 'other' })], settings)).toThrow(/two sources use the source name 'books'/);
    expect(() => renderSphinxConf([src()], { ...settings, dataDir: '/var/../etc' })).toThrow(/not an absolute path/);
    expect(() => renderSphinxConf([src()], { ...settings, dataDir: '/var/lib/sp hinx' })).toThrow(/not an absolute path/);
    expect(() => renderSphinxConf([src()], { ...settings, sphinxqlPort: 9312 })).toThrow(/both 9312/);
  });
});

describe('indexer output and commands', () => {
  test('success, SQL error, searchd down, no such index, no indexer', () => {
    const ok = 'using config file \'/etc/s.conf\'...\nindexing index \'i1\'...\ncollected 3 docs, 0.0 MB\ntotal 3 docs, 48 bytes\ntotal 0.004 sec, 9675 bytes/sec\nrotating indices: successfully sent SIGHUP to searchd (pid=12265).\n';
    expect(parseIndexerOutput(0, ok)).toEqual({ ok: true, docs: 3, bytes: 48, error: null });
    const sql = "ERROR: index 'i1': sql_query: Table 'x.nope' doesn't exist (DSN=mysql://u:***@127.0.0.1:3306/x).\ntotal 0 docs, 0 bytes\n";
    expect(parseIndexerOutput(1, sql)).toEqual({ ok: false, docs: 0, bytes: 0, error: "index 'i1': sql_query: Table 'x.nope' doesn't exist (DSN=mysql://u:***@127.0.0.1:3306/x)." });
    const down = "total 3 docs, 48 bytes\nWARNING: failed to open pid_file '/d/searchd.pid'.\nWARNING: indices NOT rotated.\n";
    expect(parseIndexerOutput(2, down)).toEqual({ ok: false, docs: 3, bytes: 48, error: 'searchd is not running: the index was built but not rotated (searchd loads it when it starts)' });
    expect(parseIndexerOutput(1, "WARNING: no such index 'nosuch', skipping.\n").error).toBe("index 'nosuch' is not in the search config file: rebuild the search config");
    expect(parseIndexerOutput(127, 'sh: 1: indexer: not found\n').error).toBe('indexer not found on the node: is sphinxsearch installed?');
    expect(parseIndexerOutput(1, "FATAL: config file '/x' does not exist or is not readable\n").error).toBe("config file '/x' does not exist or is not readable");
  });
  test('paths are single-quoted in the write command; the config goes on stdin', () => {
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
    const c = writeConfCommand('/etc/sphinx/sphinx.conf', '/var/lib/s');
    expect(c).toContain("conf='/etc/sphinx/sphinx.conf'");
    expect(c).toContain("mkdir -p -- '/var/lib/s'");
    expect(c).toContain('(umask 077; cat > "$tmp")');
  });
});
