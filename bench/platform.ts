/**
 * Platform throughput (issue 25 "Request cost"): GET /api/health and a 10-method RPC batch on the real
 * app (SQLite), against a bare Node HTTP server answering a small JSON body in the same run, for the
 * ratio, a bare Fastify 5 app answering it with helmet's headers (the floor of the app's stack) and the
 * same on Express 5 (the stack the app ran on before Fastify, for comparison). autocannon runs in a
 * process of its own (bench/lib.ts load). Then, for each app target, a second run under the V8
 * profiler (node:inspector, in the app's process) says where a request's CPU goes, as shares of the
 * samples by the code they fall in: that table is the CPU profile's figure.
 * Run: `npm run bench -- platform`.
 */
import express from 'express';
import Fastify from 'fastify';
import helmet from 'helmet';
import { createServer } from 'node:http';
import { Session, type Profiler } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { load, machine, startBenchApp, writeSection, type LoadResult } from './lib.js';

const DURATION = Number(process.env.PLATFORM_BENCH_S ?? 10);
const s = await startBenchApp();
const batch = JSON.stringify({
  methods: ['user.me', 'user.getList', 'audit.getList', 'user.me', 'user.getList', 'audit.getList', 'user.me', 'user.getList', 'audit.getList', 'user.me'],
  args: [null, { limit: 20 }, { limit: 20 }, null, { limit: 20 }, { limit: 20 }, null, { limit: 20 }, { limit: 20 }, null],
  host: 0,
});
const bare = createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end('{"status":"ok","result":{"db":"up"}}'); });
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
// The floor of the stack the app runs on: Fastify 5 alone (no Nest, no database) answering the same
// JSON, with helmet's default headers run per request (the app's CSP adds two directives) and no-store;
// and Express 5 alike (the app's stack until 2026-11-27).
const helmetDefaults = helmet({ strictTransportSecurity: false });
const fastifyFloor = Fastify();
fastifyFloor.addHook('onRequest', (request, reply, done) => helmetDefaults(request.raw, reply.raw, (err) => done(err as Error | undefined)));
fastifyFloor.get('/api/health', (_request, reply) => reply.header('Cache-Control', 'no-store').send({ status: 'ok', result: { db: 'up' } }));
await fastifyFloor.listen({ port: 0, host: '127.0.0.1' });
const fastifyUrl = `http://127.0.0.1:${(fastifyFloor.server.address() as { port: number }).port}/api/health`;
const expressFloor = express();
expressFloor.disable('x-powered-by');
expressFloor.set('etag', false);
expressFloor.use(helmetDefaults);
expressFloor.get('/api/health', (_req, res) => { res.setHeader('Cache-Control', 'no-store'); res.json({ status: 'ok', result: { db: 'up' } }); });
const expressServer = createServer(expressFloor);
await new Promise<void>((r) => expressServer.listen(0, '127.0.0.1', r));
const expressUrl = `http://127.0.0.1:${(expressServer.address() as { port: number }).port}/api/health`;

const targets: Array<[string, Parameters<typeof load>[0]]> = [
  ['bare Node HTTP server (reference)', { url: bareUrl }],
  ['bare Fastify 5 app, same JSON, helmet (the stack\'s floor)', { url: fastifyUrl }],
  ['bare Express 5 app, same JSON, helmet (the stack before)', { url: expressUrl }],
  ['GET /api/health', { url: `${s.url}/api/health` }],
  ['POST /api, 10-method RPC batch', { url: `${s.url}/api`, method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: batch }],
];

/** Where a profile sample's function lives, as a row of the figure. */
function category(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'garbage collector';
  if (fn === '(idle)' || fn === '(program)') return 'idle / program';
  if (!url) return fn === 'writev' || fn === 'writeUtf8String' || fn === 'writeBuffer' ? 'socket writes (native)' : 'other native';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) {
    const pkg = m[1];
    if (pkg === 'typeorm') return 'TypeORM';
    if (pkg === 'better-sqlite3') return 'SQLite driver';
    if (pkg.startsWith('@nestjs/')) return 'NestJS';
    if (pkg === 'fastify' || pkg.startsWith('@fastify/') || ['find-my-way', 'avvio', 'light-my-request', 'fast-json-stringify', 'fast-querystring', 'toad-cache', 'secure-json-parse', 'fastq', 'abstract-logging', 'pino', 'raw-body'].includes(pkg)) return 'Fastify and its plugins';
    if (pkg === 'rxjs') return 'rxjs (Nest interceptors)';
    if (pkg === 'zod') return 'zod (input checks)';
    if (['express', 'router', 'body-parser', 'raw-body', 'finalhandler', 'send', 'serve-static', 'parseurl', 'path-to-regexp', 'helmet', 'compression', 'on-headers', 'on-finished', 'express-static-gzip', 'type-is', 'content-type', 'accepts', 'negotiator', 'vary', 'etag', 'fresh', 'iconv-lite', 'debug'].includes(pkg)) return 'Express and its middleware';
    return `other packages (${pkg})`;
  }
  // dist/ or a helper's own build directory (dist-<name>/).
  if (/\/dist[^/]*\/src\//.test(url)) return 'the console\'s own code';
  if (url.startsWith('node:')) return 'Node HTTP and streams';
  return 'other';
}

async function profile(opts: Parameters<typeof load>[0]): Promise<Map<string, number>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await load({ ...opts, duration: Math.max(3, Math.round(DURATION / 2)) });
  const { profile: p } = (await session.post('Profiler.stop')) as { profile: Profiler.Profile };
  session.disconnect();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const shares = new Map<string, number>();
  let busy = 0;
  for (const id of p.samples ?? []) {
    const cf = byId.get(id)!.callFrame;
    const c = category(cf.url, cf.functionName);
    if (c === 'idle / program') continue;
    busy++;
    shares.set(c, (shares.get(c) ?? 0) + 1);
  }
  for (const [k, v] of shares) shares.set(k, v / busy);
  return shares;
}

const load0 = loadavg();
const rows: Array<[string, LoadResult]> = [];
for (const [name, opts] of targets) rows.push([name, await load({ ...opts, duration: DURATION })]);
const profiles: Array<[string, Map<string, number>]> = [];
for (const [name, opts] of targets.slice(3)) profiles.push([name, await profile(opts)]);
const load1 = loadavg();
bare.close();
await fastifyFloor.close();
expressServer.close();
await s.close();

const ref = rows[0][1].rps;
const cats = [...new Set(profiles.flatMap(([, m]) => [...m.keys()]))].sort((a, b) => (profiles[1][1].get(b) ?? 0) - (profiles[1][1].get(a) ?? 0));
const pct = (v: number | undefined) => (v === undefined ? '' : `${(v * 100).toFixed(1)} %`);
writeSection('platform', [
  '## Platform: RPC batch and health',
  '',
  `autocannon in a process of its own, 20 connections, ${DURATION} s each, against the app (SQLite, one process) and a bare node:http server in the same run; ${machine()}; load average ${load0.map((x) => x.toFixed(1)).join(' ')} at the start and ${load1.map((x) => x.toFixed(1)).join(' ')} at the end. Run: \`npm run bench -- platform\`.`,
  '',
  '| target | requests/s | p50 ms | p99 ms | vs bare | errors / non-2xx | goal |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(([name, r], i) => `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${(r.rps / ref).toFixed(2)} | ${r.errors} / ${r.non2xx} | ${
    i === 3 ? `≥ 0.25× bare: ${r.rps / ref >= 0.25 ? 'met' : '**not met**'}` : i === 4 ? `≥ 1,500 req/s and p99 ≤ 25 ms: ${r.rps >= 1500 && r.p99 <= 25 ? 'met' : '**not met**'}` : ''
  } |`),
  '',
  'The Fastify row is the floor for the app on its stack: Fastify 5 alone, without Nest or a database, answering the same JSON with helmet\'s default headers; the Express row is the same on Express 5, the stack the app ran on until 2026-11-27 (docs/architecture.md "Request path").',
  '',
  'Each RPC request runs 10 methods (user.me, user.getList and audit.getList with 20 rows) one after another, after one session lookup.',
  '',
  `Where the CPU goes (the V8 profiler in the app's process during a second, ${Math.max(3, Math.round(DURATION / 2))} s autocannon run of each target; shares of the samples that were not idle, by the code the sampled function belongs to):`,
  '',
  `| code | ${profiles.map(([n]) => n).join(' | ')} |`,
  `|---|${profiles.map(() => '---').join('|')}|`,
  ...cats.map((c) => `| ${c} | ${profiles.map(([, m]) => pct(m.get(c))).join(' | ')} |`),
].join('\n'));
process.exit(0);
