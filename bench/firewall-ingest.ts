/**
 * Firewall ingest end to end: 1,000,000 nginx lines built from the fixture (100 copies, the client
 * addresses varied per copy) read in 32 KiB pieces (the size SSH hands them over), through the worker's
 * own path (LogIngest: chunks parsed in the worker-thread pool, each batch stored with its cursor move
 * in one transaction by AccessLogStore, entries plus per-minute counters) into SQLite and MariaDB, in the
 * real app. Meanwhile: the event loop's delay, and a health check every 50 ms (what an operator's
 * request waits). Run: `npm run bench -- firewall-ingest`. MariaDB: BENCH_MARIADB_URL (default
 * mysql://root@127.0.0.1:3306/; a scratch database is made and dropped: bench/lib.ts onScratchMariaDb), skipped when unreachable.
 */
import 'reflect-metadata';
import { getDataSourceToken } from '@nestjs/typeorm';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { AccessLogStore, PREFERRED_CHUNK_BYTES } from '../src/modules/firewall/worker/access-log.store.js';
import { LogIngest } from '../src/modules/firewall/worker/firewall-worker.service.js';
import { LogParsePool } from '../src/modules/firewall/worker/log-parse.pool.js';
import { machine, onScratchMariaDb, percentile, ROOT, startBenchApp, writeSection } from './lib.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'access-combined-10k.log');
const FILE = join(ROOT, 'bench', '.tmp', 'access-1m.log'); // the same file as the parser bench
const COPIES = 100;
const READ_BYTES = 32 * 1024;
const RESOLUTION_MS = 10;

/** 100 copies of the fixture; copy k moves the second octet of every address by 7k (as bench/firewall-parse.ts). */
function buildFile() {
  if (existsSync(FILE) && statSync(FILE).mtimeMs > statSync(FIXTURE).mtimeMs && statSync(FILE).size > 200e6) return;
  mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
  const src = readFileSync(FIXTURE, 'latin1').split('\n').filter((l) => l);
  const fd = openSync(FILE, 'w');
  for (let k = 0; k < COPIES; k++) {
    const out = src.map((l) => l.replace(/^(\d+)\.(\d+)\./, (_m, a: string, b: string) => `${a}.${(Number(b) + 7 * k) % 256}.`));
    writeSync(fd, out.join('\n') + '\n', null, 'latin1');
  }
  closeSync(fd);
}

interface Row {
  db: string;
  lines: number;
  seconds: number;
  linesPerS: number;
  loop: { p50: number; p99: number; max: number };
  health: { n: number; p50: number; p99: number; max: number };
  rssMb: number;
  walMb: number | null;
  cpu: number;
  rows: number;
  counters: number;
  hits: number;
}

async function run(label: string, env: Record<string, string>): Promise<Row> {
  const app = await startBenchApp(env);
  try {
    const ds = app.app.get<DataSource>(getDataSourceToken());
    const store = app.app.get(AccessLogStore);
    const pool = app.app.get(LogParsePool);
    await ds.query('INSERT INTO fw_log_cursors (proxy_id, path, inode, pos, `lines`, bad_lines) VALUES (?, ?, ?, ?, ?, ?)', [1, FILE, '1', 0, 0, 0]);
    const src = { proxy_id: 1, proxy_addr: '192.0.2.1' };
    const cursor = { inode: '1', pos: 0 };
    let lines = 0;
    const ingest = new LogIngest(pool, store.chunkBytes, 0, async (batch, pos) => {
      await store.commit(src, batch, cursor, { inode: '1', pos, path: FILE }, batch.bad, null);
      cursor.pos = pos;
      lines += batch.length;
    });

    // an operator meanwhile: a health check every 50 ms, one at a time
    let stop = false;
    const latencies: number[] = [];
    const prober = (async () => {
      while (!stop) {
        const t0 = performance.now();
        const r = await fetch(`${app.url}/api/health`);
        await r.arrayBuffer();
        latencies.push(performance.now() - t0);
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    let rss = 0;
    let wal = 0;
    const walFile = env.DATABASE_URL.startsWith('sqlite:') ? `${env.DATABASE_URL.slice('sqlite:'.length)}-wal` : null;
    const rssTimer = setInterval(() => {
      rss = Math.max(rss, process.memoryUsage().rss);
      if (walFile && existsSync(walFile)) wal = Math.max(wal, statSync(walFile).size);
    }, 100);
    const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    loop.enable();
    for await (const piece of createReadStream(FILE, { highWaterMark: READ_BYTES })) {
      const p = ingest.push(piece as Buffer);
      if (p) await p;
    }
    await ingest.finish(async (batch, pos) => {
      await store.commit(src, batch, cursor, { inode: '1', pos, path: FILE }, batch.bad, null);
      lines += batch.length;
    });
    loop.disable();
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(cpu0);
    stop = true;
    await prober;
    clearInterval(rssTimer);

    const one = async (sql: string) => Number(Object.values((await ds.query(sql))[0] as Record<string, unknown>)[0]);
    const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      db: label,
      lines,
      seconds,
      linesPerS: lines / seconds,
      loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
      health: { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] },
      rssMb: rss / 1048576,
      walMb: walFile ? wal / 1048576 : null,
      cpu: (c.user + c.system) / 1e6 / seconds,
      rows: await one('SELECT COUNT(*) FROM fw_access_log'),
      counters: await one('SELECT COUNT(*) FROM fw_ip_minutes'),
      hits: await one('SELECT SUM(`count`) FROM fw_ip_minutes'),
    };
  } finally {
    await app.close();
  }
}

async function main() {
  buildFile();
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  try {
    rows.push(await run('SQLite (WAL)', { DATABASE_URL: `sqlite:${join(dir, 'ingest.sqlite')}` }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const maria = await onScratchMariaDb((url) => run('MariaDB (InnoDB, local)', { DATABASE_URL: url }));
  if ('value' in maria) rows.push(maria.value);
  else console.log(`MariaDB not measured: ${maria.skipped}`);
  const loadAfter = loadavg().map((x) => x.toFixed(2)).join(' ');
  const f = (n: number, d = 1) => n.toFixed(d);
  const md = `
## Firewall: log ingest end to end (parser pool + store)

1,000,000 lines (100 copies of test/fixtures/access-combined-10k.log, addresses varied per copy, 237 MB)
read in ${READ_BYTES / 1024} KiB pieces through the worker's path: \`LogIngest\` gathers ${PREFERRED_CHUNK_BYTES.sqlite / 1024} KiB (SQLite) or
${PREFERRED_CHUNK_BYTES.mariadb / 1024} KiB (MariaDB) chunks, the worker-thread pool parses them, and \`AccessLogStore\` stores each batch (entries,
per-minute counters, the cursor move) in one transaction; the real app, a health check every 50 ms meanwhile.
${machine()}; load average before ${load}, after ${loadAfter} (the machine is shared with other work now: figures are
what this run saw, not a quiet machine's). Run: \`npm run bench -- firewall-ingest\`. Goal: event loop p99 under 50 ms.

| database | lines stored | seconds | lines/s | event loop delay p50 / p99 / max ms | health check p50 / p99 / max ms (n) | main thread CPU | peak RSS MB | largest WAL MB | counter rows / hits |
|---|---|---|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.db} | ${r.rows} | ${f(r.seconds)} | ${Math.round(r.linesPerS)} | ${f(r.loop.p50)} / ${f(r.loop.p99)} / ${f(r.loop.max)} | ${f(r.health.p50)} / ${f(r.health.p99)} / ${f(r.health.max)} (${r.health.n}) | ${Math.round(r.cpu * 100)}% | ${Math.round(r.rssMb)} | ${r.walMb === null ? '-' : Math.round(r.walMb)} | ${r.counters} / ${r.hits} |`).join('\n')}

Event loop delay: \`monitorEventLoopDelay\` sampling every ${RESOLUTION_MS} ms, minus those ${RESOLUTION_MS} ms. Main thread CPU: this process's
CPU time over the wall time (the parser's and the SQLite checkpointer's threads included). Largest WAL: the SQLite write-ahead log
file's peak size (the checkpointer thread keeps it bounded; docs/firewall.md "Storage").

What moved the figures (same bench, this machine, under other load): SQLite's own WAL checkpoint, run inside a commit on the event
loop every few commits at this write rate, gave 7,000-9,000 lines/s with an event loop p99 of 110-310 ms (max up to 1.5 s); with the
checkpoints in a thread of their own and commits of about 140 lines (32 KiB) the event loop's worst delays are the commits themselves.
Rows are made from the parsed columns (about 4-9 us a line, the main thread's largest share besides SQLite) 128 at a time with a turn
of the event loop between slices.
`;
  for (const r of rows) if (r.rows !== 1_000_000 || r.hits !== 1_000_000) throw new Error(`${r.db}: ${r.rows} rows, ${r.hits} hits counted, expected 1000000`);
  writeSection('firewall-ingest', md);
}

await main();
process.exit(0);
