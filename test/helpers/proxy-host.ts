/**
 * A real proxy host for the firewall tests: a network namespace joined to the test machine by a veth
 * pair, running Debian's nginx (port 80) and OpenSSH (root login by key only) inside it. Clients are
 * extra addresses on the host end of the pair, so a test can send requests "from" several IPs and watch
 * iptables/ipset inside the namespace drop some of them. Needs root (the test machines and CI are root).
 *
 *   const host = await startProxyHost();              // { ip, sshPort, login: 'root', privateKey, clients, logPath, ... }
 *   await host.request(host.clients[0], '/');         // 200 | 404 | ... | 'timeout'
 *   await host.exec('ipset list');                    // a command inside the namespace (throws on failure)
 *   await host.rotateLog();                           // mv access.log access.log.1 + USR1: nginx reopens
 *   await host.stop();                                // always in afterAll; idempotent
 *
 *   const dead = await startDeadHost();               // an address whose SSH port never answers
 *
 * Addressing: each instance claims a /24 of 10.231.0.0/16 by creating the host end `pxh<X>` of its veth
 * pair (interface names are unique on the machine, so two test processes never get the same X). The host
 * end is 10.231.X.1 plus the clients 10.231.X.11, .12, ...; the namespace end (the proxy) is 10.231.X.2.
 * With `ipv6: true` the same on fd23:231:X::/64 (::1, ::11..., proxy ::2).
 *
 * Cleanup: stop() kills everything in the namespace, deletes the veth pair and the namespace, removes
 * the temp dir, and checks `ip netns list` no longer shows the namespace. Live instances are also
 * registered on the real process (exit, SIGINT, SIGTERM, SIGHUP), and every start first reaps namespaces
 * left by a test process that died without cleaning up (its pid is in the name: pxh-<pid>-<random>).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runInThisContext } from 'node:vm';

export const NGINX_PATH = '/usr/sbin/nginx';
export const SSHD_PATH = '/usr/sbin/sshd';
const PREFIX = 'pxh';
const NS_RE = new RegExp(`^${PREFIX}-(\\d+)-[0-9a-f]+$`);

export interface ProxyHostOptions {
  /** How many extra client addresses on the host end (default 5: 10.231.X.11 to .15; at most 200). */
  clients?: number;
  /**
   * A raw nginx `log_format` line, e.g. the extended `console` format of docs/firewall.md:
   * `log_format console '...';`. The access log is then written in that format; default nginx's `combined`.
   */
  logFormat?: string;
  /** Where nginx writes the access log (default <temp dir>/access.log). Its directory is created. */
  logPath?: string;
  /** SSH port inside the namespace (default 22). */
  sshPort?: number;
  /** Also give the pair IPv6 addresses (fd23:231:X::/64), nginx and sshd listen on them too. */
  ipv6?: boolean;
  /** Extra lines inside nginx's `server {}` block. */
  serverConfig?: string;
}

export interface RequestOptions {
  /** The Host header (default the proxy's address). */
  host?: string;
  /** Bound on connect + response; a request not answered by then is 'timeout' (default 2000 ms). */
  timeoutMs?: number;
  method?: string;
  /** Extra headers (user-agent, referer, x-forwarded-for, ...). */
  headers?: Record<string, string>;
}

export interface ExecOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ProxyHost {
  /** The network namespace's name (`ip netns exec <ns> ...`). */
  ns: string;
  /** The proxy's address (the namespace end of the pair): nginx on port 80, sshd on `sshPort`. */
  ip: string;
  /** IPv6 address of the proxy when started with `ipv6: true`. */
  ip6: string | null;
  httpPort: 80;
  sshPort: number;
  login: 'root';
  /** OpenSSH private key (ed25519, no passphrase) authorized for root, and its public half. */
  privateKey: string;
  publicKey: string;
  /** SHA256 fingerprint of the host's ed25519 key (`ssh-keygen -l` form: SHA256:...). */
  hostKeyFingerprint: string;
  /** The host end's own address (the source of connections not bound to a client address). */
  hostIp: string;
  /** The extra client addresses on the host end (10.231.X.11, .12, ...). */
  clients: string[];
  /** IPv6 client addresses (empty without `ipv6: true`). */
  clients6: string[];
  /** Pages that answer 200 (plus any /book/<n>, /api/<anything>). */
  pages: string[];
  /** The access log nginx writes, and where rotateLog() moves it. */
  logPath: string;
  rotatedLogPath: string;
  /** The raw log_format line in use, or null for nginx's combined format. */
  logFormat: string | null;
  /** Temp dir holding config, keys, site, pid files and the error log. */
  dir: string;
  /** One HTTP request to the proxy from `fromAddr` (one of `clients`): its status, or 'timeout'. */
  request(fromAddr: string, path: string, opts?: RequestOptions): Promise<number | 'timeout'>;
  /** The access log's current content ('' when missing). */
  readLog(): string;
  /** Its non-empty lines. */
  logLines(): string[];
  /**
   * Rotates the access log. 'move' (default, logrotate's way): renames it to `rotatedLogPath` and sends
   * nginx USR1, which reopens a new file (new inode); resolves when the new file exists.
   * 'copytruncate': copies it to `rotatedLogPath` and truncates it in place (same inode, shorter file).
   */
  rotateLog(mode?: 'move' | 'copytruncate'): Promise<void>;
  /** A shell command inside the namespace; answers stdout, throws with stderr on a non-zero exit. */
  exec(cmd: string, timeoutMs?: number): Promise<string>;
  /** The same without throwing. */
  run(cmd: string, timeoutMs?: number): Promise<ExecOutput>;
  /** nginx's error log and sshd's stderr so far (for failure messages). */
  nginxErrors(): string;
  sshdLog(): string;
  /** Kills nginx and sshd, deletes the namespace and the veth pair, removes temp files. Idempotent. */
  stop(): Promise<void>;
}

export interface DeadHost {
  ns: string;
  ip: string;
  sshPort: number;
  login: 'root';
  /** A well-formed key that this host never accepts (nothing answers anyway). */
  privateKey: string;
  mode: 'drop' | 'refuse';
  stop(): Promise<void>;
}

// ---------------------------------------------------------------- process-wide registry and cleanup

/**
 * Jest gives each test file a copy of `process` whose events never fire: exit and signal handlers go on
 * the real one, taken from Node's own context, with one registry per process (test files share it).
 */
const realProcess: NodeJS.Process = (() => {
  try { return runInThisContext('process') as NodeJS.Process; } catch { return process; }
})();

interface Entry { ns: string; hostIf: string; dir: string; files: string[] }
const REGISTRY = Symbol.for('ops-console.test.proxy-host.registry');
function registry(): Map<string, Entry> {
  const p = realProcess as unknown as Record<symbol, Map<string, Entry> | undefined>;
  let map = p[REGISTRY];
  if (!map) {
    const created = new Map<string, Entry>();
    map = created;
    p[REGISTRY] = created;
    realProcess.on('exit', () => { for (const e of [...created.values()]) cleanupSync(e); });
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const onSignal = () => {
        for (const e of [...created.values()]) cleanupSync(e);
        realProcess.removeListener(sig, onSignal);
        // Nobody else handles it: the default action (exit by that signal), as if we had not listened.
        if (realProcess.listenerCount(sig) === 0) realProcess.kill(realProcess.pid, sig);
      };
      realProcess.on(sig, onSignal);
    }
  }
  return map;
}

const sh = (file: string, args: string[]) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 }).toString();
const trySh = (file: string, args: string[]) => { try { return sh(file, args); } catch { return null; } };

function netnsNames(): string[] {
  return sh('ip', ['netns', 'list']).split('\n').map((l) => l.trim().split(/\s+/)[0]).filter(Boolean);
}
function nsPids(ns: string): number[] {
  return (trySh('ip', ['netns', 'pids', ns]) ?? '').split(/\s+/).filter(Boolean).map(Number).filter((n) => n > 0);
}
function alive(pid: number): boolean {
  try { realProcess.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Everything inside the namespace was started by the harness (nginx, sshd and its sessions, exec'd
 * commands): `ip netns pids` names exactly those, never a process outside. SIGKILL, bounded.
 */
function killNamespaceSync(ns: string) {
  for (let round = 0; round < 20; round++) {
    const pids = nsPids(ns);
    if (pids.length === 0) return;
    for (const pid of pids) { try { realProcess.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    sleepSync(50);
  }
}

function deleteNamespaceSync(ns: string, hostIf: string | null) {
  if (hostIf) trySh('ip', ['link', 'del', hostIf]);
  for (let i = 0; i < 20 && netnsNames().includes(ns); i++) {
    trySh('ip', ['netns', 'del', ns]);
    if (netnsNames().includes(ns)) sleepSync(50);
  }
}

function cleanupSync(e: Entry) {
  killNamespaceSync(e.ns);
  deleteNamespaceSync(e.ns, e.hostIf);
  rmSync(e.dir, { recursive: true, force: true });
  for (const f of e.files) rmSync(f, { force: true });
  registry().delete(e.ns);
}

/** Namespaces and temp dirs of test processes that died without stop() (SIGKILL, OOM, a hard crash). */
export function reapStaleHosts(): string[] {
  const reaped: string[] = [];
  for (const ns of netnsNames()) {
    const m = NS_RE.exec(ns);
    if (!m || alive(Number(m[1]))) continue;
    killNamespaceSync(ns);
    deleteNamespaceSync(ns, null);
    reaped.push(ns);
  }
  for (const name of readdirSync(tmpdir())) {
    const m = /^pxh-(\d+)-/.exec(name);
    if (m && !alive(Number(m[1]))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  return reaped;
}

// ---------------------------------------------------------------- packages

let packagesChecked = false;
/** Installs what the harness runs when missing (the test command does it too; this covers a single file). */
function ensurePackages() {
  if (packagesChecked) return;
  const need: string[] = [];
  if (!existsSync(NGINX_PATH)) need.push('nginx');
  if (!existsSync('/usr/sbin/iptables')) need.push('iptables');
  if (!existsSync('/usr/sbin/ipset')) need.push('ipset');
  if (!existsSync(SSHD_PATH)) need.push('openssh-server');
  if (trySh('sh', ['-c', 'command -v ip']) === null) need.push('iproute2');
  if (need.length) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...need], { stdio: 'inherit', env, timeout: 600_000 });
    // Debian's package starts a system nginx on port 80 where services may start (no policy-rc.d):
    // stop the one this install started; the harness runs its own inside namespaces.
    if (need.includes('nginx')) trySh('sh', ['-c', 'systemctl disable --now nginx 2>/dev/null; [ -f /run/nginx.pid ] && nginx -s quit; true']);
    for (const f of [NGINX_PATH, SSHD_PATH, '/usr/sbin/iptables', '/usr/sbin/ipset']) {
      if (!existsSync(f)) throw new Error(`${f} is missing and could not be installed (apt-get install ${need.join(' ')})`);
    }
  }
  packagesChecked = true;
}

function requireRoot() {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('The proxy host harness needs root (ip netns, veth, iptables, ipset, sshd as root). The test machines and CI run as root: run the tests as root.');
  }
}

// ---------------------------------------------------------------- small async helpers

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function runIn(ns: string, cmd: string, timeoutMs = 15_000): Promise<ExecOutput> {
  return new Promise((resolve) => {
    execFile('ip', ['netns', 'exec', ns, 'sh', '-c', cmd], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      const timedOut = err && (err as { killed?: boolean }).killed;
      resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() + (timedOut ? `\n(killed after ${timeoutMs} ms)` : '') });
    });
  });
}

/** Polls a TCP connect to addr:port until it is accepted (and, for SSH, the banner arrives). Bounded. */
async function waitForListen(addr: string, port: number, proc: ChildProcess, what: string, log: () => string, expectBanner = false, ms = 10_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${what} exited (${proc.exitCode ?? proc.signalCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = createConnection({ host: addr, port });
      const t = setTimeout(() => { c.destroy(); resolve(false); }, 1000);
      const done = (v: boolean) => { clearTimeout(t); c.destroy(); resolve(v); };
      c.once('connect', () => { if (!expectBanner) done(true); });
      c.once('data', (d: Buffer) => done(d.toString().startsWith('SSH-')));
      c.once('error', () => done(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`${what} did not answer on ${addr}:${port} within ${ms} ms: ${log()}`);
}

/** Resolves true when `p` settles within `ms`, false otherwise; leaves no timer behind. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p.then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

async function halt(proc: ChildProcess | undefined, ms = 5000) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  if (await within(exited, ms)) return;
  proc.kill('SIGKILL');
  await within(exited, ms);
}

const keygen = (file: string, type: string) =>
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'proxy-host-test', '-f', file], { stdio: 'pipe', timeout: 15_000 });

// ---------------------------------------------------------------- the namespace and its addresses

interface Net { ns: string; hostIf: string; x: number; hostIp: string; ip: string; clients: string[]; ip6: string | null; clients6: string[] }

/**
 * Creates the namespace, then claims a free X by creating `pxh<X>` whose peer goes straight into the
 * namespace (so a crash at any point leaves nothing outside it), then the addresses.
 */
function makeNet(entry: Entry, nClients: number, ipv6: boolean): Net {
  const ns = entry.ns;
  sh('ip', ['netns', 'add', ns]);
  sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  const used = new Set([...sh('ip', ['-o', '-4', 'addr', 'show']).matchAll(/10\.231\.(\d+)\./g)].map((m) => Number(m[1])));
  const start = randomBytes(1)[0] % 254;
  let x = 0;
  for (let i = 0; i < 254 && !x; i++) {
    const cand = ((start + i) % 254) + 1;
    if (used.has(cand)) continue;
    try {
      sh('ip', ['link', 'add', `${PREFIX}${cand}`, 'type', 'veth', 'peer', 'name', `pxn${cand}`, 'netns', ns]);
      x = cand;
    } catch (e) {
      if (!/exists/i.test(String((e as { stderr?: Buffer }).stderr ?? e))) throw e;
    }
  }
  if (!x) throw new Error('no free 10.231.X.0/24 for a proxy host (254 in use?)');
  const hostIf = `${PREFIX}${x}`;
  entry.hostIf = hostIf;
  const peer = `pxn${x}`;
  const base = `10.231.${x}`;
  const clients = Array.from({ length: nClients }, (_, i) => `${base}.${11 + i}`);
  const base6 = `fd23:231:${x.toString(16)}`;
  const clients6 = ipv6 ? Array.from({ length: nClients }, (_, i) => `${base6}::${(0x11 + i).toString(16)}`) : [];
  if (ipv6) {
    trySh('sysctl', ['-q', '-w', `net.ipv6.conf.${hostIf}.disable_ipv6=0`]);
    trySh('ip', ['netns', 'exec', ns, 'sysctl', '-q', '-w', `net.ipv6.conf.${peer}.disable_ipv6=0`]);
  }
  sh('ip', ['addr', 'add', `${base}.1/24`, 'dev', hostIf]);
  for (const c of clients) sh('ip', ['addr', 'add', `${c}/24`, 'dev', hostIf]);
  sh('ip', ['-n', ns, 'addr', 'add', `${base}.2/24`, 'dev', peer]);
  if (ipv6) {
    sh('ip', ['addr', 'add', `${base6}::1/64`, 'dev', hostIf, 'nodad']);
    for (const c of clients6) sh('ip', ['addr', 'add', `${c}/64`, 'dev', hostIf, 'nodad']);
    sh('ip', ['-n', ns, 'addr', 'add', `${base6}::2/64`, 'dev', peer, 'nodad']);
  }
  sh('ip', ['link', 'set', hostIf, 'up']);
  sh('ip', ['-n', ns, 'link', 'set', peer, 'up']);
  return { ns, hostIf, x, hostIp: `${base}.1`, ip: `${base}.2`, clients, ip6: ipv6 ? `${base6}::2` : null, clients6 };
}

function newEntry(): Entry {
  requireRoot();
  ensurePackages();
  reapStaleHosts();
  const tag = `${realProcess.pid}-${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}-${tag}-`));
  chmodSync(dir, 0o755);
  const entry: Entry = { ns: `${PREFIX}-${tag}`, hostIf: '', dir, files: [] };
  registry().set(entry.ns, entry);
  return entry;
}

async function stopEntry(entry: Entry, procs: Array<ChildProcess | undefined>) {
  for (const p of procs) await halt(p);
  cleanupSync(entry);
  const left = netnsNames().filter((n) => n === entry.ns);
  if (left.length) throw new Error(`namespace ${entry.ns} is still listed by ip netns list after stop()`);
  if (entry.hostIf && trySh('ip', ['link', 'show', entry.hostIf]) !== null) {
    // The host end normally goes with `ip link del`; the kernel tears a namespace down asynchronously.
    for (let i = 0; i < 40 && trySh('ip', ['link', 'show', entry.hostIf]) !== null; i++) await sleep(50);
    if (trySh('ip', ['link', 'show', entry.hostIf]) !== null) throw new Error(`veth ${entry.hostIf} still exists after stop()`);
  }
}

// ---------------------------------------------------------------- the site nginx serves

export const PROXY_PAGES = ['/', '/index.html', '/about.html', '/contacts.html', '/robots.txt', '/static/app.css', '/static/app.js', '/static/logo.svg', '/feed.xml'];

function writeSite(root: string) {
  mkdirSync(join(root, 'static'), { recursive: true });
  const page = (title: string) => `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" href="/static/app.css"></head><body><h1>${title}</h1></body></html>\n`;
  writeFileSync(join(root, 'index.html'), page('Home'));
  writeFileSync(join(root, 'about.html'), page('About'));
  writeFileSync(join(root, 'contacts.html'), page('Contacts'));
  writeFileSync(join(root, 'robots.txt'), 'User-agent: *\nDisallow:\n');
  writeFileSync(join(root, 'static', 'app.css'), 'body { font-family: sans-serif; }\n');
  writeFileSync(join(root, 'static', 'app.js'), 'console.log("ok");\n');
  writeFileSync(join(root, 'static', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n');
  writeFileSync(join(root, 'feed.xml'), '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>\n');
}


/** The temp paths of an nginx of a test's own, under `dir/tmp` (never the system's /var/lib/nginx): proxy hosts and the cluster harness. */
export function nginxTempPaths(dir: string): string[] {
  const tmp = join(dir, 'tmp');
  return [`  client_body_temp_path ${tmp}/body;`, `  proxy_temp_path ${tmp}/proxy;`, `  fastcgi_temp_path ${tmp}/fastcgi;`, `  uwsgi_temp_path ${tmp}/uwsgi;`, `  scgi_temp_path ${tmp}/scgi;`];
}

function nginxConfig(dir: string, logPath: string, logFormat: string | null, ipv6: boolean, serverConfig: string) {
  const fmtName = logFormat ? /^\s*log_format\s+(\S+)/.exec(logFormat)?.[1] : null;
  if (logFormat && !fmtName) throw new Error(`logFormat must be a log_format line ("log_format NAME '...';"), got: ${logFormat.slice(0, 80)}`);
  const fmtLine = logFormat ? (logFormat.trim().endsWith(';') ? logFormat.trim() : `${logFormat.trim()};`) : '';
  return [
    'user root;',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 512; }',
    'http {',
    '  include /etc/nginx/mime.types;',
    '  default_type application/octet-stream;',
    ...nginxTempPaths(dir),
    '  server_tokens off;',
    '  keepalive_timeout 5s;',
    fmtLine ? `  ${fmtLine}` : '',
    `  access_log ${logPath}${fmtName ? ` ${fmtName}` : ''};`,
    '  server {',
    '    listen 80 default_server;',
    ipv6 ? '    listen [::]:80 default_server;' : '',
    '    server_name _;',
    `    root ${join(dir, 'site')};`,
    '    index index.html;',
    '    location ~ ^/book/[0-9]+ { default_type text/html; return 200 "<html><body>book</body></html>\\n"; }',
    '    location /api/ { default_type application/json; return 200 "{\\"ok\\":true}\\n"; }',
    serverConfig ? serverConfig.split('\n').map((l) => `    ${l}`).join('\n') : '',
    '  }',
    '}',
    '',
  ].filter((l) => l !== '').join('\n');
}

// ---------------------------------------------------------------- startProxyHost

export async function startProxyHost(opts: ProxyHostOptions = {}): Promise<ProxyHost> {
  const nClients = opts.clients ?? 5;
  if (!Number.isInteger(nClients) || nClients < 1 || nClients > 200) throw new Error('clients: 1 to 200');
  const sshPort = opts.sshPort ?? 22;
  const ipv6 = opts.ipv6 ?? false;
  const entry = newEntry();
  const dir = entry.dir;
  const logPath = opts.logPath ?? join(dir, 'access.log');
  const rotatedLogPath = `${logPath}.1`;
  if (opts.logPath) entry.files.push(logPath, rotatedLogPath);
  let nginx: ChildProcess | undefined;
  let sshd: ChildProcess | undefined;
  let sshdStderr = '';
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= stopEntry(entry, [sshd, nginx]));

  try {
    const net = makeNet(entry, nClients, ipv6);

    // nginx: config, site and every path in the temp dir; checked with -t before it starts.
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    mkdirSync(dirname(logPath), { recursive: true });
    writeSite(join(dir, 'site'));
    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(dir, logPath, opts.logFormat ?? null, ipv6, opts.serverConfig ?? ''));
    const nginxArgs = ['-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', conf];
    try {
      execFileSync('ip', ['netns', 'exec', net.ns, NGINX_PATH, '-t', '-q', ...nginxArgs], { stdio: 'pipe', timeout: 15_000 });
    } catch (e) {
      throw new Error(`nginx -t refused the test config: ${String((e as { stderr?: Buffer }).stderr ?? e)}\n${readFileSync(conf, 'utf8')}`);
    }
    const errorLog = () => { try { return readFileSync(join(dir, 'error.log'), 'utf8').slice(-4000); } catch { return ''; } };
    // `ip netns exec` execs the command in place: the child's pid is nginx's master.
    nginx = spawn('ip', ['netns', 'exec', net.ns, NGINX_PATH, ...nginxArgs], { stdio: 'ignore' });
    // Unreferenced: a test that forgets stop() still lets the process end, and the exit hook cleans up.
    nginx.unref();
    await waitForListen(net.ip, 80, nginx, 'nginx', errorLog);

    // sshd: host keys and the authorized key in the temp dir; root by key only.
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    keygen(join(dir, 'client_key'), 'ed25519');
    keygen(join(dir, 'host_ed25519'), 'ed25519');
    keygen(join(dir, 'host_ecdsa'), 'ecdsa');
    const authorized = join(dir, 'authorized_keys');
    const publicKey = readFileSync(join(dir, 'client_key.pub'), 'utf8');
    writeFileSync(authorized, publicKey, { mode: 0o600 });
    const sshdConf = join(dir, 'sshd_config');
    writeFileSync(sshdConf, [
      `Port ${sshPort}`,
      `ListenAddress ${net.ip}`,
      ...(net.ip6 ? [`ListenAddress ${net.ip6}`] : []),
      `HostKey ${join(dir, 'host_ed25519')}`,
      `HostKey ${join(dir, 'host_ecdsa')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'AllowUsers root',
      'PrintMotd no',
      'PrintLastLog no',
      'MaxStartups 100:30:200',
      'MaxSessions 50',
      'LogLevel VERBOSE',
      '',
    ].join('\n'));
    try {
      execFileSync(SSHD_PATH, ['-t', '-f', sshdConf], { stdio: 'pipe', timeout: 15_000 });
    } catch (e) {
      throw new Error(`sshd -t refused the test config: ${String((e as { stderr?: Buffer }).stderr ?? e)}`);
    }
    sshd = spawn('ip', ['netns', 'exec', net.ns, SSHD_PATH, '-D', '-e', '-f', sshdConf], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd.stderr!.on('data', (d: Buffer) => { sshdStderr = (sshdStderr + d.toString()).slice(-20_000); });
    sshd.unref();
    (sshd.stderr as unknown as { unref?: () => void }).unref?.();
    await waitForListen(net.ip, sshPort, sshd, 'sshd', () => sshdStderr, true);

    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host_ed25519.pub')], { encoding: 'utf8', timeout: 15_000 }).split(/\s+/)[1];
    const master = nginx;
    const readLog = () => { try { return readFileSync(logPath, 'utf8'); } catch { return ''; } };
    const run = (cmd: string, timeoutMs?: number) => runIn(net.ns, cmd, timeoutMs);

    return {
      ns: net.ns,
      ip: net.ip,
      ip6: net.ip6,
      httpPort: 80,
      sshPort,
      login: 'root',
      privateKey: readFileSync(join(dir, 'client_key'), 'utf8'),
      publicKey,
      hostKeyFingerprint: fp,
      hostIp: net.hostIp,
      clients: net.clients,
      clients6: net.clients6,
      pages: [...PROXY_PAGES],
      logPath,
      rotatedLogPath,
      logFormat: opts.logFormat ?? null,
      dir,
      request: (fromAddr, path, ro = {}) => httpGet(fromAddr.includes(':') && net.ip6 ? net.ip6 : net.ip, fromAddr, path, ro),
      readLog,
      logLines: () => readLog().split('\n').filter(Boolean),
      rotateLog: async (mode = 'move') => {
        if (mode === 'copytruncate') {
          copyFileSync(logPath, rotatedLogPath);
          truncateSync(logPath, 0);
          return;
        }
        renameSync(logPath, rotatedLogPath);
        master.kill('SIGUSR1');
        const until = Date.now() + 5000;
        while (!existsSync(logPath)) {
          if (Date.now() > until) throw new Error(`nginx did not reopen ${logPath} after USR1: ${errorLog()}`);
          await sleep(20);
        }
      },
      exec: async (cmd, timeoutMs) => {
        const r = await run(cmd, timeoutMs);
        if (r.code !== 0) throw new Error(`in ${net.ns}: \`${cmd}\` exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
        return r.stdout;
      },
      run,
      nginxErrors: errorLog,
      sshdLog: () => sshdStderr,
      stop,
    };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}

function httpGet(target: string, fromAddr: string, path: string, opts: RequestOptions): Promise<number | 'timeout'> {
  const timeoutMs = opts.timeoutMs ?? 2000;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (v: number | 'timeout' | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (v instanceof Error) reject(v); else resolve(v);
    };
    const req = httpRequest({
      host: target, port: 80, path, method: opts.method ?? 'GET', localAddress: fromAddr, agent: false,
      headers: { host: opts.host ?? (target.includes(':') ? `[${target}]` : target), connection: 'close', ...opts.headers },
    });
    const timer = setTimeout(() => { finish('timeout'); req.destroy(); }, timeoutMs);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode ?? 0));
      res.on('error', (e) => finish(new Error(`request ${path} from ${fromAddr}: ${e.message}`)));
    });
    req.on('error', (e) => finish(new Error(`request ${path} from ${fromAddr} to ${target}: ${e.message}`)));
    req.end();
  });
}

// ---------------------------------------------------------------- startDeadHost

/**
 * An address in a namespace of its own that never answers on `sshPort`: 'drop' (default) silently drops
 * every TCP packet (connects time out, like a powered-off proxy), 'refuse' has nothing listening (a
 * connection is refused at once, like a proxy whose sshd is down).
 */
export async function startDeadHost(opts: { mode?: 'drop' | 'refuse'; sshPort?: number } = {}): Promise<DeadHost> {
  const mode = opts.mode ?? 'drop';
  const sshPort = opts.sshPort ?? 22;
  const entry = newEntry();
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= stopEntry(entry, []));
  try {
    const net = makeNet(entry, 1, false);
    if (mode === 'drop') {
      const r = await runIn(net.ns, 'iptables -A INPUT -p tcp -j DROP');
      if (r.code !== 0) throw new Error(`iptables in ${net.ns}: ${r.stderr}`);
    }
    keygen(join(entry.dir, 'client_key'), 'ed25519');
    return { ns: net.ns, ip: net.ip, sshPort, login: 'root', privateKey: readFileSync(join(entry.dir, 'client_key'), 'utf8'), mode, stop };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
