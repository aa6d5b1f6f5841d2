/**
 * Search-node admin methods on both databases (issue 20, docs/search-nodes.md): hosts.* and source.*
 * answers, roles (reads for every signed-in user, writes, rotate and createSphinxConf for admins), the
 * required fields of 001 §5 with 422s naming them, connection URLs (password sealed at rest, answered
 * masked, kept when the masked form is saved back, refused for a new address), Sphinx identifiers, and
 * values that would break out of sphinx.conf refused. The real Sphinx is test/api/sphinx.e2e.ts.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { SearchHostRow, SearchHostView, SourceAction, SourceView } from '../../src/contracts/search-nodes.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let viewer: string;
let ds: DataSource;
const db = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';
const ids: Record<string, number> = {};
const PASS = 'S3cret#pass word\\x';
const url = (pass: string, host = '10.0.0.5', port = 3306) => `mysql://reader:${encodeURIComponent(pass)}@${host}:${port}/network`;
const SQL = 'SELECT id, title, cat_id FROM books';

/** The envelope of one call (any status). */
const call = async (hash: string, method: string, args?: unknown) => (await t.rpc<any>(hash, method, args)).env as any;
const storedHost = async (Id: number) => (await ds.query('SELECT name, connect FROM search_hosts WHERE Id = ?', [Id]))[0] as { name: string; connect: string };

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  viewer = (await t.session(100)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
});
afterAll(async () => { await t?.close(); });

describe(`search hosts (${db})`, () => {
  test('hosts.insert answers a positive Id; the password is sealed at rest and answered masked to every signed-in user', async () => {
    const r = await t.ok<{ Id: number; message: string }>(admin, 'hosts.insert', {
      name: 'Network DB', connect: [{ name: 'main', query: url(PASS) }, { name: 'replica', query: 'mysql://ro@db2.example.net/network' }],
    });
    expect(r).toEqual({ Id: expect.any(Number), message: 'Insert ok!' });
    expect(r.Id).toBeGreaterThan(0);
    ids.host = r.Id;
    const masked = [{ name: 'main', query: 'mysql://reader:***@10.0.0.5:3306/network' }, { name: 'replica', query: 'mysql://ro@db2.example.net:3306/network' }];
    expect(await t.ok<SearchHostRow[]>(viewer, 'hosts.get')).toEqual([{ Id: ids.host, name: 'Network DB', connect: masked, connections: 2 }]);
    expect(await t.ok<SearchHostView>(viewer, 'hosts.getById', { Id: ids.host })).toEqual({ Id: ids.host, name: 'Network DB', connect: masked });
    const row = await storedHost(ids.host);
    expect(row.connect).not.toContain('S3cret');
    expect(JSON.parse(row.connect)[0]).toEqual({ name: 'main', query: masked[0].query, pass: expect.stringMatching(/^v1:/) });
    expect(JSON.parse(row.connect)[1].pass).toBeNull();
    // the audit entry of the insert masks it too
    const audit = await t.ok<{ list: Array<{ method: string; target: string | null }> }>(admin, 'audit.getList', { method: 'hosts.insert' });
    expect(audit.list[0]).toMatchObject({ method: 'hosts.insert', target: `search host Network DB (#${ids.host})` });
    expect(JSON.stringify(await t.ok(admin, 'audit.get', { Id: (audit.list[0] as any).Id }))).not.toContain('S3cret');
    expect((await call(viewer, 'hosts.getById', { Id: 999 }))).toMatchObject({ status: 'empty', code: 404, message: 'Search host not found' });
  });

  test("hosts.update answers 'ok'; the masked form saved back keeps the password; a new one replaces it; *** for a new address or connection is refused", async () => {
    const before = JSON.parse((await storedHost(ids.host)).connect);
    const back = await t.ok<SearchHostView>(admin, 'hosts.getById', { Id: ids.host });
    expect(await t.ok(admin, 'hosts.update', { Id: ids.host, name: 'Network', connect: back.connect })).toBe('ok');
    const kept = JSON.parse((await storedHost(ids.host)).connect);
    expect(kept[0].pass).toBe(before[0].pass);
    expect((await storedHost(ids.host)).name).toBe('Network');

    const moved = await call(admin, 'hosts.update', { Id: ids.host, connect: [{ name: 'main', query: 'mysql://reader:***@10.0.0.6:3306/network' }] });
    expect(moved).toMatchObject({ status: 'rules', code: 422 });
    expect(moved.fields['connect.0.query']).toMatch(/only sent to 10\.0\.0\.5:3306: type it again/);
    const fresh = await call(admin, 'hosts.update', { Id: ids.host, connect: [{ name: 'other', query: 'mysql://reader:***@10.0.0.5:3306/network' }] });
    expect(fresh.fields['connect.0.query']).toMatch(/'other' has none stored: type it/);
    expect(JSON.parse((await storedHost(ids.host)).connect)).toEqual(kept);

    expect(await t.ok(admin, 'hosts.update', { Id: ids.host, connect: [{ name: 'main', query: url('new-pass') }, back.connect[1]] })).toBe('ok');
    const changed = JSON.parse((await storedHost(ids.host)).connect);
    expect(changed[0].pass).not.toBe(before[0].pass);
    expect(changed[0].pass).toMatch(/^v1:/);
    expect(await call(admin, 'hosts.update', { Id: 999, name: 'x' })).toMatchObject({ code: 404 });
  });

  test('required fields (001 §5) and connection URLs: 422 naming the field', async () => {
    const none = await call(admin, 'hosts.insert', {});
    expect(none).toMatchObject({ status: 'rules', code: 422 });
    expect(none.fields).toMatchObject({ name: 'Host name is required', connect: 'Connect is required' });
    const empty = await call(admin, 'hosts.insert', { name: 'x', connect: [{}] });
    expect(empty.fields).toMatchObject({ 'connect.0.name': 'Connect name is required', 'connect.0.query': 'Connect query is required' });
    expect((await call(admin, 'hosts.insert', { name: 'x', connect: [] })).fields.connect).toBe('Connect needs at least one connection');
    const bad: Array<[string, RegExp]> = [
      ['http://u:p@h/db', /must be a URL mysql:\/\//],
      ['mysql://h.example/db', /must name a user/],
      ['mysql://u:p@h.example', /must name a database/],
      ['mysql://u:p@h.example:70000/db', /port must be a number from 1 to 65535/],
      ['mysql://u:p@999.1.1.1/db', /is not a host name or an IPv4 address/],
      ['mysql://u:p@h.example/db?ssl=1', /takes no parameters/],
      ['mysql://u:p@h.example/d;b', /must name a database of letters/],
      ['mysql://u:p%5C@h.example/db', /password must not end with a backslash/],
      ['mysql://u:p%0Asql_host = evil@h.example/db', /password must not contain line breaks/],
      ['mysql://u%0A}@h.example/db', /user must not contain line breaks/],
      ['mysql://u:%20p@h.example/db', /password must not start or end with white space/],
      ['mysql://u:p%zz@h.example/db', /malformed %-escape/],
    ];
    for (const [query, re] of bad) {
      const r = await call(admin, 'hosts.insert', { name: 'x', connect: [{ name: 'main', query }] });
      expect([query, r.code, r.fields?.['connect.0.query']]).toEqual([query, 422, expect.stringMatching(re)]);
    }
    const names = await call(admin, 'hosts.insert', { name: 'x', connect: [{ name: 'a b', query: url('p') }, { name: 'm', query: url('p') }, { name: 'M', query: url('p') }] });
    expect(names.fields['connect.0.name']).toMatch(/letters, digits/);
    expect(names.fields['connect.2.name']).toBe("Connect name 'M' is used twice");
    expect(Number((await ds.query('SELECT COUNT(*) AS n FROM search_hosts'))[0].n)).toBe(1);
  });
});

describe(`sources (${db})`, () => {
  const base = () => ({ source: 'books', connect: `${ids.host}-main`, ttl_min: 60, query: SQL, attribute: 'cat_id', index: 'books_idx' });

  test('source.insert answers a positive Id; ttl_min defaults to 120; source.get and source.getById for every signed-in user', async () => {
    const r = await t.ok<{ Id: number; message: string }>(admin, 'source.insert', base());
    expect(r).toEqual({ Id: expect.any(Number), message: 'Insert ok!' });
    ids.books = r.Id;
    const { ttl_min: _, ...noTtl } = base();
    ids.authors = (await t.ok(admin, 'source.insert', { ...noTtl, source: 'authors', index: 'authors_idx', attribute: ' a_id ,  status ' })).Id;
    const list = await t.ok<SourceView[]>(viewer, 'source.get', {});
    expect(list.map((s) => s.source)).toEqual(['authors', 'books']);
    expect(list[0]).toMatchObject({ Id: ids.authors, ttl_min: 120, attribute: 'a_id,status', working: null, time_run: null });
    expect(Date.parse(list[0].next_run)).toBeLessThanOrEqual(Date.now());
    expect(await t.ok<SourceView>(content, 'source.getById', { Id: ids.books })).toMatchObject({ ...base(), Id: ids.books, working: null });
    expect(await call(viewer, 'source.getById', { Id: 999 })).toMatchObject({ code: 404, message: 'Source not found' });
    // no Search server yet: no live figures, said plainly on rotate and createSphinxConf
    expect(await t.ok<SourceAction>(viewer, 'source.getSourceAction', { Id: ids.books })).toMatchObject({ Id: ids.books, index: 'books_idx', running: false, live: [] });
    expect((await t.ok<SourceView[]>(viewer, 'source.get', { live: 1 }))[0].live).toEqual([]);
    const msg = 'No Search server is switched on: add one (type 3, Search) on the servers map';
    expect(await call(admin, 'source.rotate', { Id: ids.books })).toMatchObject({ status: 'rules', code: 422, message: msg });
    expect(await call(admin, 'sphinx_control.createSphinxConf', {})).toMatchObject({ status: 'ok', result: { nodes: [], message: msg } });
  });

  test("source.update answers 'ok'; names unique ignoring case (409); the connection must exist; a used connection cannot be dropped from its host", async () => {
    expect(await t.ok(admin, 'source.update', { Id: ids.books, ttl_min: 30, attribute: 'cat_id,status' })).toBe('ok');
    expect(await t.ok<SourceView>(admin, 'source.getById', { Id: ids.books })).toMatchObject({ ttl_min: 30, attribute: 'cat_id,status', source: 'books' });
    const dupe = await call(admin, 'source.insert', { ...base(), source: 'BOOKS', index: 'other_idx' });
    expect(dupe).toMatchObject({ status: 'rules', code: 409, fields: { source: "A source already uses the source name 'BOOKS'" } });
    expect((await call(admin, 'source.update', { Id: ids.authors, index: 'Books_Idx' })).fields).toEqual({ index: "A source already uses the index name 'Books_Idx'" });
    expect(await t.ok(admin, 'source.update', { Id: ids.books, source: 'books', index: 'books_idx' })).toBe('ok');
    for (const connect of [`${ids.host}-nope`, '999-main']) {
      const r = await call(admin, 'source.insert', { ...base(), source: 'x1', index: 'x1', connect });
      expect(r).toMatchObject({ code: 422, fields: { connect: `Connection '${connect}' does not exist: choose a connection of a search host` } });
    }
    const drop = await call(admin, 'hosts.update', { Id: ids.host, connect: [{ name: 'replica', query: 'mysql://ro@db2.example.net:3306/network' }] });
    expect(drop).toMatchObject({ code: 422 });
    expect(drop.fields.connect).toMatch(/'main' is used by source 'authors'; 'main' is used by source 'books'/);
  });

  test('required fields (001 §5), Sphinx identifiers and values that would break out of sphinx.conf: 422 naming the field, nothing stored', async () => {
    const none = await call(admin, 'source.insert', {});
    expect(none.fields).toEqual({
      source: 'Source is required', connect: 'Connection is required', query: 'Query is required', attribute: 'Attribute is required', index: 'Index is required',
    });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ source: 'my source' }, 'source', /must be a Sphinx name/],
      [{ source: '1abc' }, 'source', /must be a Sphinx name/],
      [{ source: 'a-b' }, 'source', /must be a Sphinx name/],
      [{ source: 'x\n}\nsource evil' }, 'source', /control or invisible characters/],
      [{ index: 'select' }, 'index', /'select' is a word SphinxQL reserves/],
      [{ index: 'idx {' }, 'index', /must be a Sphinx name/],
      [{ attribute: 'cat_id, id' }, 'attribute', /'id' is a word SphinxQL reserves/],
      [{ attribute: 'a,a' }, 'attribute', /listed twice/],
      [{ attribute: 'a b' }, 'attribute', /must be a Sphinx name/],
      [{ attribute: 'a\nsql_query = x' }, 'attribute', /control or invisible characters/],
      [{ attribute: ' , ' }, 'attribute', /Attribute is required/],
      [{ query: '   \n  ' }, 'query', /Query is required/],
      [{ query: 'SELECT id FROM t WHERE a = 1 \\\nsql_attr_uint = evil' }, 'query', /line 1 ends with a backslash/],
      [{ query: "SELECT id FROM t WHERE a = 'x\\'" }, 'query', /unclosed string/],
      [{ query: 'SELECT id /* x FROM t' }, 'query', /unclosed \/\* comment/],
      [{ query: 'SELECT id\u0000 FROM t' }, 'query', /control or invisible characters/],
      [{ query: '-- only a comment' }, 'query', /Query is required/],
      [{ ttl_min: 0 }, 'ttl_min', /TTL minutes is at least 1/],
      [{ ttl_min: 525_601 }, 'ttl_min', /TTL minutes is at most 525600/],
      [{ connect: 'main' }, 'connect', /Connection must be \{host Id\}-\{connection name\}/],
      [{ connect: `${ids.host}-main\nx` }, 'connect', /control or invisible/],
    ];
    const before = await ds.query('SELECT * FROM search_sources ORDER BY Id');
    for (const [patch, field, re] of cases) {
      const r = await call(admin, 'source.insert', { ...base(), source: 'probe', index: 'probe_idx', ...patch });
      expect([JSON.stringify(patch), r.code, r.fields?.[field]]).toEqual([JSON.stringify(patch), 422, expect.stringMatching(re)]);
      const u = await call(admin, 'source.update', { Id: ids.books, ...patch });
      expect([JSON.stringify(patch), u.code]).toEqual([JSON.stringify(patch), 422]);
    }
    expect(await ds.query('SELECT * FROM search_sources ORDER BY Id')).toEqual(before);
    // what is fine: quotes, '#' and '--' inside strings, comments, several lines, tabs
    expect(await t.ok(admin, 'source.update', { Id: ids.authors, query: "SELECT id, a_id, status\n\tFROM authors -- all\nWHERE name <> '#x--y' # none\n" })).toBe('ok');
  });

  test('roles: reads for every signed-in user; writes, rotate and createSphinxConf for admins only', async () => {
    const reads: Array<[string, unknown]> = [['hosts.get', {}], ['hosts.getById', { Id: ids.host }], ['source.get', {}], ['source.getById', { Id: ids.books }], ['source.getSourceAction', { Id: ids.books }]];
    for (const [m, a] of reads) for (const h of [viewer, content]) expect([m, (await call(h, m, a)).status]).toEqual([m, 'ok']);
    const writes: Array<[string, unknown]> = [
      ['hosts.insert', { name: 'h', connect: [{ name: 'm', query: url('p') }] }], ['hosts.update', { Id: ids.host, name: 'h' }],
      ['source.insert', { ...base(), source: 'x2', index: 'x2' }], ['source.update', { Id: ids.books, ttl_min: 5 }], ['source.rotate', { Id: ids.books }],
      ['sphinx_control.createSphinxConf', {}],
    ];
    for (const [m, a] of writes) {
      for (const h of [viewer, content]) {
        const r = await t.rpc<any>(h, m, a);
        expect([m, r.status, (r.env as any).code]).toEqual([m, 403, 403]);
      }
    }
    expect((await t.rpc(null, 'hosts.get', {})).status).toBe(401);
    expect(Number((await ds.query('SELECT COUNT(*) AS n FROM search_sources'))[0].n)).toBe(2);
  });
});
