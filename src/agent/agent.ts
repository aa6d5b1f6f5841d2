/**
 * The node agent (docs/agent.md): the `/sync/...` endpoints of 000 §7 "Node sync" on a node, over plain
 * node:http — no UI, no sessions, no database. Every request carries the cluster key in X-Cluster-Key
 * (compared in constant time; 401 otherwise). Answers are JSON `{host, srv?, r: {res}}`.
 *
 *   GET  /sync/logs                          r.res: [{name, size, mtime}]
 *   GET  /sync/logs/open/{file}?lines=&type=  r.res: the last lines (array with _front_=1, else one text)
 *   GET|POST /sync/logs/del/{file}           r.res: 'ok'
 *   GET|POST /sync/logs/del_all              r.res: 'ok' (r.deleted: count)
 *   GET  /sync/logs/follow/{file}            text/event-stream of appended lines (beyond the spec)
 *   POST /sync/deploy_global_config/test     body {configs: [{type, value}]}: what would change
 *   POST /sync/deploy_global_config          writes the configs atomically, then runs the reload command
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants, promises as fsp, watch, type FSWatcher } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import {
  CLUSTER_KEY_HEADER, LOG_DEFAULT_LINES, LOG_DEFAULT_TYPE, LOG_MAX_LINES, LOG_TYPES,
  type AgentAnswer, type ConfigRow, type DeployRes, type DeployTestRes,
} from '../contracts/logs.js';
import { int } from '../contracts/fields.js';
import type { AgentConfig } from './config.js';
import { AgentHttpError, deleteConfined, errorCounterpart, listFiles, openConfined, resolveName, tailLines } from './files.js';

const BODY_LIMIT = 1024 * 1024;
/** `?lines=`: digits only, as every numeric field of the console (contracts/fields.ts): not 1e3, 0x10, +5 or 5.0. */
const LinesParam = int(1, LOG_MAX_LINES, 'lines');
const RELOAD_TIMEOUT_MS = 60_000;
const FOLLOW_POLL_MS = 250;
const FOLLOW_HEARTBEAT_MS = 15_000;
const FOLLOW_MAX_CHUNK = 256 * 1024;
/** Follow keeps this many first bytes of the file to see it cut and refilled between two looks. */
export const FINGERPRINT_BYTES = 4096;

async function readHead(fh: fsp.FileHandle, len: number): Promise<Buffer> {
  if (len <= 0) return Buffer.alloc(0);
  const buf = Buffer.alloc(len);
  const { bytesRead } = await fh.read(buf, 0, len, 0);
  return buf.subarray(0, bytesRead);
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

const ConfigsBody = z.object({
  configs: z.array(z.object({ type: z.string().min(1).max(190), value: z.string().max(65_535) }).strict()).max(10_000),
});

export interface AgentHandle {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export function createAgentServer(cfg: AgentConfig): Server {
  const keyDigest = digest(cfg.key);
  const authorised = (req: IncomingMessage, url: URL, allowQueryKey: boolean) => {
    const h = req.headers[CLUSTER_KEY_HEADER];
    let given = typeof h === 'string' ? h : undefined;
    // 000 §7: deploy_global_config passes the key as _srv_; honoured when no header is sent.
    if (given === undefined && allowQueryKey) given = url.searchParams.get('_srv_') ?? undefined;
    if (given === undefined) return false;
    return timingSafeEqual(digest(given), keyDigest);
  };

  const answer = <T>(res: ServerResponse, code: number, srv: string | null, body: { res: T; error?: string }, extra: Record<string, unknown> = {}) => {
    const a: AgentAnswer<T> & Record<string, unknown> = { host: cfg.hostname, ...(srv ? { srv } : {}), r: body, ...extra };
    const text = JSON.stringify(a);
    res.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      const code = err instanceof AgentHttpError ? err.code : 500;
      const message = err instanceof AgentHttpError ? err.message : 'Internal error';
      if (!res.headersSent) answer(res, code, null, { res: false, error: message });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // The raw path: decoded once by us, so encoded tricks (%2e%2e, %2f) are seen and refused.
    const rawPath = (req.url ?? '/').split('?')[0];
    const url = new URL(req.url ?? '/', 'http://agent');
    const srv = url.searchParams.get('_srv_');
    const front = url.searchParams.get('_front_') === '1';
    if (!rawPath.startsWith('/sync/') && rawPath !== '/sync') throw new AgentHttpError(404, 'Not found');
    const isDeploy = rawPath === '/sync/deploy_global_config' || rawPath === '/sync/deploy_global_config/test';
    if (!authorised(req, url, isDeploy)) {
      // Let the client finish sending, then refuse: no information beyond 401.
      req.resume();
      const text = JSON.stringify({ r: { res: false, error: 'Unauthorized' } }); // not even the hostname
      res.writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
      return res.end(text);
    }
    const srvEcho = isDeploy ? null : srv; // the key is never echoed
    const method = req.method ?? 'GET';
    const fileOf = (prefix: string) => {
      const rest = rawPath.slice(prefix.length);
      let name: string;
      try { name = decodeURIComponent(rest); } catch { throw new AgentHttpError(400, 'Bad file name'); }
      return resolveName(cfg, name);
    };

    if (rawPath === '/sync/logs' && method === 'GET') {
      return answer(res, 200, srvEcho, { res: await listFiles(cfg) });
    }
    if (rawPath.startsWith('/sync/logs/open/') && method === 'GET') {
      const named = fileOf('/sync/logs/open/');
      const lines = LinesParam.safeParse(url.searchParams.get('lines') ?? LOG_DEFAULT_LINES);
      if (!lines.success) throw new AgentHttpError(400, `lines must be 1-${LOG_MAX_LINES} (digits)`);
      const n = lines.data;
      const type = url.searchParams.get('type') ?? LOG_DEFAULT_TYPE;
      if (!(LOG_TYPES as readonly string[]).includes(type)) throw new AgentHttpError(400, `type must be one of ${LOG_TYPES.join(', ')}`);
      // type=error reads the error stream paired with the named file (docs/agent.md "Output and error").
      let r = named;
      if (type === 'error') {
        const e = errorCounterpart(named.name);
        if (!e) throw new AgentHttpError(404, 'File not found');
        r = resolveName(cfg, e);
      }
      const fh = await openConfined(r);
      try {
        const t = await tailLines(fh, n);
        return answer(res, 200, srvEcho, { res: front ? t.lines : t.lines.join('\n') }, { name: r.name, type, size: t.size });
      } finally {
        await fh.close();
      }
    }
    if (rawPath.startsWith('/sync/logs/del/') && (method === 'GET' || method === 'POST' || method === 'DELETE')) {
      req.resume();
      await deleteConfined(fileOf('/sync/logs/del/'));
      return answer(res, 200, srvEcho, { res: 'ok' });
    }
    if (rawPath === '/sync/logs/del_all' && (method === 'GET' || method === 'POST' || method === 'DELETE')) {
      req.resume();
      let deleted = 0;
      for (const f of await listFiles(cfg)) {
        try { await deleteConfined(resolveName(cfg, f.name)); deleted++; } catch { /* gone meanwhile, or no longer a regular file */ }
      }
      return answer(res, 200, srvEcho, { res: 'ok' }, { deleted });
    }
    if (rawPath.startsWith('/sync/logs/follow/') && method === 'GET') {
      return follow(fileOf('/sync/logs/follow/'), req, res);
    }
    if (isDeploy && method === 'POST') {
      if (!cfg.configFile) throw new AgentHttpError(404, 'Deploy configs is not configured on this node (AGENT_CONFIG_FILE)');
      const body = await readJson(req);
      const p = ConfigsBody.safeParse(body);
      if (!p.success) throw new AgentHttpError(400, `Bad configs: ${p.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const test = rawPath.endsWith('/test');
      try {
        const r = test ? await deployTest(cfg.configFile, p.data.configs) : await deploy(cfg, p.data.configs);
        return answer(res, 200, null, { res: r });
      } catch (err) {
        if (err instanceof DeployFailure) return answer(res, 422, null, { res: err.res, error: err.message });
        throw err;
      }
    }
    throw new AgentHttpError(404, 'Not found');
  }

  /** Streams appended lines as server-sent events until the client goes; follows truncation and rotation. */
  async function follow(r: ReturnType<typeof resolveName>, req: IncomingMessage, res: ServerResponse) {
    let fh = await openConfined(r);
    let pos = (await fh.stat()).size;
    let ino = (await fh.stat()).ino;
    let partial = '';
    let closed = false;
    let busy = false;
    // The first bytes (up to FINGERPRINT_BYTES) as last read: a file cut and refilled past the read
    // point between two looks has the same inode and no smaller size, but (almost always) other first bytes.
    let head = await readHead(fh, Math.min(pos, FINGERPRINT_BYTES));
    let lastSize = pos;
    let lastMtime = (await fh.stat()).mtimeMs;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const send = (event: string, data: unknown) => { if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`); };
    send('open', { host: cfg.hostname, name: r.name, size: pos });
    let watcher: FSWatcher | null = null;
    const stop = async () => {
      if (closed) return;
      closed = true;
      clearInterval(poll);
      clearInterval(beat);
      watcher?.close();
      await fh.close().catch(() => undefined);
      res.end();
    };
    const check = async () => {
      if (closed || busy) return;
      busy = true;
      try {
        // Rotation: the name now points at another file (or none): read the rest of the old one, then reopen.
        const st = await fsp.lstat(r.path).catch(() => null);
        if (st && st.ino !== ino && st.isFile()) {
          const old = fh;
          fh = await openConfined(r);
          ino = (await fh.stat()).ino;
          await old.close().catch(() => undefined);
          pos = 0;
          partial = '';
          head = Buffer.alloc(0);
          send('rotated', { name: r.name });
        }
        const cur = await fh.stat();
        // The first bytes are compared only when the file changed since the last look (size or mtime).
        const changed = cur.size !== lastSize || cur.mtimeMs !== lastMtime;
        lastSize = cur.size;
        lastMtime = cur.mtimeMs;
        const refilled = changed && cur.size >= pos && head.length > 0 && !(await readHead(fh, head.length)).equals(head);
        if (cur.size < pos || refilled) { // truncated in place (and maybe refilled past the read point)
          pos = 0;
          partial = '';
          head = Buffer.alloc(0);
          send('truncated', { name: r.name });
        }
        while (cur.size > pos && !closed) {
          const len = Math.min(FOLLOW_MAX_CHUNK, cur.size - pos);
          const buf = Buffer.allocUnsafe(len);
          const { bytesRead } = await fh.read(buf, 0, len, pos);
          if (!bytesRead) break;
          // The fingerprint grows from the bytes just read (not a second read, which could see newer bytes).
          if (head.length < FINGERPRINT_BYTES && head.length === pos) head = Buffer.concat([head, buf.subarray(0, Math.min(bytesRead, FINGERPRINT_BYTES - head.length))]);
          pos += bytesRead;
          const text = partial + buf.subarray(0, bytesRead).toString('utf8');
          const parts = text.split('\n');
          partial = parts.pop() ?? '';
          if (partial.length > FOLLOW_MAX_CHUNK) { parts.push(partial); partial = ''; }
          const lines = parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
          if (lines.length) send('lines', { lines });
        }
      } catch (err) {
        send('end', { error: err instanceof AgentHttpError ? err.message : 'Read failed' });
        await stop();
      } finally {
        busy = false;
      }
    };
    const poll = setInterval(() => void check(), FOLLOW_POLL_MS);
    const beat = setInterval(() => { if (!closed) res.write(': keep-alive\n\n'); }, FOLLOW_HEARTBEAT_MS);
    try { watcher = watch(dirname(r.path), { persistent: false }, (_e, f) => { if (!f || f === basename(r.path)) void check(); }); } catch { /* polling alone */ }
    req.on('close', () => void stop());
    res.on('error', () => void stop());
  }
}

class DeployFailure extends Error {
  constructor(message: string, readonly res: unknown) { super(message); }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > BODY_LIMIT) throw new AgentHttpError(413, 'Body too large');
    chunks.push(c);
  }
  try { return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'); } catch { throw new AgentHttpError(400, 'Malformed JSON body'); }
}

/** The file's text for a list of config rows: JSON, one row a line, stable order. */
export function renderConfigs(rows: ConfigRow[]): string {
  const sorted = [...rows].sort((a, b) => a.type.localeCompare(b.type) || a.value.localeCompare(b.value));
  return JSON.stringify(sorted, null, 2) + '\n';
}
const rowKey = (r: ConfigRow) => `${r.type}=${r.value}`;

async function deployTest(file: string, rows: ConfigRow[]): Promise<DeployTestRes> {
  const dir = dirname(file);
  const st = await fsp.stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new DeployFailure(`Directory ${dir} does not exist`, { file, changed: false, added: [], removed: [] });
  try { await fsp.access(dir, constants.W_OK); } catch { throw new DeployFailure(`Directory ${dir} is not writable`, { file, changed: false, added: [], removed: [] }); }
  let current: ConfigRow[] = [];
  let currentText = '';
  try {
    const fst = await fsp.lstat(file);
    if (fst.isSymbolicLink() || !fst.isFile()) throw new DeployFailure(`${file} is not a regular file`, { file, changed: false, added: [], removed: [] });
    if (fst.size > 16 * 1024 * 1024) throw new DeployFailure(`${file} is too large to compare`, { file, changed: false, added: [], removed: [] });
    currentText = await fsp.readFile(file, 'utf8');
    const parsed = JSON.parse(currentText) as unknown;
    if (Array.isArray(parsed)) current = parsed.filter((r): r is ConfigRow => !!r && typeof r.type === 'string' && typeof r.value === 'string');
  } catch (err) {
    if (err instanceof DeployFailure) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') current = []; // unreadable JSON: every row counts as new
  }
  const now = new Set(current.map(rowKey));
  const next = new Set(rows.map(rowKey));
  const added = [...next].filter((k) => !now.has(k)).sort();
  const removed = [...now].filter((k) => !next.has(k)).sort();
  return { file, changed: currentText !== renderConfigs(rows), added, removed };
}

async function deploy(cfg: AgentConfig, rows: ConfigRow[]): Promise<DeployRes> {
  const file = cfg.configFile!;
  const t = await deployTest(file, rows);
  // Atomic: a temporary file in the same directory, flushed, then renamed over the target.
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o640);
  try {
    await fh.writeFile(renderConfigs(rows), 'utf8');
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  await fsp.rename(tmp, file);
  let reload: DeployRes['reload'] = null;
  if (cfg.reloadCmd) {
    const r = await new Promise<NonNullable<DeployRes['reload']>>((resolve) => {
      execFile('/bin/sh', ['-c', cfg.reloadCmd!], { timeout: RELOAD_TIMEOUT_MS, maxBuffer: 256 * 1024 }, (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`.slice(-4000);
        const code = err ? (typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : null) : 0;
        resolve({ cmd: cfg.reloadCmd!, code, output });
      });
    });
    reload = r;
    if (r.code !== 0) throw new DeployFailure(`Reload failed (exit ${r.code ?? 'signal/time-out'}): ${r.output.trim().slice(-500)}`, { ...t, written: true, reload: r });
  }
  return { ...t, written: true, reload };
}

/** Starts an agent on cfg.port (0: any free port) and answers its handle. */
export async function startAgent(cfg: AgentConfig): Promise<AgentHandle> {
  const server = createAgentServer(cfg);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.port, cfg.host, () => resolve());
  });
  const addr = server.address() as { port: number; address: string };
  const host = addr.address.includes(':') ? `[${addr.address}]` : addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address;
  return {
    server,
    url: `http://${host}:${addr.port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
