/**
 * Search-node admin against a real Sphinx (issue 20 "Tests and figures"): `sphinx_control.createSphinxConf`
 * and `source.rotate` of 10 sources on one Search server, the loopback OpenSSH of the test helpers with
 * Debian's sphinxsearch 2.2.11 (searchd started on the written config as the SSH user), each source a
 * MariaDB table of 10,000 documents read by a user with a password. The console runs on SQLite.
 * Measured over HTTP (RPC), median of RUNS after a first pass that builds the indexes:
 * createSphinxConf; one rotate; the 10 rotates one after another; the 10 at once (10 RPC calls in
 * parallel: 10 indexers on the node); the job's pass over 10 due sources. Machine load is written
 * beside the figures. Run: `npm run bench -- sphinx` (root: sshd, a throw-away user).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import type { RotateResult, SphinxConfResult } from '../src/contracts/search-nodes.js';
import { SearchSourcesService } from '../src/modules/search-nodes/search-sources.service.js';
import { docsDatabase, sphinxql, startSearchNode } from '../test/helpers/sphinx.js';
import { machine, percentile, startBenchApp, writeSection } from './lib.js';

const SOURCES = 10;
const DOCS = 10_000;
const RUNS = 5;

if (process.getuid?.() !== 0) {
  console.log('sphinx: skipped, it needs root (sshd, a throw-away user)');
  process.exit(0);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' / ');
const loadBefore = load();
const node = await startSearchNode();
const db = await docsDatabase(DOCS, 'docs0');
for (let i = 1; i < SOURCES; i++) await db.query(`CREATE TABLE docs${i} LIKE docs0; INSERT INTO docs${i} SELECT * FROM docs0`);
const bench = await startBenchApp();
const conf = `${node.dir}/sphinx.conf`;
let searchd: Awaited<ReturnType<typeof node.startSearchd>> | null = null;

async function rpc<T>(method: string, args: unknown): Promise<{ ms: number; result: T }> {
  const t0 = performance.now();
  const res = await fetch(`${bench.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: bench.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
  const [env] = (await res.json()) as Array<{ status: string; result: T; message?: string }>;
  const ms = performance.now() - t0;
  if (env.status !== 'ok') throw new Error(`${method}: ${JSON.stringify(env)}`);
  return { ms, result: env.result };
}
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

try {
  await rpc('srv.save_server', { name: 'search-1', type: 3, status: 1, ip: '127.0.0.1', sshport: node.sshd.port, sshlogin: node.sshd.user, sshpass: node.sshd.password });
  await rpc('cfg.insertConfigsBatch', [
    { type: 'sphinx_conf_path', value: conf }, { type: 'sphinx_data_dir', value: `${node.dir}/data` },
    { type: 'sphinx_port', value: String(node.port) }, { type: 'sphinxql_port', value: String(node.sphinxqlPort) },
  ]);
  const host = (await rpc<{ Id: number }>('hosts.insert', { name: 'bench', connect: [{ name: 'main', query: db.url }] })).result.Id;
  const ids: number[] = [];
  for (let i = 0; i < SOURCES; i++) {
    ids.push((await rpc<{ Id: number }>('source.insert', {
      source: `src${i}`, connect: `${host}-main`, query: `SELECT id, title, body, cat_id, status\nFROM docs${i}`, attribute: 'cat_id,status', index: `idx${i}`,
    })).result.Id);
  }

  // createSphinxConf
  const confMs: number[] = [];
  let confBytes = '';
  for (let r = 0; r < RUNS + 1; r++) {
    const c = await rpc<SphinxConfResult>('sphinx_control.createSphinxConf', {});
    if (!c.result.nodes.every((n) => n.ok)) throw new Error(JSON.stringify(c.result.nodes));
    confBytes = /\((\d+) bytes/.exec(c.result.nodes[0].message)?.[1] ?? '';
    if (r > 0) confMs.push(c.ms);
  }

  // first pass: builds the indexes (searchd cannot start without one), then searchd
  for (const Id of ids) await rpc('source.rotate', { Id });
  searchd = await node.startSearchd(conf);

  const one: number[] = [];
  const seq: number[] = [];
  const par: number[] = [];
  const job: number[] = [];
  let bytes = 0;
  for (let r = 0; r < RUNS; r++) {
    one.push((await rpc<RotateResult>('source.rotate', { Id: ids[0] })).ms);
    const t0 = performance.now();
    for (const Id of ids) {
      const x = await rpc<RotateResult>('source.rotate', { Id });
      if (x.result.working.docs !== DOCS || x.result.working.errors.length) throw new Error(JSON.stringify(x.result.working));
      bytes = x.result.working.bytes;
    }
    seq.push(performance.now() - t0);
    const t1 = performance.now();
    const all = await Promise.all(ids.map((Id) => rpc<RotateResult>('source.rotate', { Id })));
    par.push(performance.now() - t1);
    for (const x of all) if (x.result.working.docs !== DOCS || x.result.working.errors.length) throw new Error(JSON.stringify(x.result.working));
    // the job's pass: every source due
    const ds = bench.app.get<DataSource>(getDataSourceToken());
    await ds.query('UPDATE search_sources SET time_run = NULL');
    const t2 = performance.now();
    const done = await bench.app.get(SearchSourcesService).scheduledRotate();
    job.push(performance.now() - t2);
    if (done?.length !== SOURCES) throw new Error(`job rotated ${done?.length}`);
  }
  const found = await sphinxql(node.sphinxqlPort, "SELECT id FROM idx9 WHERE MATCH('rare') LIMIT 2000");
  if (found.length !== DOCS / 10) throw new Error(`MATCH found ${found.length}`);
  const loadAfter = load();

  writeSection('sphinx', `
## Search nodes: createSphinxConf and rotate of 10 sources on one node

${machine()}; console on SQLite; one Search server: loopback OpenSSH (password login) with sphinxsearch 2.2.11, searchd running (seamless rotate); ${SOURCES} sources, each a MariaDB table of ${DOCS.toLocaleString('en-US')} documents (${Math.round(bytes / 1024)} KB of text per index); median of ${RUNS} runs after a first pass that built the indexes. Load average (1 / 5 / 15 min) before: ${loadBefore}; after: ${loadAfter}. Run: \`npm run bench -- sphinx\` (root).

| measure | median ms | min / max ms |
|---|---|---|
| \`sphinx_control.createSphinxConf\` (render, SSH, write 0600, indextool check; ${confBytes} bytes) | ${fmt(median(confMs))} | ${fmt(Math.min(...confMs))} / ${fmt(Math.max(...confMs))} |
| \`source.rotate\` of one source | ${fmt(median(one))} | ${fmt(Math.min(...one))} / ${fmt(Math.max(...one))} |
| 10 × \`source.rotate\`, one after another | ${fmt(median(seq))} | ${fmt(Math.min(...seq))} / ${fmt(Math.max(...seq))} |
| 10 × \`source.rotate\` at once (10 indexers on the node) | ${fmt(median(par))} | ${fmt(Math.min(...par))} / ${fmt(Math.max(...par))} |
| the job's pass over 10 due sources (one after another, a lease each) | ${fmt(median(job))} | ${fmt(Math.min(...job))} / ${fmt(Math.max(...job))} |

A rotation is one SSH connection and one \`indexer --rotate\` (SQL read, index build, SIGHUP to searchd); the figures are the HTTP round trip of the RPC call. The job rotates due sources one after another, so a pass over N sources takes about N single rotations.
`);
} finally {
  await searchd?.stop();
  await bench.close();
  await node.stop();
  await db.drop();
}
process.exit(0);
