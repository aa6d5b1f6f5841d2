/**
 * Several console instances from one build behind a real nginx, for the fault tests of issue 26
 * (STACK-NOTES "Several instances"). One cluster per test file:
 *
 *   const c = await startCluster();                     // in beforeAll (allow ~3 min: it may build first)
 *   const { hash } = await c.signIn();
 *   await c.rpc(hash, 'srv.save_server', { name: 'x', type: 0 }, { via: 0 });   // {status, env, via, ms}
 *   const s = await c.socket(hash, 1);                  // socket.io on instance 1 (or 'nginx')
 *   c.proxy(0).set('reset'); ...; c.proxy(0).set('forward');   // cut instance 0's Redis connections only
 *   await c.killRedis(); await c.startRedis();          // Redis crash and restart, same port
 *   const ms = await c.kill(1, 'SIGTERM'); await c.restart(1);
 *   await c.close();                                    // in afterAll: always, also after a failure
 *
 * What runs, all on 127.0.0.1 and free ports, everything under one temp directory (`c.dir`):
 * - Redis of its own: `redis-server --port P --bind 127.0.0.1 --save '' --appendonly no --dir <tmp>`;
 *   `killRedis()` is SIGKILL, `startRedis()` starts it again on the same port (empty: no persistence).
 * - One TCP proxy per instance in front of that Redis (test/helpers/tcp-proxy.ts): instance i's
 *   REDIS_URL is `redis://127.0.0.1:<proxy(i).port>`, so one instance's Redis can be cut alone.
 * - The instances: `node dist/src/main.js` (the `npm run build:server` output; built first when
 *   dist/src/main.js is missing or older than a .ts file under src/ (not src/ui) or config/), each a
 *   child process with its own PORT and DATA_DIR, and the same DATABASE_URL, SECRET_KEY, ADMIN_LOGIN /
 *   ADMIN_PASSWORD, CRON_ENABLED=1, TRUST_PROXY=1 and LOG_LEVEL (default 'info'). Started one after the
 *   other (the second once the first answers GET /api/health 200), so schema creation never races.
 *   Their stdout/stderr lines are kept (`logs(i)`, pino JSON lines parsed) and written to
 *   <dir>/instance-<i>.log.
 * - The database: always MariaDB, a fresh database created on the server of TEST_DATABASE_URL, or of
 *   mysql://root@127.0.0.1:3306 (the machine's MariaDB) when it is unset, and dropped by close().
 *   Two processes sharing one SQLite file would work too (test/api/socket-session.e2e.ts does), but a
 *   scaled-out deployment uses MariaDB, and MariaDB is what a lost connection or a lease race is
 *   realistic on; so the harness does not offer SQLite.
 * - Debian's nginx (/usr/sbin/nginx) with its own config, pid, logs and temp paths under <dir>/nginx,
 *   `upstream` round robin over the instances (see nginxConfig() for the time-outs). Every response
 *   it proxies carries `X-Upstream: <addr>` ($upstream_addr), which is how `rpc`/`rest` tell which
 *   instance answered (`via`); nothing in src/ says it.
 *
 * Children are SIGKILLed if the test process exits without close() (the database and temp directory
 * are then left behind: t_* databases and /tmp/cluster-* directories).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, utimesSync, writeFileSync, type WriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runInThisContext } from 'node:vm';
import { io, type Socket } from 'socket.io-client';
import { encodeAuthKey, type SessionValues } from '../../src/contracts/auth.js';
import { SOCKET_CLIENT_STATUS } from '../../src/contracts/constants.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import type { ServerEvents } from '../../src/contracts/events.js';
import { freshMysql } from './mysql.js';
import { nginxTempPaths } from './proxy-host.js';
import { freePort } from './sshd.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { sleep, waitFor } from './wait.js';

export const NGINX_PATH = '/usr/sbin/nginx';
export const REDIS_SERVER = 'redis-server';
export const CLUSTER_ADMIN = { login: 'admin', password: 'admin-password-1' };
// The project root from test/helpers (under jest) or from dist/test/helpers (compiled, as the benches run it).
const up = resolve(import.meta.dirname, '..', '..');
const ROOT = basename(up) === 'dist' ? dirname(up) : up;
const MAIN_JS = join(ROOT, 'dist', 'src', 'main.js');

/** Where a call goes: through nginx, or straight to instance i. */
export type Via = 'nginx' | number;

export interface ClusterOptions {
  /** How many instances (default 2). */
  instances?: number;
  /** LOG_LEVEL of the instances (default 'info': the JSON lines tests assert on). */
  logLevel?: string;
  /** Extra environment for every instance, and per instance (wins). */
  env?: Record<string, string>;
  instanceEnv?: (i: number) => Record<string, string>;
  /** nginx time-outs in seconds (defaults in nginxConfig()). */
  nginx?: { connectTimeoutS?: number; readTimeoutS?: number; sendTimeoutS?: number };
  /** How long one instance may take to answer GET /api/health 200 after its start (default 90 s). */
  startTimeoutMs?: number;
}

export interface LogLine {
  /** Instance index, and which start of it (0: the first, 1: after the first restart, ...). */
  i: number;
  gen: number;
  at: number;
  stream: 'stdout' | 'stderr';
  text: string;
  /** The parsed pino line (level 40 = warn, 50 = error; `msg`, `context`), or null for a plain-text line. */
  json: { level?: number; msg?: string; context?: string; [k: string]: unknown } | null;
}

export interface CallOptions {
  via?: Via;
  /** Give up after this long (default 30 s): the call throws "... did not answer within N ms". */
  timeoutMs?: number;
}

export interface CallResult<T> {
  status: number;
  body: T;
  /** The instance that answered: from nginx's X-Upstream (the last address tried), or the one called. */
  via: number | null;
  /** Wall time of the call. */
  ms: number;
}

/** A socket.io client that records what it receives. */
export interface ClusterSocket {
  s: Socket;
  got: Array<{ event: string; payload: unknown; at: number }>;
  of<K extends keyof ServerEvents>(event: K): Array<ServerEvents[K]>;
  /** Resolves with the first payload of `event` (received before or after the call) matching `pred`. */
  waitFor<K extends keyof ServerEvents>(event: K, pred?: (p: ServerEvents[K]) => boolean, timeoutMs?: number): Promise<ServerEvents[K]>;
  close(): void;
}

export interface Cluster {
  dir: string;
  /** nginx, e.g. http://127.0.0.1:PORT. */
  url: string;
  instances: number;
  instanceUrl(i: number): string;
  /** The database URL every instance uses. */
  databaseUrl: string;
  /** Redis itself (not through a proxy), for a test's own checks. */
  redisPort: number;
  redisUrl: string;
  /** The TCP proxy in front of Redis used by instance i. */
  proxy(i: number): TcpProxy;
  killRedis(): Promise<void>;
  startRedis(): Promise<void>;
  /** Sends the signal and resolves with the ms until the process exited (SIGKILL after 30 s: ≥ 30000). */
  kill(i: number, signal?: 'SIGKILL' | 'SIGTERM'): Promise<number>;
  /** Starts instance i again (SIGTERM first when it still runs) on the same port; resolves when healthy. */
  restart(i: number): Promise<void>;
  alive(i: number): boolean;
  /** Every line instance i wrote (all its starts), oldest first. */
  logs(i: number): LogLine[];
  /** JSON lines of instance i at level warn (40) or above. */
  warnings(i: number): LogLine[];
  waitForLog(i: number, pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /**
   * The cron engine's instance name of instance i's current process (the `instance` of cron.getRuns),
   * read from its "cron ticks are claimed in Redis (…, instance X)" log line; null when not logged.
   */
  cronInstance(i: number): string | null;
  /** The harness index of a cron instance name (any start of it), or null. */
  indexOfCronInstance(name: string): number | null;
  /** POST /api/user/auth with the admin's (or the given) login and password. */
  signIn(login?: string, password?: string, via?: Via): Promise<SessionValues>;
  rest<T = unknown>(hash: string | null, method: string, path: string, body?: unknown, opts?: CallOptions): Promise<CallResult<T>>;
  /** One RPC call (POST /api {methods, args}); `env` is its envelope. */
  rpc<T = unknown>(hash: string | null, method: string, args?: unknown, opts?: CallOptions): Promise<CallResult<Envelope<T>> & { env: Envelope<T> }>;
  /** One RPC call that must succeed: its result, or throws with the method, args and envelope. */
  ok<T = any>(hash: string, method: string, args?: unknown, opts?: CallOptions): Promise<T>;
  /** socket.io with transports ['websocket'] on instance `via` or through nginx; no reconnection unless asked. */
  socket(hash: string, via?: Via, opts?: { reconnection?: boolean }): Promise<ClusterSocket>;
  /** The last lines of every instance, nginx's error log and Redis (for a failure message). */
  tail(lines?: number): string;
  /** Stops everything (sockets, nginx, instances, proxies, Redis), drops the database, removes the directory. Idempotent. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------- process hygiene

/** Jest's `process` copy never fires 'exit': the real one does (see test/helpers/proxy-host.ts). */
const realProcess: NodeJS.Process = (() => {
  try { return runInThisContext('process') as NodeJS.Process; } catch { return process; }
})();
const CHILDREN = Symbol.for('ops-console.test.cluster.children');
function children(): Map<ChildProcess, NodeJS.Signals> {
  const p = realProcess as unknown as Record<symbol, Map<ChildProcess, NodeJS.Signals> | undefined>;
  let map = p[CHILDREN];
  if (!map) {
    const created = new Map<ChildProcess, NodeJS.Signals>();
    map = created;
    p[CHILDREN] = created;
    realProcess.on('exit', () => { for (const [c, sig] of created) try { c.kill(sig); } catch { /* gone */ } });
  }
  return map;
}
/** `onExit`: the signal the child gets if the test process exits first (nginx: SIGTERM, so its master stops its workers). */
function track(c: ChildProcess, onExit: NodeJS.Signals = 'SIGKILL'): ChildProcess {
  const map = children();
  map.set(c, onExit);
  c.once('exit', () => map.delete(c));
  return c;
}
const exited = (c: ChildProcess | null) => !c || c.exitCode !== null || c.signalCode !== null;

/** Signals the process and resolves with the ms until it exited; SIGKILL after `graceMs`. */
async function stopChild(c: ChildProcess | null, signal: NodeJS.Signals, graceMs = 30_000): Promise<number> {
  const started = Date.now();
  if (!c || exited(c)) return 0;
  const done = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill(signal);
  const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
  return Date.now() - started;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); r(true); });
    s.once('error', () => r(false));
  });
}

/** PING over a raw socket; true on +PONG within 1 s. */
function redisPing(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => { s.destroy(); r(false); }, 1000);
    let buf = '';
    s.once('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) { clearTimeout(timer); s.destroy(); r(buf.startsWith('+PONG')); }
    });
    s.once('error', () => { clearTimeout(timer); r(false); });
  });
}

// ---------------------------------------------------------------- the build

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (p === join(ROOT, 'src', 'ui')) continue;
      newest = Math.max(newest, newestSource(p));
    } else if (e.name.endsWith('.ts')) {
      newest = Math.max(newest, statSync(p).mtimeMs);
    }
  }
  return newest;
}
const buildIsFresh = () => existsSync(MAIN_JS) && statSync(MAIN_JS).mtimeMs >= Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'config')));

/**
 * `npm run build:server` when dist/src/main.js is missing or older than the server sources (tsc
 * rewrites every output, so main.js dates the build). Test files running at once (jest workers) build
 * once: a lock directory, taken over when older than 5 minutes.
 */
export async function ensureServerBuild(): Promise<void> {
  if (buildIsFresh()) return;
  const lock = join(tmpdir(), `ops-console-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try { if (Date.now() - statSync(lock).mtimeMs > 5 * 60_000) rmSync(lock, { recursive: true, force: true }); } catch { /* released meanwhile */ }
      await sleep(1000);
    }
  }
  try {
    if (buildIsFresh()) return;
    await new Promise<void>((res, rej) => {
      execFile('npm', ['run', 'build:server'], { cwd: ROOT, timeout: 5 * 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        if (err) {
          // tsc emits despite type errors: date main.js back so the next start builds again rather than run that output.
          try { utimesSync(MAIN_JS, 0, 0); } catch { /* nothing emitted */ }
          rej(new Error(`npm run build:server failed: ${err.message}\n${stdout}\n${stderr}`));
        } else res();
      });
    });
  } finally {
    try { rmdirSync(lock); } catch { /* taken over */ }
  }
}

// ---------------------------------------------------------------- the database

/** A fresh database on the server of `serverUrl` (test/helpers/app.ts freshMysql), with a clear error when the server is not there. */
async function freshMariaDb(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  try {
    return await freshMysql(serverUrl);
  } catch (err) {
    throw new Error(`the cluster harness needs MariaDB: ${new URL(serverUrl.replace(/^mariadb:/, 'mysql:')).host} is not reachable (${(err as Error).message}). Set TEST_DATABASE_URL, or start the machine's MariaDB: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd`);
  }
}

// ---------------------------------------------------------------- nginx

/**
 * The front proxy, as a deployment would run it (docs/operations.md): round robin, WebSocket upgrade
 * on /socket.io/. Time-outs:
 * - proxy_connect_timeout 2 s (loopback: a stopped instance refuses at once; this bounds a hung one).
 *   `proxy_next_upstream error timeout` (nginx's default): a request whose connection failed goes to
 *   the other instance, whatever its method; one that failed after it was sent is passed on only when
 *   idempotent (never a POST, so an RPC call cut mid-way by a crash answers 502);
 * - max_fails=1 fail_timeout=10s per upstream (nginx's defaults, written out): an instance that failed
 *   is skipped for 10 s, also when restart() brought it back sooner;
 * - proxy_read_timeout / proxy_send_timeout 60 s (nginx's defaults): an API call waiting longer is a 504;
 *   a socket must see a frame within that time, which socket.io's ping (every 25 s) guarantees;
 * - keepalive_timeout 65 s towards clients; no keep-alive towards the instances (each request a new
 *   upstream connection, so a killed instance leaves no idle connection behind).
 */
function nginxConfig(dir: string, port: number, upstreams: number[], t: Required<NonNullable<ClusterOptions['nginx']>>): string {
  return [
    typeof process.getuid === 'function' && process.getuid() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    ...nginxTempPaths(dir),
    '  server_tokens off;',
    '  keepalive_timeout 65s;',
    `  log_format upstream '$remote_addr [$time_local] "$request" $status $body_bytes_sent up=$upstream_addr upstatus=$upstream_status rt=$request_time urt=$upstream_response_time';`,
    `  access_log ${join(dir, 'access.log')} upstream;`,
    '  map $http_upgrade $connection_upgrade { default upgrade; \'\' close; }',
    '  upstream console {',
    ...upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`),
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    server_name _;',
    '    client_max_body_size 10m;',
    `    proxy_connect_timeout ${t.connectTimeoutS}s;`,
    `    proxy_send_timeout ${t.sendTimeoutS}s;`,
    `    proxy_read_timeout ${t.readTimeoutS}s;`,
    '    proxy_next_upstream error timeout;',
    '    proxy_http_version 1.1;',
    '    proxy_set_header Host $host;',
    '    proxy_set_header X-Real-IP $remote_addr;',
    '    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '    proxy_set_header X-Forwarded-Proto $scheme;',
    '    add_header X-Upstream $upstream_addr always;',
    '    location /socket.io/ {',
    '      proxy_pass http://console;',
    '      proxy_set_header Upgrade $http_upgrade;',
    '      proxy_set_header Connection $connection_upgrade;',
    '      proxy_buffering off;',
    '    }',
    '    location / {',
    '      proxy_pass http://console;',
    '      proxy_set_header Connection "";',
    '    }',
    '  }',
    '}',
    '',
  ].filter((l) => l !== '').join('\n');
}

// ---------------------------------------------------------------- startCluster

interface Instance {
  port: number;
  dataDir: string;
  proc: ChildProcess | null;
  gen: number;
  log: WriteStream;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const n = opts.instances ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'cluster-'));
  const lines: LogLine[] = [];
  const sockets = new Set<Socket>();
  const proxies: TcpProxy[] = [];
  const inst: Instance[] = [];
  let redis: ChildProcess | null = null;
  let nginx: ChildProcess | null = null;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let closing: Promise<void> | null = null;
  let url = '';
  const secretKey = randomBytes(32).toString('hex');
  const redisPort = await freePort();
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;

  const fileTail = (file: string, count: number) => {
    try {
      return (existsSync(file) ? readFileSync(file, 'utf8') : '').trimEnd().split('\n').slice(-count).join('\n');
    } catch { return ''; }
  };

  const startRedis = async () => {
    if (!exited(redis)) return;
    const out = createWriteStream(join(dir, 'redis.log'), { flags: 'a' });
    const p = track(spawn(REDIS_SERVER, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] }));
    p.stdout!.pipe(out);
    p.stderr!.pipe(out);
    redis = p;
    await waitFor(`redis-server to answer PING on ${redisPort}`, async () => {
      if (exited(p)) throw new Error(`redis-server exited: ${fileTail(join(dir, 'redis.log'), 10)}`);
      return redisPing(redisPort);
    }, 15_000);
  };
  const killRedis = async () => {
    const p = redis;
    redis = null;
    await stopChild(p, 'SIGKILL');
  };

  const onLine = (i: number, gen: number, stream: LogLine['stream'], text: string) => {
    let json: LogLine['json'] = null;
    if (text.startsWith('{')) {
      try { json = JSON.parse(text); } catch { /* plain text */ }
    }
    lines.push({ i, gen, at: Date.now(), stream, text, json });
    // Lines may still come after close() ended the file (the pipes drain after the exit event).
    if (!inst[i].log.writableEnded) inst[i].log.write(`${stream === 'stderr' ? '! ' : ''}${text}\n`);
  };

  const instanceUrl = (i: number) => {
    if (!inst[i]) throw new Error(`no instance ${i} (there are ${n})`);
    return `http://127.0.0.1:${inst[i].port}`;
  };

  const startInstance = async (i: number) => {
    const it = inst[i];
    if (!exited(it.proc)) throw new Error(`instance ${i} is running`);
    const gen = ++it.gen;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      TZ: process.env.TZ ?? 'UTC',
      PORT: String(it.port),
      HOST: '127.0.0.1',
      DATA_DIR: it.dataDir,
      DATABASE_URL: db!.url,
      REDIS_URL: `redis://127.0.0.1:${proxies[i].port}`,
      SECRET_KEY: secretKey,
      CRON_ENABLED: '1',
      TRUST_PROXY: '1',
      ADMIN_LOGIN: CLUSTER_ADMIN.login,
      ADMIN_PASSWORD: CLUSTER_ADMIN.password,
      LOG_LEVEL: opts.logLevel ?? 'info',
      ...opts.env,
      ...opts.instanceEnv?.(i),
    };
    const p = track(spawn(process.execPath, [MAIN_JS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    it.proc = p;
    createInterface({ input: p.stdout! }).on('line', (l) => onLine(i, gen, 'stdout', l));
    createInterface({ input: p.stderr! }).on('line', (l) => onLine(i, gen, 'stderr', l));
    p.once('exit', (code, signal) => onLine(i, gen, 'stderr', `[harness] instance ${i} exited (${signal ?? `code ${code}`})`));
    const url = instanceUrl(i);
    await waitFor(`instance ${i} to answer GET /api/health 200`, async () => {
      if (exited(p)) throw new Error(`instance ${i} exited while starting`);
      try {
        const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(3000) });
        await r.arrayBuffer();
        return r.status === 200;
      } catch {
        return false;
      }
    }, startTimeoutMs).catch((err: Error) => {
      throw new Error(`${err.message}\n${tailOf(i, 30)}`);
    });
  };

  const tailOf = (i: number, count: number) => lines.filter((l) => l.i === i).slice(-count).map((l) => `  [${i}.${l.gen}] ${l.text}`).join('\n');
  const tail = (count = 20) => [
    ...inst.map((_, i) => `instance ${i} (${exited(inst[i].proc) ? 'stopped' : 'running'}):\n${tailOf(i, count)}`),
    `nginx error.log:\n${fileTail(join(dir, 'nginx', 'error.log'), count)}`,
    `redis:\n${fileTail(join(dir, 'redis.log'), 5)}`,
  ].join('\n');

  const stopNginx = async () => {
    const p = nginx;
    nginx = null;
    await stopChild(p, 'SIGTERM', 5000);
  };

  const close = () => (closing ??= (async () => {
    const errors: string[] = [];
    const attempt = async (what: string, fn: () => Promise<unknown> | unknown) => {
      try { await fn(); } catch (e) { errors.push(`${what}: ${(e as Error).message}`); }
    };
    for (const s of sockets) s.close();
    sockets.clear();
    await attempt('nginx', stopNginx);
    await Promise.all(inst.map((it, i) => attempt(`instance ${i}`, () => stopChild(it.proc, 'SIGKILL'))));
    for (const it of inst) it.log.end();
    await Promise.all(proxies.map((p, i) => attempt(`proxy ${i}`, () => p.close())));
    await attempt('redis', killRedis);
    if (db) await attempt('drop database', db.drop);
    await attempt('temp dir', () => rmSync(dir, { recursive: true, force: true }));
    if (errors.length) throw new Error(`cluster close: ${errors.join('; ')}`);
  })());

  // ---- client side
  const target = (via: Via = 'nginx') => (via === 'nginx' ? url : instanceUrl(via));
  const indexOfPort = (port: number) => {
    const i = inst.findIndex((it) => it.port === port);
    return i < 0 ? null : i;
  };

  const rest: Cluster['rest'] = async (hash, method, path, body, o = {}) => {
    const via = o.via ?? 'nginx';
    const timeoutMs = o.timeoutMs ?? 30_000;
    const started = Date.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${target(via)}/api${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(hash ? { User: hash } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw new Error(`${method} /api${path} via ${via} did not answer within ${timeoutMs} ms`);
      throw err;
    }
    const ms = Date.now() - started;
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* non-JSON body: returned as text */ }
    const up = res.headers.get('x-upstream');
    const lastPort = up ? Number(/:(\d+)\s*$/.exec(up)?.[1]) : NaN;
    return { status: res.status, body: parsed as never, via: via === 'nginx' ? (Number.isFinite(lastPort) ? indexOfPort(lastPort) : null) : via, ms };
  };
  const rpc: Cluster['rpc'] = async (hash, method, args, o) => {
    const r = await rest<unknown>(hash, 'POST', '', { methods: [method], args: [args], host: 0 }, o);
    const env = (Array.isArray(r.body) ? r.body[0] : r.body) as never;
    return { ...r, body: env, env };
  };
  const ok: Cluster['ok'] = async (hash, method, args, o) => {
    const r = await rpc<never>(hash, method, args, o);
    if (r.env?.status !== 'ok') throw new Error(`${method} ${JSON.stringify(args)} via ${o?.via ?? 'nginx'} -> ${r.status} ${JSON.stringify(r.env)}`);
    return r.env.result;
  };
  const signIn: Cluster['signIn'] = async (login = CLUSTER_ADMIN.login, password = CLUSTER_ADMIN.password, via = 'nginx') => {
    const r = await rest<Envelope<SessionValues>>(null, 'POST', '/user/auth', { key: encodeAuthKey(login, password) }, { via });
    if ((r.body as Envelope<SessionValues>)?.status !== 'ok') throw new Error(`sign-in of ${login} via ${via}: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body as { result: SessionValues }).result;
  };
  const socket: Cluster['socket'] = (hash, via = 'nginx', o = {}) =>
    new Promise((resolvePromise, reject) => {
      const s = io(target(via), { transports: ['websocket'], auth: { hash, status: SOCKET_CLIENT_STATUS }, reconnection: o.reconnection ?? false, forceNew: true, timeout: 10_000 });
      sockets.add(s);
      const c: ClusterSocket = {
        s,
        got: [],
        of: (event) => c.got.filter((g) => g.event === event).map((g) => g.payload as never),
        waitFor: (event, pred = () => true, timeoutMs = 10_000) =>
          waitFor(`${String(event)} on the socket via ${via}`, () => c.of(event).find(pred) as never, timeoutMs),
        close: () => {
          sockets.delete(s);
          s.close();
        },
      };
      s.onAny((event: string, payload: unknown) => c.got.push({ event, payload, at: Date.now() }));
      s.on('disconnect', (reason) => c.got.push({ event: '(disconnect)', payload: reason, at: Date.now() }));
      s.once('connect', () => resolvePromise(c));
      s.once('connect_error', (e) => {
        if (o.reconnection) return;
        c.close();
        reject(new Error(`socket via ${via}: ${e.message}`));
      });
    });

  const cronInstanceOf = (i: number, gen?: number) => {
    for (const l of lines) {
      if (l.i !== i || (gen !== undefined && l.gen !== gen)) continue;
      const m = /claimed in Redis \(.*instance ([\w-]+)\)/.exec(l.json?.msg ?? '');
      if (m) return m[1];
    }
    return null;
  };

  try {
    // Everything that can fail before the instances start.
    if (!existsSync(NGINX_PATH)) throw new Error(`${NGINX_PATH} is missing: apt-get install nginx`);
    const [, dbReady] = await Promise.all([ensureServerBuild(), freshMariaDb(process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test')]);
    db = dbReady;
    await startRedis();
    for (let i = 0; i < n; i++) {
      proxies.push(await startTcpProxy({ host: '127.0.0.1', port: redisPort }));
      const dataDir = join(dir, `instance-${i}`);
      mkdirSync(dataDir, { mode: 0o700 });
      inst.push({ port: await freePort(), dataDir, proc: null, gen: -1, log: createWriteStream(join(dir, `instance-${i}.log`), { flags: 'a' }).on('error', () => undefined) });
    }
    // One after the other: the first creates the schema, the second finds it.
    for (let i = 0; i < n; i++) await startInstance(i);

    const ngDir = join(dir, 'nginx');
    for (const d of ['tmp', 'tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) mkdirSync(join(ngDir, d), { recursive: true });
    const ngPort = await freePort();
    const conf = join(ngDir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(ngDir, ngPort, inst.map((it) => it.port), { connectTimeoutS: 2, readTimeoutS: 60, sendTimeoutS: 60, ...opts.nginx }));
    const args = ['-p', `${ngDir}/`, '-e', join(ngDir, 'error.log'), '-c', conf];
    await new Promise<void>((res, rej) => execFile(NGINX_PATH, ['-t', '-q', ...args], { timeout: 15_000 }, (err, _o, stderr) => (err ? rej(new Error(`nginx -t refused the config: ${stderr}`)) : res())));
    const p = track(spawn(NGINX_PATH, args, { stdio: 'ignore' }), 'SIGTERM');
    nginx = p;
    await waitFor('nginx to listen', async () => {
      if (exited(p)) throw new Error(`nginx exited: ${fileTail(join(ngDir, 'error.log'), 10)}`);
      return canConnect(ngPort);
    }, 15_000);
    url = `http://127.0.0.1:${ngPort}`;
  } catch (err) {
    const msg = (err as Error).message;
    // startInstance's message already holds that instance's last lines.
    const t = inst.length && !/\binstance \d+ /.test(msg) ? `\n${tail()}` : '';
    await close().catch(() => undefined);
    throw new Error(`${msg}${t}`);
  }

  return {
    dir, url, instances: n, instanceUrl,
    databaseUrl: db!.url,
    redisPort,
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    proxy: (i) => {
      if (!proxies[i]) throw new Error(`no proxy ${i}`);
      return proxies[i];
    },
    killRedis, startRedis,
    kill: async (i, signal = 'SIGKILL') => {
      const ms = await stopChild(inst[i].proc, signal);
      inst[i].proc = null;
      return ms;
    },
    restart: async (i) => {
      await stopChild(inst[i].proc, 'SIGTERM');
      inst[i].proc = null;
      await startInstance(i);
    },
    alive: (i) => !exited(inst[i]?.proc ?? null),
    logs: (i) => lines.filter((l) => l.i === i),
    warnings: (i) => lines.filter((l) => l.i === i && (l.json?.level ?? 0) >= 40),
    waitForLog: (i, pred, timeoutMs = 10_000) => waitFor(`a log line of instance ${i}`, () => lines.find((l) => l.i === i && pred(l)), timeoutMs),
    cronInstance: (i) => cronInstanceOf(i, inst[i].gen),
    indexOfCronInstance: (name) => {
      for (let i = 0; i < n; i++) for (let g = 0; g <= inst[i].gen; g++) if (cronInstanceOf(i, g) === name) return i;
      return null;
    },
    signIn, rest, rpc, ok, socket, tail, close,
  };
}
