/** Shared pieces of the benchmarks: start the real app, sign in, run autocannon, write results. */
import 'reflect-metadata';
import type autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config.js';
import { createApp } from '../src/bootstrap.js';
import { JsonLogger } from '../src/core/logger.js';
import { encodeAuthKey } from '../src/contracts/auth.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export async function startBenchApp(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-bench-'));
  const cfg = loadConfig({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'bench-password-1', LOG_LEVEL: 'error', CRON_ENABLED: '0', UI_DIR: join(ROOT, 'dist', 'ui'), ...env });
  const app = await createApp(cfg, new JsonLogger('error'));
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const auth = await fetch(`${url}/api/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: encodeAuthKey('admin', 'bench-password-1') }) });
  const hash = ((await auth.json()) as { result: { hash: string } }).result.hash;
  return { app, url, hash, close: async () => { await app.close(); rmSync(dataDir, { recursive: true, force: true }); } };
}

export interface LoadResult { rps: number; p50: number; p99: number; errors: number; non2xx: number }

/**
 * autocannon against `opts.url` (20 connections, 10 s unless said) in a process of its own, so the load
 * generator's CPU is not the measured server's when the server runs in this process.
 */
export async function load(opts: Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body' | 'connections' | 'duration'>): Promise<LoadResult> {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const args = [cli, '--json', '-c', String(opts.connections ?? 20), '-d', String(opts.duration ?? 10), '-m', opts.method ?? 'GET'];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (opts.body !== undefined) args.push('-b', String(opts.body));
  args.push(String(opts.url));
  const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, args, { maxBuffer: 64 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
  const r = JSON.parse(out.slice(out.indexOf('{'))) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export const machine = () => `${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;

/** Replaces (or appends) this benchmark's section of bench/README.md. */
export function writeSection(name: string, markdown: string) {
  const file = join(ROOT, 'bench', 'README.md');
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  writeFileSync(file, i >= 0 && j > i ? doc.slice(0, i) + block + doc.slice(j + end.length) : `${doc.trimEnd()}\n\n${block}\n`);
  console.log(markdown);
}

/**
 * Runs `fn` with the URL of a scratch MariaDB database (on BENCH_MARIADB_URL, default root on
 * 127.0.0.1:3306), dropped afterwards. Answers `{value}`, or `{skipped: reason}` when MariaDB cannot be
 * reached, FW_BENCH_SQLITE_ONLY is set, or the run failed (the reason goes into the bench's section).
 */
export async function onScratchMariaDb<T>(fn: (url: string) => Promise<T>): Promise<{ value: T } | { skipped: string }> {
  if (process.env.FW_BENCH_SQLITE_ONLY) return { skipped: 'FW_BENCH_SQLITE_ONLY is set' };
  const u = new URL((process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/').replace(/^mariadb:/, 'mysql:'));
  const opts = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) || 'root', password: decodeURIComponent(u.password) };
  const name = `bench_${randomBytes(4).toString('hex')}`;
  let conn;
  try {
    conn = await createConnection(opts);
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } catch (e) {
    await conn?.end();
    return { skipped: `MariaDB at ${u.host} not reachable: ${(e as Error).message}` };
  }
  u.username = opts.user;
  u.pathname = `/${name}`;
  try {
    return { value: await fn(u.toString()) };
  } catch (e) {
    return { skipped: (e as Error).message };
  } finally {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn.end();
  }
}

/**
 * One RPC method per POST /api as the app's own session, on a fresh connection. Only the answers asked
 * for are parsed (`parse`): the client shares the process with the server, and a 3 MB JSON.parse would
 * count as the server's time; otherwise the envelope's start is checked and its size answered.
 */
export function rpcCaller(url: string, hash: string) {
  const u = new URL(url);
  return (method: string, args: unknown, parse = true) => new Promise<{ result: any; bytes: number }>((resolve, reject) => {
    const body = JSON.stringify({ methods: [method], args: [args], host: 0 });
    const req = request({ host: u.hostname, port: u.port, path: '/api', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), User: hash } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const buf = Buffer.concat(chunks);
          if (!parse) {
            if (buf.subarray(0, 16).toString() !== '[{"status":"ok",') reject(new Error(`${method}: ${buf.subarray(0, 300).toString()}`));
            else resolve({ result: null, bytes: buf.length });
            return;
          }
          const [e] = JSON.parse(buf.toString('utf8')) as [{ status: string; result: any; message?: string }];
          if (e.status !== 'ok') reject(new Error(`${method}: ${e.message}`));
          else resolve({ result: e.result, bytes: buf.length });
        } catch (err) { reject(err); }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
