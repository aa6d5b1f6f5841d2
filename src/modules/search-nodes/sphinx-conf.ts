/**
 * sphinx.conf of the Search servers (docs/search-nodes.md "The config file"), rendered from the
 * sources and their hosts' connections: one `source` + `index` pair per source, an `indexer` section
 * and a `searchd` section listening on the Sphinx API port and the SphinxQL (mysql41) port. Pure: the
 * service gathers the values (passwords opened) and writes the text over SSH.
 *
 * Every value is checked again here (the input schemas checked it on save; a row changed by hand must
 * not reach the file either): names are Sphinx identifiers, one-line values pass `confValueError` and
 * are written with `#` escaped, the SQL goes through `sqlQueryLines` (one line per SQL line, each but
 * the last continued with ` \`). A value that cannot be written makes the whole render fail, naming
 * the source: no file is better than one whose directives a value has changed.
 */
import {
  attributeNames, confEscape, confValueError, SPHINX_IDENT, SPHINX_PATH, sqlQueryLines, type MysqlUrl,
} from '../../contracts/search-nodes.js';

export interface ConfSource {
  source: string;
  index: string;
  attribute: string;
  query: string;
  /** The source's connection, password opened. */
  conn: MysqlUrl;
}

export interface ConfSettings {
  dataDir: string;
  port: number;
  sphinxqlPort: number;
}

export class SphinxConfError extends Error {}

const INDENT = '    ';

function line(key: string, value: string | number, what: string): string {
  const v = String(value);
  const e = confValueError(v);
  if (e) throw new SphinxConfError(`${what}: ${key} ${e}`);
  return `${INDENT}${key} = ${confEscape(v)}`;
}

function name(v: string, what: string): string {
  if (!SPHINX_IDENT.test(v)) throw new SphinxConfError(`${what}: '${v}' is not a Sphinx name`);
  return v;
}

function path(v: string, what: string): string {
  if (!SPHINX_PATH.test(v)) throw new SphinxConfError(`${what}: '${v}' is not an absolute path of letters, digits, '.', '_', '-' and '/'`);
  return v.replace(/\/+$/, '') || '/';
}

function port(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 1 || v > 65535) throw new SphinxConfError(`${what}: port ${v} is not a number from 1 to 65535`);
  return v;
}

/** The `source` and `index` sections of one source. */
export function renderSource(s: ConfSource, dataDir: string): string {
  const what = `source '${s.source}'`;
  const src = name(s.source, what);
  const idx = name(s.index, what);
  const sql = sqlQueryLines(s.query);
  if ('error' in sql) throw new SphinxConfError(`${what}: sql_query ${sql.error}`);
  const attrs = attributeNames(s.attribute);
  if ('error' in attrs) throw new SphinxConfError(`${what}: ${attrs.error}`);
  const c = s.conn;
  const out = [
    `source ${src}`,
    '{',
    `${INDENT}type = mysql`,
    line('sql_host', c.host, what),
    line('sql_user', c.user, what),
    ...(c.password ? [line('sql_pass', c.password, what)] : [`${INDENT}sql_pass =`]),
    line('sql_db', c.db, what),
    line('sql_port', port(c.port, what), what),
    `${INDENT}sql_query_pre = SET NAMES utf8`,
    `${INDENT}sql_query = ${sql.lines.join(` \\\n${INDENT}${INDENT}`)}`,
    ...attrs.names.map((a) => `${INDENT}sql_attr_uint = ${a}`),
    '}',
    '',
    `index ${idx}`,
    '{',
    `${INDENT}source = ${src}`,
    `${INDENT}path = ${dataDir}/${idx}`,
    `${INDENT}docinfo = extern`,
    `${INDENT}morphology = stem_enru`,
    '}',
  ];
  return out.join('\n');
}

/** The whole file. */
export function renderSphinxConf(sources: ConfSource[], settings: ConfSettings): string {
  const dataDir = path(settings.dataDir, 'sphinx_data_dir');
  const apiPort = port(settings.port, 'sphinx_port');
  const qlPort = port(settings.sphinxqlPort, 'sphinxql_port');
  if (apiPort === qlPort) throw new SphinxConfError(`sphinx_port and sphinxql_port are both ${apiPort}`);
  const seen = { source: new Set<string>(), index: new Set<string>() };
  for (const s of sources) {
    for (const k of ['source', 'index'] as const) {
      const v = s[k].toLowerCase();
      if (seen[k].has(v)) throw new SphinxConfError(`two sources use the ${k} name '${s[k]}'`);
      seen[k].add(v);
    }
  }
  return [
    '# sphinx.conf written by the console (sphinx_control.createSphinxConf): edits here are overwritten.',
    `# ${sources.length} source(s); the index files are under ${dataDir}.`,
    '',
    ...sources.map((s) => renderSource(s, dataDir) + '\n'),
    'indexer',
    '{',
    `${INDENT}mem_limit = 128M`,
    '}',
    '',
    'searchd',
    '{',
    `${INDENT}listen = ${apiPort}`,
    `${INDENT}listen = ${qlPort}:mysql41`,
    `${INDENT}log = ${dataDir}/searchd.log`,
    `${INDENT}query_log = ${dataDir}/query.log`,
    `${INDENT}pid_file = ${dataDir}/searchd.pid`,
    `${INDENT}binlog_path = ${dataDir}`,
    `${INDENT}read_timeout = 5`,
    `${INDENT}max_children = 30`,
    `${INDENT}seamless_rotate = 1`,
    `${INDENT}preopen_indexes = 1`,
    `${INDENT}unlink_old = 1`,
    `${INDENT}workers = threads`,
    '}',
    '',
  ].join('\n');
}
