/**
 * The sync to the proxies (issue 8, 000 §7 `srv/action.syncIptableRules`) beyond test/api/firewall-rules.e2e.ts:
 * the preview against what each proxy's ipset really holds, a proxy whose ipset command fails beside one
 * that syncs, and a non-root SSH login that goes through `sudo -n` (with and without its sudoers entry).
 * Two real proxy hosts (test/helpers/proxy-host.ts: nginx + OpenSSH in network namespaces), plus a second
 * sshd inside the first one for a throw-away non-root user. Needs root (the test machines and CI).
 * One pass: the subject is ipset/iptables over SSH; the rules' storage is covered on both databases by firewall-rules.e2e.ts.
 */
import { jest } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IpRuleView, BlockRuleView, SyncNodeResult, SyncResult } from '../../src/contracts/firewall-rules.js';
import { SSHD_PATH, startProxyHost, type ProxyHost } from '../helpers/proxy-host.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sleep } from '../helpers/wait.js';

jest.setTimeout(90_000);

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

let t: TestApp;
let admin: string;
let h1: ProxyHost;
let h2: ProxyHost;
let p1: number;
let p2: number;

// the throw-away non-root user and its sshd inside h1's namespace
const user = `fwsync${randomBytes(4).toString('hex')}`;
const sudoersFile = `/etc/sudoers.d/${user}`;
const USER_SSH_PORT = 2222;
let userDir = '';
let userSshd: ChildProcess | undefined;
let userCreated = false;

beforeAll(async () => {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) throw new Error('the sync tests need root (network namespaces, iptables, ipset, sshd, useradd)');
  t = await startApp();
  admin = (await t.session(1)).hash;
  [h1, h2] = await Promise.all([startProxyHost(), startProxyHost()]);
  p1 = (await ok<{ Id: number }>('srv.save_server', { name: 'proxy-one', type: 1, status: 1, ip: h1.ip, sshport: h1.sshPort, sshlogin: 'root', private_key: h1.privateKey })).Id;
  p2 = (await ok<{ Id: number }>('srv.save_server', { name: 'proxy-two', type: 1, status: 1, ip: h2.ip, sshport: h2.sshPort, sshlogin: 'root', private_key: h2.privateKey })).Id;
}, 60_000);

afterAll(async () => {
  if (userSshd && userSshd.exitCode === null && userSshd.signalCode === null) {
    const exited = new Promise<void>((r) => userSshd!.once('exit', () => r()));
    userSshd.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((r) => { timer = setTimeout(r, 5000); })]);
    clearTimeout(timer);
  }
  await Promise.allSettled([h1?.stop(), h2?.stop()]);
  rmSync(sudoersFile, { force: true });
  if (userCreated) {
    try { execFileSync('userdel', [user], { stdio: 'pipe', timeout: 15_000 }); } catch (e) { console.error(`userdel ${user}: ${String((e as { stderr?: Buffer }).stderr ?? e)}`); }
  }
  if (userDir) rmSync(userDir, { recursive: true, force: true });
  await t?.close();
  // nothing of this file is left on the machine
  expect(existsSync(sudoersFile)).toBe(false);
  expect(readFileSync('/etc/passwd', 'utf8')).not.toContain(`${user}:`);
}, 60_000);

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
const sync = (args: Record<string, unknown> = {}) => ok<SyncResult>('srv/action.syncIptableRules', args);
const nodeOf = (r: SyncResult, Id: number) => {
  const n = r.nodes.find((x) => x.Id === Id);
  if (!n) throw new Error(`no node ${Id} in ${JSON.stringify(r.nodes)}`);
  return n as SyncNodeResult;
};
/** Everything of the proxy the sync may touch: every set with its entries, and both filter tables. */
const snapshot = async (h: ProxyHost) => ({
  sets: (await h.exec('ipset save')).split('\n').map((l) => l.replace(/ initval 0x[0-9a-f]+/, '')).sort().join('\n'),
  names: (await h.exec('ipset list -n')).split('\n').filter(Boolean).sort(),
  v4: await h.exec('iptables -S'),
  v6: await h.exec('ip6tables -S'),
});
/** What the console stores about rules (the sync must never change it). */
const dbState = async () => ({
  rules: (await ok<{ list: IpRuleView[]; count: number }>('firewall.getIpRules', { limit: 500 })),
  blocks: await ok<BlockRuleView[]>('firewall.getIptableBlockRules'),
  servers: (await ok<Array<Record<string, unknown>>>('srv.getList', { type: 1 })).map((s) => ({ Id: s.Id, status: s.status })),
});
const req = (h: ProxyHost, from: string) => h.request(from, '/', { timeoutMs: 1500 });

describe(`sync preview and failures with live proxies (${DB})`, () => {
  let X1: string; let X2: string; let Y: string; let Z: string; let W: string;
  beforeAll(() => { [X1, X2, Y, Z, W] = h1.clients; });

  test('a real sync first: both proxies get the deny set', async () => {
    await ok('firewall.setIpBan', { ip: X1 });
    await ok('firewall.setIpBan', { ip: X2 });
    const r = await sync();
    expect(nodeOf(r, p1)).toEqual({ Id: p1, name: 'proxy-one', ok: true, added: [X1, X2], removed: [] });
    expect(nodeOf(r, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: true, added: [X1, X2], removed: [] });
    expect(await req(h1, X1)).toBe('timeout');
    expect(await req(h1, Y)).toBe(200);
  });

  test('{dry_run: true} answers per proxy what would be added and removed against what its ipset really holds, and changes nothing there nor in the DB', async () => {
    await ok('firewall.setIpBan', { ip: Y });
    await ok('firewall.deleteIpRules', { ip: X1 });
    // proxy-two holds an entry the console never sent (added by hand on the proxy): the preview sees it
    await h2.exec('ipset add console_deny4 192.0.2.99');
    const before1 = await snapshot(h1);
    const before2 = await snapshot(h2);
    const db = await dbState();

    const plan = await sync({ dry_run: true });
    expect(plan.nodes).toHaveLength(2);
    expect(nodeOf(plan, p1)).toEqual({ Id: p1, name: 'proxy-one', ok: true, added: [Y], removed: [X1] });
    expect(nodeOf(plan, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: true, added: [Y], removed: [X1, '192.0.2.99'] });
    expect(plan.total).toBe(2);

    expect(await snapshot(h1)).toEqual(before1);
    expect(await snapshot(h2)).toEqual(before2);
    expect(await dbState()).toEqual(db);
    expect(await req(h1, X1)).toBe('timeout');
    expect(await req(h1, Y)).toBe(200);

    // the real sync then does exactly what the preview said
    const r = await sync();
    expect(nodeOf(r, p1)).toEqual(nodeOf(plan, p1));
    expect(nodeOf(r, p2)).toEqual(nodeOf(plan, p2));
    expect(await req(h1, X1)).toBe(200);
    expect(await req(h1, Y)).toBe('timeout');
    expect(await h2.exec('ipset save console_deny4')).not.toContain('192.0.2.99');
  });

  test('a proxy whose ipset command fails (its set was made by hand with another type) answers ok:false with the error; the other proxy syncs; nothing is half-applied on the failing one', async () => {
    // On proxy-two an admin replaced console_deny4 by a hash:ip set of their own (and kept a DROP rule on it)
    await h2.exec([
      'iptables -D INPUT -m set --match-set console_deny4 src -j DROP',
      'ipset destroy console_deny4',
      'ipset create console_deny4 hash:ip',
      'ipset add console_deny4 192.0.2.50',
      'iptables -I INPUT 1 -m set --match-set console_deny4 src -j DROP',
    ].join(' && '));
    await ok('firewall.setIpBan', { ip: Z });
    const before2 = await snapshot(h2);
    expect(before2.names).toEqual(['console_deny4', 'console_deny6']);

    const bad = /console_deny4 is hash:ip family inet, not hash:net .*cannot swap/;
    const plan = await sync({ dry_run: true });
    expect(nodeOf(plan, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: false, added: [], removed: [], error: expect.stringMatching(bad) });
    expect(nodeOf(plan, p1)).toEqual({ Id: p1, name: 'proxy-one', ok: true, added: [Z], removed: [] });

    const r = await sync();
    expect(nodeOf(r, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: false, added: [], removed: [], error: expect.stringMatching(bad) });
    expect(nodeOf(r, p1)).toEqual({ Id: p1, name: 'proxy-one', ok: true, added: [Z], removed: [] });
    // proxy-one applied it
    expect(await req(h1, Z)).toBe('timeout');
    expect(await req(h1, X1)).toBe(200);
    // proxy-two: the sets, their entries and the rules exactly as before (no temporary set left, v6 untouched)
    expect(await snapshot(h2)).toEqual(before2);

    // the admin removes their set: the next sync puts the console's in place
    await h2.exec('iptables -D INPUT -m set --match-set console_deny4 src -j DROP && ipset destroy console_deny4');
    const again = await sync();
    expect(nodeOf(again, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: true, added: [X2, Y, Z], removed: [] });
    expect((await h2.exec('iptables -S INPUT')).split('\n').filter((l) => l.includes('console_deny4'))).toEqual(['-A INPUT -m set --match-set console_deny4 src -j DROP']);
  });

  describe('a non-root SSH login runs ipset and iptables with sudo -n', () => {
    let p3: number;
    beforeAll(async () => {
      // The user exists on the machine (the namespace shares it), not locked ('*': no password, key only)
      execFileSync('useradd', ['-M', '-d', '/nonexistent', '-s', '/bin/sh', '-p', '*', user], { stdio: 'pipe', timeout: 15_000 });
      userCreated = true;
      userDir = mkdtempSync(join(tmpdir(), 'fwsync-'));
      chmodSync(userDir, 0o755);
      const keygen = (f: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', user, '-f', join(userDir, f)], { stdio: 'pipe', timeout: 15_000 });
      keygen('client_key');
      keygen('host_key');
      writeFileSync(join(userDir, `${user}.keys`), readFileSync(join(userDir, 'client_key.pub')), { mode: 0o644 });
      const conf = join(userDir, 'sshd_config');
      writeFileSync(conf, [
        `Port ${USER_SSH_PORT}`, `ListenAddress ${h1.ip}`, `HostKey ${join(userDir, 'host_key')}`, `PidFile ${join(userDir, 'sshd.pid')}`,
        'UsePAM no', 'PermitRootLogin no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes',
        `AuthorizedKeysFile ${userDir}/%u.keys`, 'StrictModes no', `AllowUsers ${user}`, 'LogLevel VERBOSE', '',
      ].join('\n'));
      execFileSync(SSHD_PATH, ['-t', '-f', conf], { stdio: 'pipe', timeout: 15_000 });
      let log = '';
      userSshd = spawn('ip', ['netns', 'exec', h1.ns, SSHD_PATH, '-D', '-e', '-f', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      userSshd.stderr!.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-5000); });
      // bounded wait for the SSH banner
      let up = false;
      for (let i = 0; i < 100 && !up; i++) {
        up = await new Promise<boolean>((resolve) => {
          const c = createConnection({ host: h1.ip, port: USER_SSH_PORT });
          const done = (v: boolean) => { clearTimeout(timer); c.destroy(); resolve(v); };
          const timer = setTimeout(() => done(false), 1000);
          c.once('data', (d: Buffer) => done(d.toString().startsWith('SSH-')));
          c.once('error', () => done(false));
        });
        if (!up) await sleep(50);
      }
      if (!up) throw new Error(`the user's sshd did not start: ${log}`);
      // proxy-one is now reached through this user only
      await ok('srv.save_server', { Id: p1, status: 0 });
      p3 = (await ok<{ Id: number }>('srv.save_server', {
        name: 'proxy-one-sudo', type: 1, status: 1, ip: h1.ip, sshport: USER_SSH_PORT, sshlogin: user, private_key: readFileSync(join(userDir, 'client_key'), 'utf8'),
      })).Id;
    }, 60_000);

    test('without a sudoers entry: a clear per-proxy error (sudo: a password is required), preview included; nothing applied; the other proxy syncs', async () => {
      await ok('firewall.setIpBan', { ip: W });
      const before1 = await snapshot(h1);
      const plan = await sync({ dry_run: true });
      expect(nodeOf(plan, p3)).toEqual({ Id: p3, name: 'proxy-one-sudo', ok: false, added: [], removed: [], error: expect.stringMatching(/sudo: a password is required/) });
      expect(nodeOf(plan, p2)).toMatchObject({ ok: true, added: [W], removed: [] });
      const r = await sync();
      expect(r.nodes.map((n) => n.Id).sort()).toEqual([p2, p3].sort());
      expect(nodeOf(r, p3)).toEqual({ Id: p3, name: 'proxy-one-sudo', ok: false, added: [], removed: [], error: expect.stringMatching(/sudo: a password is required/) });
      expect(nodeOf(r, p2)).toEqual({ Id: p2, name: 'proxy-two', ok: true, added: [W], removed: [] });
      expect(await snapshot(h1)).toEqual(before1);
      expect(await req(h1, W)).toBe(200);
      expect(await req(h1, Z)).toBe('timeout');
    });

    test('with a sudoers entry for ipset, iptables and ip6tables (no password): the sync works through sudo -n', async () => {
      writeFileSync(sudoersFile, `${user} ALL=(root) NOPASSWD: /usr/sbin/ipset, /usr/sbin/iptables, /usr/sbin/ip6tables\n`, { mode: 0o440 });
      execFileSync('visudo', ['-c', '-q', '-f', sudoersFile], { stdio: 'pipe', timeout: 15_000 });
      // the user alone cannot touch ipset: whatever works below went through sudo
      const direct = await h1.run(`su -s /bin/sh ${user} -c 'ipset list -n'`);
      expect(direct.code).not.toBe(0);

      expect(nodeOf(await sync({ dry_run: true }), p3)).toEqual({ Id: p3, name: 'proxy-one-sudo', ok: true, added: [W], removed: [] });
      const r = await sync();
      expect(nodeOf(r, p3)).toEqual({ Id: p3, name: 'proxy-one-sudo', ok: true, added: [W], removed: [] });
      expect(await req(h1, W)).toBe('timeout');
      expect(await req(h1, X1)).toBe(200);
      // and back: the rule removed, the address passes again; still one DROP rule per family
      await ok('firewall.deleteIpRules', { ip: W });
      expect(nodeOf(await sync(), p3)).toMatchObject({ ok: true, added: [], removed: [W] });
      expect(await req(h1, W)).toBe(200);
      expect((await h1.exec('iptables -S INPUT')).split('\n').filter((l) => l.includes('console_deny4'))).toHaveLength(1);
      expect((await h1.exec('ip6tables -S INPUT')).split('\n').filter((l) => l.includes('console_deny6'))).toHaveLength(1);
      expect(await h1.exec('ipset list -n')).not.toMatch(/_new/);
    });
  });
});
