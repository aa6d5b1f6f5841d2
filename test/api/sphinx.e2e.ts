/**
 * Search-node admin against a real Sphinx (issue 20 "Real peer in tests", docs/search-nodes.md): a
 * MariaDB database of documents (read by a user whose password holds '#', a backslash and a space), a
 * Search server that is the loopback OpenSSH of the test helpers (srv type 3, status 1), cluster config
 * rows pointing into a temp dir and at free ports; createSphinxConf writes the file (0600, checked by
 * indextool), rotate with searchd down builds and says searchd is down, searchd started on that
 * config (by the test, as the SSH user) serves the index, rotate answers the documents and a SphinxQL
 * MATCH finds them; new rows show after the next rotate; the live figures; a source with broken SQL
 * shows its error in source.get; the job rotates what is due and leaves a source another instance
 * holds; a dead Search server does not stop the others.
 *
 * One pass (the SQLite one): Sphinx cannot read SQLite, so the console runs on SQLite here and its
 * sources index a MariaDB database of their own (freshMysql), as they index the network's.
 * One pass: the documents live in a MariaDB database of the test's own whatever the suite's database.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { RotateResult, SourceAction, SourceView, SphinxConfResult } from '../../src/contracts/search-nodes.js';
import { SphinxRotateJob } from '../../src/jobs/sphinx-rotate.job.js';
import { SearchSourcesService } from '../../src/modules/search-nodes/search-sources.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { pass } from '../helpers/passes.js';
import { docsDatabase, sphinxql, startSearchNode, type DocsDatabase, type Searchd, type SearchNode } from '../helpers/sphinx.js';
import { freePort } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const T = 120_000;
const ROWS = 25;
let t: TestApp;
let node: SearchNode;
let db: DocsDatabase;
let searchd: Searchd | null = null;
let admin: string;
let conf: string;
const ids: Record<string, number> = {};

/** The SQL as an operator would write it: several lines, a `--` and a `#` comment, a '#' inside a string. */
const DOCS_SQL = [
  'SELECT id, title, body, cat_id, status -- the document id first',
  '  FROM docs',
  "  WHERE title <> '#none' # a comment; the '#' before it is in a string",
  '    AND id > 0',
].join('\n');

(pass === 'sqlite' ? describe : describe.skip)('search nodes against sphinxsearch 2.2.11', () => {
  beforeAll(async () => {
    [node, db] = await Promise.all([startSearchNode(), docsDatabase(ROWS)]);
    t = await startApp({ CRON_ENABLED: '0' });
    admin = (await t.session(1)).hash;
    conf = join(node.dir, 'etc', 'sphinx.conf');
    ids.server = (await t.ok(admin, 'srv.save_server', {
      name: 'search-1', type: 3, status: 1, ip: '127.0.0.1', sshport: node.sshd.port, sshlogin: node.sshd.user, sshpass: node.sshd.password,
    })).Id;
    await t.ok(admin, 'cfg.insertConfigsBatch', [
      { type: 'sphinx_conf_path', value: conf },
      { type: 'sphinx_data_dir', value: join(node.dir, 'data') },
      { type: 'sphinx_port', value: String(node.port) },
      { type: 'sphinxql_port', value: String(node.sphinxqlPort) },
    ]);
    ids.host = (await t.ok(admin, 'hosts.insert', { name: 'network', connect: [{ name: 'main', query: db.url }] })).Id;
    ids.docs = (await t.ok(admin, 'source.insert', { source: 'docs_src', connect: `${ids.host}-main`, ttl_min: 120, query: DOCS_SQL, attribute: 'cat_id, status', index: 'docs_idx' })).Id;
    ids.broken = (await t.ok(admin, 'source.insert', { source: 'broken_src', connect: `${ids.host}-main`, query: 'SELECT id, title, cat_id FROM no_such_table', attribute: 'cat_id', index: 'broken_idx' })).Id;
  }, T);
  afterAll(async () => {
    await searchd?.stop();
    await t?.close();
    await node?.stop();
    await db?.drop();
  }, T);

  test('createSphinxConf writes the config to the Search server: 0600, checked by indextool, never answered', async () => {
    const r = await t.ok<SphinxConfResult>(admin, 'sphinx_control.createSphinxConf', {});
    expect(r).toMatchObject({ path: conf, data_dir: join(node.dir, 'data'), sources: 2 });
    expect(r.nodes).toEqual([{ Id: ids.server, node: 'search-1', ok: true, message: expect.stringMatching(/^Written .*sphinx\.conf \(\d+ bytes, checked by indextool\)$/) }]);
    expect(JSON.stringify(r)).not.toContain(db.password);
    const st = statSync(conf);
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.uid).toBe(node.uid);
    const text = readFileSync(conf, 'utf8');
    expect(text).toContain('source docs_src\n{');
    expect(text).toContain('index docs_idx\n{');
    expect(text).toContain(`sql_pass = ${db.password.replace(/#/g, '\\#')}\n`);
    expect(text).toContain(`sql_user = ${db.user}\n`);
    expect(text).toContain('sql_attr_uint = cat_id\n    sql_attr_uint = status\n');
    expect(text).toContain(`listen = ${node.port}\n    listen = ${node.sphinxqlPort}:mysql41\n`);
    expect(text).toContain(`path = ${join(node.dir, 'data', 'docs_idx')}\n`);
    // the comments are gone, the string keeps its '#', written as \# (sphinx.conf's comment character)
    expect(text).toContain("sql_query = SELECT id, title, body, cat_id, status \\\n          FROM docs \\\n          WHERE title <> '\\#none' \\\n            AND id > 0\n");
    // the audit has the call and the SSH command, never the password
    const audit = await t.ok<{ list: Array<{ method: string; args: string | null }> }>(admin, 'audit.getList', { limit: 50 });
    expect(audit.list.map((e) => e.method)).toEqual(expect.arrayContaining(['sphinx_control.createSphinxConf', 'ssh.exec']));
    expect(JSON.stringify(audit)).not.toContain(db.password);
  }, T);

  test('rotate with searchd not running: the index is built and the answer says searchd is down', async () => {
    const r = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.docs });
    expect(r.working).toMatchObject({ docs: ROWS, errors: ['search-1: searchd is not running: the index was built but not rotated (searchd loads it when it starts)'] });
    expect(r.working.bytes).toBeGreaterThan(0);
    expect(r.nodes).toEqual([expect.objectContaining({ node: 'search-1', ok: false, code: 2, docs: ROWS })]);
  }, T);

  test('with searchd started on the written config, rotate answers the documents and SphinxQL MATCH finds them', async () => {
    searchd = await node.startSearchd(conf);
    // searchd loaded what the first rotate built
    expect((await sphinxql<{ id: number }>(node.sphinxqlPort, "SELECT id FROM docs_idx WHERE MATCH('rare') ORDER BY id ASC")).map((r) => Number(r.id))).toEqual([10, 20]);
    await db.query("INSERT INTO docs (id, title, body, cat_id, status) VALUES (30, 'Document 30', 'common and rare too', 2, 1)");
    const before = Date.now();
    const r = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.docs });
    expect(r.working.docs).toBe(ROWS + 1);
    expect(r.working.errors).toEqual([]);
    expect(r.working.bytes).toBeGreaterThan(0);
    expect(Date.parse(r.working.timeStart)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(r.working.timeEnd)).toBeGreaterThanOrEqual(Date.parse(r.working.timeStart));
    expect(r.nodes).toEqual([{ Id: ids.server, node: 'search-1', ok: true, code: 0, docs: ROWS + 1, bytes: r.working.bytes, message: `total ${ROWS + 1} docs, ${r.working.bytes} bytes` }]);
    // source.get shows the same working info (any signed-in user reads it)
    const viewer = (await t.session(100)).hash;
    const list = await t.ok<SourceView[]>(viewer, 'source.get', {});
    expect(list.find((s) => s.Id === ids.docs)).toMatchObject({ source: 'docs_src', index: 'docs_idx', working: r.working, time_run: r.working.timeStart });
    // The rotation reached searchd (SIGHUP, seamless): the new document is found once searchd has swapped
    // the new index in, which it does on its own after the signal (indexer does not wait for it).
    const rare = async () => (await sphinxql<{ id: number }>(node.sphinxqlPort, "SELECT id FROM docs_idx WHERE MATCH('rare') ORDER BY id ASC")).map((x) => Number(x.id));
    await waitFor('searchd serving the rotated index', async () => (await rare()).length === 3);
    expect(await rare()).toEqual([10, 20, 30]);
    const all = await sphinxql<{ id: number; cat_id: number }>(node.sphinxqlPort, "SELECT id, cat_id FROM docs_idx WHERE MATCH('common') AND cat_id = 3 ORDER BY id ASC LIMIT 100");
    expect(all.map((x) => Number(x.id))).toEqual([3, 10, 17, 24]);
  }, T);

  test('live figures: SHOW INDEX STATUS over SphinxQL on each Search server', async () => {
    const viewer = (await t.session(100)).hash;
    const a = await t.ok<SourceAction>(viewer, 'source.getSourceAction', { Id: ids.docs });
    expect(a).toMatchObject({ Id: ids.docs, source: 'docs_src', index: 'docs_idx', running: false });
    expect(a.live).toEqual([expect.objectContaining({ Id: ids.server, node: 'search-1', ok: true, indexed_documents: ROWS + 1 })]);
    expect(a.live[0].disk_bytes).toBeGreaterThan(0);
    const list = await t.ok<SourceView[]>(viewer, 'source.get', { live: 1 });
    expect(list.find((s) => s.Id === ids.docs)?.live).toEqual([expect.objectContaining({ ok: true, indexed_documents: ROWS + 1 })]);
    // the broken index is not served: said per node, not a failure of the call
    expect(list.find((s) => s.Id === ids.broken)?.live).toEqual([expect.objectContaining({ ok: false, message: expect.stringMatching(/not served/) })]);
  }, T);

  test('a source with broken SQL: its error is stored and shown in source.get (no password in it)', async () => {
    const r = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.broken });
    expect(r.working.docs).toBe(0);
    expect(r.working.errors).toHaveLength(1);
    expect(r.working.errors[0]).toMatch(/^search-1: index 'broken_idx': sql_query: Table '.*no_such_table' doesn't exist/);
    expect(r.working.errors[0]).not.toContain(db.password);
    const row = (await t.ok<SourceView[]>(admin, 'source.get', {})).find((s) => s.Id === ids.broken)!;
    expect(row.working).toEqual(r.working);
    // the good index is untouched by the failed one
    expect((await sphinxql(node.sphinxqlPort, "SELECT id FROM docs_idx WHERE MATCH('rare')")).length).toBe(3);
  }, T);

  test('a source not yet in the config file is reported as such', async () => {
    ids.fresh = (await t.ok(admin, 'source.insert', { source: 'fresh_src', connect: `${ids.host}-main`, query: 'SELECT id, title, cat_id FROM docs', attribute: 'cat_id', index: 'fresh_idx' })).Id;
    const r = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.fresh });
    expect(r.working.errors).toEqual(["search-1: index 'fresh_idx' is not in the search config file: rebuild the search config"]);
    await t.ok(admin, 'sphinx_control.createSphinxConf', {});
    const again = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.fresh });
    expect(again.working).toMatchObject({ docs: ROWS + 1, errors: [] });
  }, T);

  test('one rotation per source across instances: a source whose lease another instance holds answers 409; the job leaves it and rotates what is due', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const past = new Date(Date.now() - 3 * 3600_000);
    await ds.query('UPDATE search_sources SET time_run = ? WHERE Id IN (?, ?)', [past.toISOString().replace('T', ' ').replace('Z', ''), ids.docs, ids.fresh]);
    // another instance is rotating docs_src
    // (its row is there since the rotations above, released: until 0)
    await ds.query('UPDATE leases SET owner = ?, until = ? WHERE name = ?', ['another-instance', Date.now() + 3600_000, `sphinx.rotate.${ids.docs}`]);
    const busy = await t.rpc<any>(admin, 'source.rotate', { Id: ids.docs });
    expect(busy.env).toMatchObject({ status: 'rules', code: 409, message: "A rotation of source 'docs_src' is already running" });

    const before = new Map((await t.ok<SourceView[]>(admin, 'source.get', {})).map((s) => [s.Id, s]));
    // CRON_ENABLED=0 here: the job itself does nothing; its pass is the service's scheduledRotate
    expect(await t.app.get(SphinxRotateJob).run()).toBeNull();
    const job = t.app.get(SearchSourcesService);
    const done = await job.scheduledRotate();
    // fresh_src was due (3 h > 120 min); docs_src too, but held elsewhere; broken_src was rotated minutes ago
    expect(done?.map((d) => d.source)).toEqual(['fresh_src']);
    const after = new Map((await t.ok<SourceView[]>(admin, 'source.get', {})).map((s) => [s.Id, s]));
    expect(Date.parse(after.get(ids.fresh)!.time_run!)).toBeGreaterThan(Date.now() - 60_000);
    expect(after.get(ids.fresh)!.working).toMatchObject({ docs: ROWS + 1, errors: [] });
    expect(after.get(ids.docs)!.time_run).toBe(before.get(ids.docs)!.time_run);
    expect(after.get(ids.broken)!.time_run).toBe(before.get(ids.broken)!.time_run);
    expect((await t.ok<{ list: Array<{ name: string; schedule: string }> }>(admin, 'worker.getList', {})).list.find((x) => x.name === 'sphinx-rotate')).toMatchObject({ schedule: 'every minute' });

    // the other instance is done: docs_src is rotated by the next pass, and its lease is free afterwards
    await ds.query('UPDATE leases SET until = ? WHERE name = ?', [0, `sphinx.rotate.${ids.docs}`]);
    expect((await job.scheduledRotate())?.map((d) => d.source)).toEqual(['docs_src']);
    const [lease] = await ds.query('SELECT owner, until FROM leases WHERE name = ?', [`sphinx.rotate.${ids.docs}`]);
    expect(Number(lease.until)).toBeLessThanOrEqual(Date.now());
    // nothing is due now
    expect(await job.scheduledRotate()).toBeNull();
  }, T);

  test('a dead Search server does not stop the others: each answers for itself', async () => {
    const dead = (await t.ok(admin, 'srv.save_server', { name: 'search-dead', type: 3, status: 1, ip: '127.0.0.1', sshport: await freePort(), sshlogin: 'nobody', sshpass: 'x' })).Id;
    try {
      const c = await t.ok<SphinxConfResult>(admin, 'sphinx_control.createSphinxConf', {});
      expect(c.nodes.map((n) => [n.node, n.ok])).toEqual([['search-1', true], ['search-dead', false]]);
      expect(c.nodes[1].message).toMatch(/refused|connect/i);
      const r = await t.ok<RotateResult>(admin, 'source.rotate', { Id: ids.docs });
      expect(r.working.docs).toBe(ROWS + 1);
      expect(r.working.errors).toEqual([expect.stringMatching(/^search-dead: /)]);
      expect(r.nodes.map((n) => [n.node, n.ok])).toEqual([['search-1', true], ['search-dead', false]]);
    } finally {
      await t.ok(admin, 'srv.save_server', { Id: dead, status: 0 });
    }
    // switched off, it is no Search server any more
    expect((await t.ok<SphinxConfResult>(admin, 'sphinx_control.createSphinxConf', {})).nodes.map((n) => n.node)).toEqual(['search-1']);
  }, T);
});
