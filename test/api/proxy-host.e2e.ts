/**
 * Smoke test of the proxy host harness (test/helpers/proxy-host.ts) that the firewall worker and sync
 * tests stand on: a real nginx and OpenSSH in a network namespace, client addresses on the host end of
 * the veth pair, ipset + iptables inside the namespace dropping one client, real log rotation, and a
 * cleanup that leaves no namespace behind. Needs root (the test machines and CI run as root).
 * One pass: no console database at all (the harness of nginx, OpenSSH, ipset in a namespace).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ssh2';
import { reapStaleHosts, startDeadHost, startProxyHost, type ProxyHost } from '../helpers/proxy-host.js';
import { waitFor } from '../helpers/wait.js';

const netns = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const linkExists = (name: string) => { try { execFileSync('ip', ['link', 'show', name], { stdio: 'pipe' }); return true; } catch { return false; } };
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** One command over SSH as root with the key (a plain ssh2 client). */
function sshExec(h: Pick<ProxyHost, 'ip' | 'sshPort' | 'login' | 'privateKey'>, command: string, auth: { password?: string } = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    const timer = setTimeout(() => { c.end(); reject(new Error('ssh: no answer in 10 s')); }, 10_000);
    c.on('ready', () => {
      c.exec(command, (err, ch) => {
        if (err) { clearTimeout(timer); c.end(); return reject(err); }
        let stdout = '';
        ch.on('data', (d: Buffer) => { stdout += d.toString(); });
        ch.stderr.on('data', () => undefined);
        ch.on('close', (code: number | null) => { clearTimeout(timer); c.end(); resolve({ code, stdout }); });
      });
    });
    c.on('error', (e) => { clearTimeout(timer); c.end(); reject(e); });
    c.connect({ host: h.ip, port: h.sshPort, username: h.login, readyTimeout: 10_000, ...(auth.password ? { password: auth.password } : { privateKey: h.privateKey }) });
  });
}

/** A bare TCP connect: 'connected', 'refused' or 'timeout'. */
function tcpProbe(host: string, port: number, ms: number): Promise<'connected' | 'refused' | 'timeout'> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    const t = setTimeout(() => { s.destroy(); resolve('timeout'); }, ms);
    s.once('connect', () => { clearTimeout(t); s.destroy(); resolve('connected'); });
    s.once('error', (e: NodeJS.ErrnoException) => { clearTimeout(t); resolve(e.code === 'ECONNREFUSED' ? 'refused' : 'timeout'); });
  });
}

let host: ProxyHost;
let custom: ProxyHost;
const customLogDir = mkdtempSync(join(tmpdir(), 'proxy-host-log-'));
const CUSTOM_FORMAT = "log_format smoke '$remote_addr|$host|$status|$request_uri|$http_user_agent'";

beforeAll(async () => {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('test/api/proxy-host.e2e.ts needs root (network namespaces, iptables, ipset, sshd): run the tests as root, as the test machines and CI do.');
  }
  const started = await Promise.allSettled([
    startProxyHost(),
    startProxyHost({ clients: 2, logFormat: CUSTOM_FORMAT, logPath: join(customLogDir, 'nested', 'site.log'), ipv6: true }),
  ]);
  if (started[0].status === 'fulfilled') host = started[0].value;
  if (started[1].status === 'fulfilled') custom = started[1].value;
  for (const s of started) if (s.status === 'rejected') throw s.reason;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([host?.stop(), custom?.stop()]);
  rmSync(customLogDir, { recursive: true, force: true });
}, 30_000);

describe('proxy host harness (network namespace, nginx, OpenSSH)', () => {
  test('two instances get their own namespace, /24 and client addresses; the proxy is only the namespace end of the pair', () => {
    expect(host.ip).toMatch(/^10\.231\.\d+\.2$/);
    expect(host.clients).toHaveLength(5);
    expect(custom.clients).toHaveLength(2);
    const net = (ip: string) => ip.split('.').slice(0, 3).join('.');
    expect(net(host.ip)).not.toBe(net(custom.ip));
    for (const c of host.clients) expect(net(c)).toBe(net(host.ip));
    expect(netns()).toContain(host.ns);
    expect(netns()).toContain(custom.ns);
    expect(host.login).toBe('root');
    expect(host.privateKey).toContain('OPENSSH PRIVATE KEY');
    expect(host.hostKeyFingerprint).toMatch(/^SHA256:/);
    // The proxy's address lives inside the namespace, not on the machine.
    expect(execFileSync('ip', ['-o', '-4', 'addr', 'show'], { encoding: 'utf8' })).not.toContain(` ${host.ip}/`);
  });

  test("requests from two client addresses get 200 and appear in nginx's combined log with their client IP", async () => {
    const [a, b] = host.clients;
    expect(await host.request(a, '/', { host: 'shop.test', headers: { 'user-agent': 'smoke-a' } })).toBe(200);
    expect(await host.request(b, '/about.html', { host: 'shop.test', headers: { 'user-agent': 'smoke-b', referer: 'http://ref.test/' } })).toBe(200);
    expect(await host.request(b, '/book/42')).toBe(200);
    expect(await host.request(b, '/api/items')).toBe(200);
    expect(await host.request(a, '/no-such-page')).toBe(404);
    const lines = await waitFor('5 log lines', () => (host.logLines().length >= 5 ? host.logLines() : false));
    expect(lines).toHaveLength(5);
    // combined: $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
    const combined = /^(\S+) - - \[[^\]]+\] "GET (\S+) HTTP\/1\.1" (\d{3}) \d+ "([^"]*)" "([^"]*)"$/;
    const parsed = lines.map((l) => { const m = combined.exec(l); if (!m) throw new Error(`not combined: ${l}`); return m.slice(1, 6); });
    expect(parsed).toEqual([
      [a, '/', '200', '-', 'smoke-a'],
      [b, '/about.html', '200', 'http://ref.test/', 'smoke-b'],
      [b, '/book/42', '200', '-', expect.any(String)],
      [b, '/api/items', '200', '-', expect.any(String)],
      [a, '/no-such-page', '404', '-', expect.any(String)],
    ]);
  });

  test('a raw log_format line and a chosen log path are used; the custom host answers too', async () => {
    expect(custom.logPath).toBe(join(customLogDir, 'nested', 'site.log'));
    expect(await custom.request(custom.clients[1], '/contacts.html?x=1', { host: 'news.test', headers: { 'user-agent': 'fmt' } })).toBe(200);
    const lines = await waitFor('the custom log line', () => (custom.logLines().length ? custom.logLines() : false));
    expect(lines).toEqual([`${custom.clients[1]}|news.test|200|/contacts.html?x=1|fmt`]);
    // and it does not leak into the other host's log
    expect(host.readLog()).not.toContain('news.test');
  });

  test('with ipv6: IPv6 clients reach nginx and sshd; ip6tables with an inet6 ipset drops one of them', async () => {
    expect(custom.ip6).toMatch(/^fd23:231:[0-9a-f]+::2$/);
    expect(custom.clients6).toHaveLength(2);
    const [v6a, v6b] = custom.clients6;
    expect(await custom.request(v6a, '/v6-page', { host: 'six.test' })).toBe(404);
    await waitFor('the IPv6 line', () => custom.readLog().includes(`${v6a}|six.test|404|/v6-page`));
    const ran = await sshExec({ ...custom, ip: custom.ip6! }, 'id -u');
    expect(ran).toEqual({ code: 0, stdout: '0\n' });
    await custom.exec(`ipset create smoke6 hash:ip family inet6 && ipset add smoke6 ${v6a} && ip6tables -I INPUT -m set --match-set smoke6 src -j DROP`);
    expect(await custom.request(v6a, '/', { timeoutMs: 1500 })).toBe('timeout');
    expect(await custom.request(v6b, '/', { timeoutMs: 1500 })).toBe(200);
    expect(await custom.request(custom.clients[0], '/', { timeoutMs: 1500 })).toBe(200);
    await custom.exec('ip6tables -D INPUT -m set --match-set smoke6 src -j DROP && ipset destroy smoke6');
    expect(await custom.request(v6a, '/', { timeoutMs: 1500 })).toBe(200);
  });

  test('ssh into the proxy as root with the key: the commands run inside the namespace and read the real log', async () => {
    const ran = await sshExec(host, `id -u; ip -o -4 addr show; cat ${host.logPath}`);
    expect(ran.code).toBe(0);
    const [uid, ...rest] = ran.stdout.split('\n');
    expect(uid).toBe('0');
    expect(rest.join('\n')).toContain(`inet ${host.ip}/24`);
    expect(ran.stdout.endsWith(host.readLog())).toBe(true);
    expect(host.readLog().length).toBeGreaterThan(0);
    // by key only: a password is refused
    await expect(sshExec(host, 'true', { password: 'anything' })).rejects.toThrow(/authentication/i);
    // exec() runs inside the namespace as well
    expect(await host.exec('ip -o -4 addr show')).toContain(`inet ${host.ip}/24`);
    await expect(host.exec('exit 3')).rejects.toThrow(/exited 3/);
  });

  test('an ipset + iptables DROP inside the namespace makes one client time out while the other still gets 200; removing it lets it in again', async () => {
    const [banned, other] = host.clients;
    await host.exec(`ipset create smoke-ban hash:ip && ipset add smoke-ban ${banned} && iptables -I INPUT -m set --match-set smoke-ban src -j DROP`);
    expect(await host.exec('ipset list smoke-ban')).toContain(banned);
    expect(await host.exec('iptables -S INPUT')).toContain('--match-set smoke-ban src -j DROP');
    expect(await host.request(banned, '/', { timeoutMs: 1500 })).toBe('timeout');
    expect(await host.request(other, '/', { timeoutMs: 1500 })).toBe(200);
    // the machine's own firewall is untouched
    expect(execFileSync('iptables', ['-S'], { encoding: 'utf8' })).not.toContain('smoke-ban');
    await host.exec('iptables -D INPUT -m set --match-set smoke-ban src -j DROP && ipset destroy smoke-ban');
    expect(await host.request(banned, '/', { timeoutMs: 1500 })).toBe(200);
    expect(await host.exec('iptables -S INPUT')).not.toContain('smoke-ban');
  });

  test('rotateLog(): the log moves to .1 and nginx keeps writing to a new file; copytruncate keeps the inode', async () => {
    const c = host.clients[2];
    expect(await host.request(c, '/before-rotate')).toBe(404);
    await waitFor('the line before rotation', () => host.readLog().includes('/before-rotate'));
    const oldInode = statSync(host.logPath).ino;
    const oldLines = host.logLines().length;
    await host.rotateLog();
    expect(statSync(host.logPath).ino).not.toBe(oldInode);
    expect(statSync(host.rotatedLogPath).ino).toBe(oldInode);
    expect(await host.request(c, '/after-rotate')).toBe(404);
    await waitFor('the line after rotation', () => host.readLog().includes('/after-rotate'));
    expect(host.logLines()).toEqual([expect.stringContaining('/after-rotate')]);
    const rotated = execFileSync('cat', [host.rotatedLogPath], { encoding: 'utf8' });
    expect(rotated.split('\n').filter(Boolean)).toHaveLength(oldLines);
    expect(rotated).toContain('/before-rotate');
    expect(rotated).not.toContain('/after-rotate');

    const inode = statSync(host.logPath).ino;
    await host.rotateLog('copytruncate');
    expect(statSync(host.logPath).ino).toBe(inode);
    expect(statSync(host.logPath).size).toBe(0);
    expect(await host.request(c, '/after-truncate')).toBe(404);
    await waitFor('the line after truncation', () => host.readLog().includes('/after-truncate'));
    expect(host.logLines()).toHaveLength(1);
  });

  test('dead hosts: a dropped SSH port times out, a refusing one refuses; both leave nothing behind', async () => {
    const [drop, refuse] = await Promise.all([startDeadHost(), startDeadHost({ mode: 'refuse' })]);
    try {
      expect(await tcpProbe(drop.ip, drop.sshPort, 1000)).toBe('timeout');
      expect(await tcpProbe(refuse.ip, refuse.sshPort, 3000)).toBe('refused');
      expect(drop.privateKey).toContain('OPENSSH PRIVATE KEY');
    } finally {
      await Promise.allSettled([drop.stop(), refuse.stop()]);
    }
    expect(netns()).not.toContain(drop.ns);
    expect(netns()).not.toContain(refuse.ns);
  });

  test('a namespace left by a test process that died is reaped on the next start', async () => {
    // A finished process's pid stands for the dead test process; a sleeper inside plays its nginx.
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    const stale = `pxh-${dead.pid}-00c0ffee`;
    execFileSync('ip', ['netns', 'add', stale]);
    const sleeper = spawn('ip', ['netns', 'exec', stale, 'sleep', '300'], { stdio: 'ignore' });
    await waitFor('the sleeper inside the stale namespace', () => execFileSync('ip', ['netns', 'pids', stale], { encoding: 'utf8' }).trim() !== '');
    try {
      // (another test process starting a proxy host at the same time may reap it first: either way it goes)
      reapStaleHosts();
      expect(netns()).not.toContain(stale);
      await waitFor('the sleeper killed', () => sleeper.exitCode !== null || sleeper.signalCode !== null);
      // live instances (this process's) are left alone
      expect(netns()).toContain(host.ns);
    } finally {
      if (sleeper.exitCode === null && sleeper.signalCode === null) sleeper.kill('SIGKILL');
      try { execFileSync('ip', ['netns', 'del', stale], { stdio: 'pipe' }); } catch { /* reaped */ }
    }
  });

  test('stop() kills nginx and sshd and removes the namespace, the veth pair and the files; a second stop() is harmless', async () => {
    const pids = execFileSync('ip', ['netns', 'pids', custom.ns], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(3); // nginx master + worker, sshd
    const hostIf = `pxh${custom.ip.split('.')[2]}`;
    expect(linkExists(hostIf)).toBe(true);
    expect(existsSync(custom.logPath)).toBe(true);
    await custom.stop();
    expect(netns()).not.toContain(custom.ns);
    expect(linkExists(hostIf)).toBe(false);
    expect(existsSync(custom.dir)).toBe(false);
    expect(existsSync(custom.logPath)).toBe(false);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    await custom.stop();
    expect(netns()).not.toContain(custom.ns);
    // no route to the proxy's /24 is left on the machine
    expect(execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' })).not.toContain(hostIf);
  });
});
