/**
 * Firewall rules and their sync (issue 8; 000 §3 IP rule, IP block rule; §4; §5; §7; §8) on the real app
 * and a real database, then the real path: a proxy host in a network namespace (test/helpers/proxy-host.ts,
 * nginx + OpenSSH, root by key) registered as a server; bans and block rules applied with ipset over SSH
 * make a client's requests time out while another still gets 200. Needs root (the test machines and CI).
 */
import { jest } from '@jest/globals';
import type { Envelope, ErrorEnvelope } from '../../src/contracts/envelope.js';
import type { BlockRuleView, IpRuleView, SyncNodeResult, SyncResult } from '../../src/contracts/firewall-rules.js';
import { startDeadHost, startProxyHost, type DeadHost, type ProxyHost } from '../helpers/proxy-host.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

jest.setTimeout(90_000);

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '1' });
  admin = (await t.session(1)).hash;
}, 60_000);
afterAll(async () => { await t?.close(); }, 30_000);

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
/** A refusal: a non-ok envelope with a message, never a 5xx. */
async function refused(method: string, args: unknown): Promise<ErrorEnvelope> {
  const r = await t.rpc(admin, method, args);
  expect(r.status).toBeLessThan(500);
  expect(r.env.status).not.toBe('ok');
  const env = r.env as ErrorEnvelope;
  expect(env.code ?? 0).toBeLessThan(500);
  expect(typeof env.message).toBe('string');
  expect(env.message).not.toMatch(/Internal error|at .*\.ts:\d+/);
  return env;
}
const rules = async (args: Record<string, unknown> = {}) => ok<{ list: IpRuleView[]; count: number }>('firewall.getIpRules', args);
const ruleOf = async (ip: string) => (await rules({ like: ip, limit: 500 })).list.find((r) => r.ip === ip);

describe(`IP rules (${DB})`, () => {
  test('ban answers Set ban ok! with status 1 by default or the status given; allow sets 0; a second ban updates the same rule', async () => {
    expect(await ok('firewall.setIpBan', { ip: '203.0.113.7' })).toEqual({ message: 'Set ban ok!', affected: 1 });
    expect(await ruleOf('203.0.113.7')).toMatchObject({ ip: '203.0.113.7', status: 1 });
    const first = (await ruleOf('203.0.113.7'))!;
    expect(Date.parse(first.time)).toBeGreaterThan(Date.now() - 60_000);

    await ok('firewall.setIpBan', { ip: '203.0.113.7', status: 12 });
    expect(await ruleOf('203.0.113.7')).toMatchObject({ status: 12 });
    expect((await rules({ like: '203.0.113.7' })).count).toBe(1);

    // The spec's other name (setRuleByIp) and IPv6 in its normal form
    await ok('firewall.setRuleByIp', { ip: '2001:DB8:0:0::1' });
    expect(await ruleOf('2001:db8::1')).toMatchObject({ status: 1 });
    // IPv4-mapped IPv6 is the IPv4 address
    await ok('firewall.setIpBan', { ip: '::ffff:198.51.100.9' });
    expect(await ruleOf('198.51.100.9')).toMatchObject({ status: 1 });

    expect(await ok('firewall.allowIpRules', { ip: '198.51.100.10' })).toEqual({ message: 'Save ok!', affected: 1 });
    expect(await ruleOf('198.51.100.10')).toMatchObject({ status: 0 });
    await ok('firewall.setAllowedByIp', { ip: '203.0.113.7' });
    expect(await ruleOf('203.0.113.7')).toMatchObject({ status: 0 });
  });

  test('listing: newest first, 50 a page with p_, status and like filters, count of all matching', async () => {
    const ips = Array.from({ length: 60 }, (_, i) => `192.0.2.${i + 1}`);
    for (const [i, ip] of ips.entries()) await ok('firewall.setIpBan', { ip, status: i % 3 === 0 ? 2 : 1 });
    const p1 = await rules({ like: '192.0.2.' });
    expect(p1.count).toBe(60);
    expect(p1.list).toHaveLength(50);
    expect(p1.list[0].ip).toBe('192.0.2.60');
    const p2 = await rules({ like: '192.0.2.', p_: 2 });
    expect(p2.list.map((r) => r.ip)).toEqual(ips.slice(0, 10).reverse());
    expect(new Set([...p1.list, ...p2.list].map((r) => r.ip)).size).toBe(60);
    expect((await rules({ like: '192.0.2.', p_: '3' })).list).toEqual([]);

    const twos = await rules({ status: 2, like: '192.0.2.' });
    expect(twos.count).toBe(20);
    expect(twos.list.every((r) => r.status === 2)).toBe(true);
    const ones = ips.filter((ip, i) => i % 3 !== 0 && ip.startsWith('192.0.2.5'));
    expect(ones).toHaveLength(8);
    expect((await rules({ status: 1, like: '192.0.2.5' })).list.map((r) => r.ip).sort()).toEqual(ones.sort());
    expect((await rules({ like: '192.0.2.1', limit: 5 })).list).toHaveLength(5);
    expect((await rules({ status: 0 })).list.map((r) => r.ip).sort()).toEqual(['198.51.100.10', '203.0.113.7']);
    // the spec's other name
    expect((await ok<{ count: number }>('firewall.getIptablesRules', { like: '192.0.2.' })).count).toBe(60);
    // LIKE wildcards in the filter match themselves (core/database/like.ts): no address has them.
    for (const like of ['%', '_', '192_0', '\\']) expect((await rules({ like })).count).toBe(0);
  });

  test('delete one or a list; bulk delete by status answers {affected}; a status nobody has answers 0', async () => {
    expect(await ok('firewall.deleteIpRules', { ip: '192.0.2.60' })).toEqual({ message: 'Delete rule ok!', affected: 1 });
    expect(await ruleOf('192.0.2.60')).toBeUndefined();
    // .58 has status 2 (every third one has)
    expect(await ok('firewall.deleteIpRules', { ip: ['192.0.2.59', '192.0.2.58', '192.0.2.250'] })).toEqual({ message: 'Delete rule ok!', affected: 2 });
    expect(await ok('firewall.deleteIpRules', { ip: '192.0.2.250' })).toEqual({ message: 'Delete rule ok!', affected: 0 });

    const before = (await rules({ status: 2 })).count;
    expect(before).toBe(19);
    expect(await ok('firewall.deleteIpRulesByFilter', { status: 2 })).toEqual({ message: 'Delete rule ok!', affected: 19 });
    expect((await rules({ status: 2 })).count).toBe(0);
    expect(await ok('firewall.deleteIpRulesByFilter', { status: 2 })).toEqual({ message: 'Delete rule ok!', affected: 0 });
    expect((await rules({ like: '192.0.2.' })).count).toBe(38);
    expect(await ok('firewall.deleteIpRulesByFilter', { status: '1' })).toMatchObject({ affected: 38 + 2 }); // + 2001:db8::1, 198.51.100.9
    expect((await rules({ like: '192.0.2.' })).count).toBe(0);
  });

  test('REST GET and POST /api/firewall/delete_ip_rules {ip}', async () => {
    await ok('firewall.setIpBan', { ip: '192.0.2.201' });
    await ok('firewall.setIpBan', { ip: '192.0.2.202' });
    const viaGet = await t.rest<Envelope<{ affected: number }>>(admin, 'GET', '/firewall/delete_ip_rules?ip=192.0.2.201');
    expect(viaGet).toEqual({ status: 200, body: { status: 'ok', result: { message: 'Delete rule ok!', affected: 1 } } });
    const viaPost = await t.rest<Envelope<{ affected: number }>>(admin, 'POST', '/firewall/delete_ip_rules', { ip: '192.0.2.202' });
    expect(viaPost).toEqual({ status: 200, body: { status: 'ok', result: { message: 'Delete rule ok!', affected: 1 } } });
    expect(await ruleOf('192.0.2.201')).toBeUndefined();
    expect(await ruleOf('192.0.2.202')).toBeUndefined();
    const bad = await t.rest<ErrorEnvelope>(admin, 'GET', '/firewall/delete_ip_rules?ip=192.0.2');
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ status: 'rules', message: expect.stringMatching(/IP must be an IPv4 or IPv6 address/) });
    const none = await t.rest<ErrorEnvelope>(admin, 'POST', '/firewall/delete_ip_rules', {});
    expect(none.status).toBe(422);
    expect(none.body.message).toMatch(/IP is required/);
    // both are audited, the GET too (it changes state)
    const audit = await ok<{ list: Array<{ method: string; outcome: string }> }>('audit.getList', { limit: 50 });
    const methods = audit.list.map((a) => a.method);
    expect(methods).toEqual(expect.arrayContaining(['GET /api/firewall/delete_ip_rules', 'POST /api/firewall/delete_ip_rules']));
    // role check: content (10) and default (100) users are refused, nothing is deleted
    await ok('firewall.setIpBan', { ip: '192.0.2.203' });
    for (const role of [10, 100]) {
      const { hash } = await t.session(role);
      expect((await t.rest(hash, 'GET', '/firewall/delete_ip_rules?ip=192.0.2.203')).status).toBe(403);
      expect((await t.rpc(hash, 'firewall.setIpBan', { ip: '192.0.2.204' })).status).toBe(403);
    }
    expect(await ruleOf('192.0.2.203')).toMatchObject({ status: 1 });
    expect(await ruleOf('192.0.2.204')).toBeUndefined();
  });

  test('refusals: an allowlisted ban says why (Allowed rule, a server address, loopback, a firewall_allow CIDR row)', async () => {
    await ok('firewall.allowIpRules', { ip: '198.51.100.77' });
    expect((await refused('firewall.setIpBan', { ip: '198.51.100.77' })).message).toMatch(/198\.51\.100\.77 is allowlisted: it has an Allowed rule/);
    expect(await ruleOf('198.51.100.77')).toMatchObject({ status: 0 });

    const srv = await ok<{ Id: number }>('srv.save_server', { name: 'db-main', type: 6, ip: '198.51.100.20', ip_local: '172.16.5.4' });
    expect((await refused('firewall.setIpBan', { ip: '198.51.100.20' })).message).toMatch(/allowlisted: the address of server db-main/);
    expect((await refused('firewall.setIpBan', { ip: '172.16.5.4' })).message).toMatch(/the address of server db-main/);

    for (const ip of ['127.0.0.1', '127.8.9.10', '::1']) expect((await refused('firewall.setIpBan', { ip })).message).toMatch(/allowlisted: loopback/);

    await ok('cfg.insertConfigsBatch', [{ type: 'firewall_allow', value: '100.64.0.0/10' }, { type: 'firewall_allow', value: '2001:db8:aa::/48' }]);
    const cidr = await refused('firewall.setIpBan', { ip: '100.100.1.2' });
    expect(cidr.message).toMatch(/100\.100\.1\.2 is allowlisted: in the cluster config 'firewall_allow' \(100\.64\.0\.0\/10\)\. It cannot be banned\./);
    expect(cidr).toMatchObject({ status: 'rules', code: 422, fields: { ip: cidr.message } });
    expect((await refused('firewall.setIpBan', { ip: '2001:db8:aa:1::5' })).message).toMatch(/firewall_allow/);
    // just outside the range is fine
    await ok('firewall.setIpBan', { ip: '100.128.0.1' });
    expect(await ruleOf('100.128.0.1')).toMatchObject({ status: 1 });
    for (const ip of ['198.51.100.20', '172.16.5.4', '127.0.0.1', '100.100.1.2']) expect(await ruleOf(ip)).toBeUndefined();

    // the server leaves the inventory: its address may be banned again
    await ok('srv.save_server', { Id: srv.Id, ip: '198.51.100.21', ip_local: '' });
    await ok('firewall.setIpBan', { ip: '198.51.100.20' });
  });

  test('refusals: bad IPs and statuses are named; never a rule row', async () => {
    const before = (await rules()).count;
    for (const ip of ['192.0.2', '999.1.1.1', '0x7f.1', '127.1', '10.0.0.0/8', '::g', 'example.com', '', ' ']) {
      const env = await refused('firewall.setIpBan', { ip });
      expect(env).toMatchObject({ status: 'rules', code: 422 });
      expect(env.message).toMatch(/IP (must be an IPv4 or IPv6 address|is required)/);
    }
    for (const ip of [5, null, ['1.2.3.4'], { ip: '1.2.3.4' }]) expect((await refused('firewall.setIpBan', { ip })).code).toBe(422);
    expect((await refused('firewall.setIpBan', { ip: '192.0.2.9', status: 0 })).message).toMatch(/Status must be one of/);
    expect((await refused('firewall.setIpBan', { ip: '192.0.2.9', status: -1 })).message).toMatch(/Status (must be one of|is at least)/);
    expect((await refused('firewall.setIpBan', { ip: '192.0.2.9', status: 16 })).message).toMatch(/Status must be one of/);
    expect((await refused('firewall.allowIpRules', { ip: 'nope' })).message).toMatch(/IP must be/);
    expect((await refused('firewall.deleteIpRules', { ip: [] })).message).toMatch(/IP list must not be empty/);
    expect((await refused('firewall.deleteIpRules', { ip: ['192.0.2.1', 'x'] })).fields).toEqual({ 'ip.1': 'IP must be an IPv4 or IPv6 address' });
    expect((await refused('firewall.deleteIpRulesByFilter', {})).message).toMatch(/Status is required/);
    expect((await refused('firewall.deleteIpRulesByFilter', { status: 99 })).message).toMatch(/Status must be one of/);
    expect((await refused('firewall.getIpRules', { p_: 0 })).message).toMatch(/Page/);
    expect((await rules()).count).toBe(before);
  });
});

describe(`block rules (${DB})`, () => {
  test('save cleans the value (empty lines removed, normal form, sorted numerically, duplicates once) and answers {Id}; edit, switch, delete', async () => {
    const saved = await ok<{ Id: number; message: string; allowlisted: string[] }>('firewall.saveIptableBlockRules', {
      value: '10.0.0.10\n\n  10.0.0.9  \n10.0.0.0/24\n2001:DB8::/32\n10.0.0.9\n192.168.1.77/16\n', comment: 'scanners',
    });
    // 2001:db8::/32 covers the firewall_allow row 2001:db8:aa::/48 of the refusal test above: saved, and said
    expect(saved).toEqual({ Id: expect.any(Number), message: 'Save ok!', allowlisted: ["2001:db8:aa::/48 (in the cluster config 'firewall_allow')"] });
    const list = await ok<BlockRuleView[]>('firewall.getIptableBlockRules');
    expect(list).toContainEqual({ Id: saved.Id, value: '10.0.0.0/24\n10.0.0.9\n10.0.0.10\n192.168.0.0/16\n2001:db8::/32', comment: 'scanners', status: 1 });

    await ok('firewall.updateIptableBlockRules', { Id: saved.Id, value: '10.0.0.1', comment: 'one', status: 0 });
    expect((await ok<BlockRuleView[]>('firewall.getIptableBlockRules')).find((b) => b.Id === saved.Id)).toEqual({ Id: saved.Id, value: '10.0.0.1', comment: 'one', status: 0 });
    expect(await ok('firewall.switchIptableBlockRule', { Id: saved.Id, status: 1 })).toMatchObject({ affected: 1 });
    expect((await ok<BlockRuleView[]>('firewall.getIptableBlockRules')).find((b) => b.Id === saved.Id)?.status).toBe(1);
    expect(await ok('firewall.deleteIptableBlockRule', { Id: saved.Id })).toEqual({ message: 'Delete rule ok!', affected: 1 });
    expect((await ok<BlockRuleView[]>('firewall.getIptableBlockRules')).find((b) => b.Id === saved.Id)).toBeUndefined();
    expect((await refused('firewall.deleteIptableBlockRule', { Id: saved.Id })).code).toBe(404);
    expect((await refused('firewall.saveIptableBlockRules', { Id: saved.Id, value: '10.0.0.1' })).code).toBe(404);
  });

  test('a malformed line is refused naming it, nothing is saved; an empty value is refused', async () => {
    const before = await ok<BlockRuleView[]>('firewall.getIptableBlockRules');
    const env = await refused('firewall.saveIptableBlockRules', { value: '10.0.0.1\n\nnot-an-ip\n10.0.0.0/33\n1.2.3.4/8x', comment: 'bad' });
    expect(env).toMatchObject({ status: 'rules', code: 422 });
    expect(env.message).toBe('Line 3: "not-an-ip" is not an IP address or CIDR range; Line 4: "10.0.0.0/33" is not an IP address or CIDR range; Line 5: "1.2.3.4/8x" is not an IP address or CIDR range');
    expect(env.fields).toEqual({ value: env.message });
    expect((await refused('firewall.saveIptableBlockRules', { value: '\n \n' })).message).toMatch(/at least one address/);
    expect((await refused('firewall.saveIptableBlockRules', { value: 5 })).message).toMatch(/Value must be text/);
    expect(await ok<BlockRuleView[]>('firewall.getIptableBlockRules')).toEqual(before);
  });

  test('a block rule covering an allowlisted address is saved, and the address is reported', async () => {
    await ok('srv.save_server', { name: 'web-covered', type: 8, ip: '10.77.0.5' });
    const saved = await ok<{ Id: number; allowlisted: string[] }>('firewall.saveIptableBlockRules', { value: '10.77.0.0/16', comment: 'wide' });
    expect(saved.allowlisted).toEqual(['10.77.0.5 (the address of server web-covered)']);
    const plan = await ok<SyncResult>('srv/action.syncIptableRules', { dry_run: true });
    expect(plan.skipped).toContainEqual({ value: '10.77.0.5', reason: 'inside 10.77.0.0/16, left open: the address of server web-covered' });
    await ok('firewall.deleteIptableBlockRule', { Id: saved.Id });
  });
});

// ---------------------------------------------------------------------------------------------
// The real path: a proxy host in a network namespace

describe(`sync to a real proxy host over SSH (${DB})`, () => {
  let host: ProxyHost;
  let dead: DeadHost | undefined;
  let proxyId: number;
  let A: string; let B: string; let C: string; let D: string; let E: string;
  let A6: string; let B6: string;

  beforeAll(async () => {
    if (typeof process.getuid === 'function' && process.getuid() !== 0) throw new Error('the sync tests need root (network namespaces, iptables, ipset, sshd)');
    host = await startProxyHost({ ipv6: true });
    [A, B, C, D, E] = host.clients;
    [A6, B6] = host.clients6;
    // clean slate: the rules of the tests above would only add noise to added/removed
    await ok('firewall.deleteIpRulesByFilter', { status: 1 });
    const saved = await ok<{ Id: number }>('srv.save_server', {
      name: 'proxy-ns', type: 1, status: 1, ip: host.ip, sshport: host.sshPort, sshlogin: 'root', private_key: host.privateKey,
    });
    proxyId = saved.Id;
  }, 60_000);
  afterAll(async () => { await Promise.allSettled([host?.stop(), dead?.stop()]); }, 30_000);

  const sync = (args: Record<string, unknown> = {}) => ok<SyncResult>('srv/action.syncIptableRules', args);
  const nodeOf = (r: SyncResult, Id = proxyId) => r.nodes.find((n) => n.Id === Id) as SyncNodeResult;
  const setList = async (family: 4 | 6 = 4) => (await host.run(`ipset save console_deny${family}`)).stdout;
  const req = (from: string, timeoutMs = 1500) => host.request(from, '/', { timeoutMs });

  test('the proxy is allowlisted (a server address); everyone gets 200 before any ban', async () => {
    expect((await refused('firewall.setIpBan', { ip: host.ip })).message).toMatch(/the address of server proxy-ns/);
    for (const c of [A, B, C]) expect(await req(c)).toBe(200);
  });

  test('ban A + sync: A times out while B still gets 200; the answer lists A as added; the DROP rule exists once', async () => {
    await ok('firewall.setIpBan', { ip: A });
    await ok('firewall.setIpBan', { ip: A6 });
    const r = await sync();
    expect(r.nodes).toEqual([{ Id: proxyId, name: 'proxy-ns', ok: true, added: [A, A6], removed: [] }]);
    expect(r.total).toBe(2);
    expect(await req(A)).toBe('timeout');
    expect(await req(B)).toBe(200);
    expect(await req(A6)).toBe('timeout');
    expect(await req(B6)).toBe(200);
    expect(await setList(4)).toContain(`add console_deny4 ${A}`);
    expect(await setList(6)).toContain(`add console_deny6 ${A6}`);
    // a second sync changes nothing and adds no second DROP rule
    expect(nodeOf(await sync())).toMatchObject({ ok: true, added: [], removed: [] });
    const rulesV4 = (await host.exec('iptables -S INPUT')).split('\n').filter((l) => l.includes('console_deny4'));
    expect(rulesV4).toEqual(['-A INPUT -m set --match-set console_deny4 src -j DROP']);
    expect((await host.exec('ip6tables -S INPUT')).split('\n').filter((l) => l.includes('console_deny6'))).toHaveLength(1);
    // no temporary set is left behind
    expect(await host.exec('ipset list -n')).not.toMatch(/_new/);
  });

  test('{dry_run: true} (or 1 and "1", like every switch) lists what would be added and removed and changes nothing', async () => {
    await ok('firewall.setIpBan', { ip: C, status: 5 });
    await ok('firewall.deleteIpRules', { ip: A });
    const before = await setList(4);
    const plan = await sync({ dry_run: true });
    expect(nodeOf(plan)).toEqual({ Id: proxyId, name: 'proxy-ns', ok: true, added: [C], removed: [A] });
    // A switch like every other: 1 and '1' are a dry run too (issue 18: {dry_run: 1} was refused).
    for (const dry_run of [1, '1']) expect(nodeOf(await sync({ dry_run }))).toEqual(nodeOf(plan));
    expect(await setList(4)).toBe(before);
    expect(await host.exec('ipset list console_deny4')).toContain(A);
    expect(await host.exec('ipset list console_deny4')).not.toContain(C);
    expect(await req(A)).toBe('timeout');
    expect(await req(C)).toBe(200);
  });

  test('delete the rule + sync: A gets 200 again; C (status 5, a denying status) is dropped', async () => {
    const r = await sync();
    expect(nodeOf(r)).toEqual({ Id: proxyId, name: 'proxy-ns', ok: true, added: [C], removed: [A] });
    expect(await req(A)).toBe(200);
    expect(await req(C)).toBe('timeout');
    expect(await req(B)).toBe(200);
    // Allowed (0) never drops: allowing C takes it out at the next sync
    await ok('firewall.allowIpRules', { ip: C });
    await ok('firewall.deleteIpRules', { ip: A6 });
    expect(nodeOf(await sync())).toMatchObject({ ok: true, added: [], removed: [C, A6] });
    expect(await req(C)).toBe(200);
    expect(await req(A6)).toBe(200);
    expect(await setList(4)).not.toMatch(/^add /m);
  });

  test('a block rule CIDR covering A blocks it; allowlisted addresses inside the range stay open (nomatch)', async () => {
    // clients .11-.15 lie in .8/29; C has an Allowed rule, D is in a firewall_allow row
    const net = A.split('.').slice(0, 3).join('.');
    const range = `${net}.8/29`;
    await ok('cfg.insertConfigsBatch', [{ type: 'firewall_allow', value: `${D}/32` }]);
    const saved = await ok<{ Id: number; allowlisted: string[] }>('firewall.saveIptableBlockRules', { value: range, comment: 'clients' });
    expect(saved.allowlisted).toEqual(expect.arrayContaining([`${C} (it has an Allowed rule)`, `${D} (in the cluster config 'firewall_allow')`]));
    const r = await sync();
    expect(nodeOf(r)).toEqual({ Id: proxyId, name: 'proxy-ns', ok: true, added: [range, `${C} nomatch`, `${D} nomatch`], removed: [] });
    expect(r.skipped).toEqual(expect.arrayContaining([
      { value: C, reason: `inside ${range}, left open: it has an Allowed rule` },
      { value: D, reason: `inside ${range}, left open: in the cluster config 'firewall_allow'` },
    ]));
    expect(await setList(4)).toContain(`add console_deny4 ${C} nomatch`);
    expect(await req(A)).toBe('timeout');
    expect(await req(B)).toBe('timeout');
    expect(await req(E)).toBe('timeout');
    expect(await req(C)).toBe(200);
    expect(await req(D)).toBe(200);
    expect(await req(A6)).toBe(200);

    // the rule switched off: everyone is back
    await ok('firewall.switchIptableBlockRule', { Id: saved.Id, status: 0 });
    expect(nodeOf(await sync())).toMatchObject({ ok: true, added: [], removed: [range, `${C} nomatch`, `${D} nomatch`] });
    for (const c of [A, B, E]) expect(await req(c)).toBe(200);
  });

  test("a range covering the console's own address (as the proxy sees it) never locks the console out", async () => {
    // The console connects from the host end of the pair (not a server of the inventory): a /24 block
    // rule covers it. The sync keeps it open on that proxy, so this sync and the next ones still run.
    const net = A.split('.').slice(0, 3).join('.');
    const saved = await ok<{ Id: number }>('firewall.saveIptableBlockRules', { value: `${net}.0/24`, comment: 'whole net' });
    const r = await sync();
    const node = nodeOf(r);
    expect(node).toMatchObject({ ok: true });
    expect(node.added).toEqual(expect.arrayContaining([`${net}.0/24`, `${host.hostIp} nomatch`, `${host.ip} nomatch`]));
    expect(await req(A)).toBe('timeout');
    expect(await req(C)).toBe(200);
    // still reachable: a dry run and a real sync answer ok
    expect(nodeOf(await sync({ dry_run: true }))).toMatchObject({ ok: true, added: [], removed: [] });
    await ok('firewall.deleteIptableBlockRule', { Id: saved.Id });
    expect(nodeOf(await sync())).toMatchObject({ ok: true, added: [], removed: expect.arrayContaining([`${net}.0/24`]) });
    expect(await req(A)).toBe(200);
  });

  test('a dead proxy during sync is reported on its own node; the live one syncs', async () => {
    dead = await startDeadHost();
    const d = await ok<{ Id: number }>('srv.save_server', { name: 'proxy-dead', type: 1, status: 1, ip: dead.ip, sshport: dead.sshPort, sshlogin: 'root', private_key: dead.privateKey });
    await ok('firewall.setIpBan', { ip: B });
    const r = await sync();
    expect(r.nodes).toHaveLength(2);
    expect(nodeOf(r)).toEqual({ Id: proxyId, name: 'proxy-ns', ok: true, added: [B], removed: [] });
    expect(nodeOf(r, d.Id)).toEqual({ Id: d.Id, name: 'proxy-dead', ok: false, added: [], removed: [], error: expect.stringMatching(/Timed out/) });
    expect(await req(B)).toBe('timeout');
    expect(await req(A)).toBe(200);
    // switched off (status 0), it is no longer a sync target
    await ok('srv.save_server', { Id: d.Id, status: 0 });
    expect((await sync({ dry_run: true })).nodes.map((n) => n.Id)).toEqual([proxyId]);
  });

  test('a cron task path=srv/action|method=syncIptableRules is accepted and running it performs the sync', async () => {
    const { Id } = await ok<{ Id: number }>('cfg.saveAppCron', { name: 'firewall sync', cmd: 'path=srv/action|method=syncIptableRules', suspended: 1 });
    await ok('firewall.setIpBan', { ip: E });
    await ok('firewall.deleteIpRules', { ip: B });
    expect(await req(E)).toBe(200);
    await ok('cron.executeTask', { Id });
    const [run] = await waitFor('the cron run', async () => {
      const l = (await ok<{ list: Array<{ status: string; output: string; message: string }> }>('cron.getRuns', { Id, limit: 10 })).list;
      return l.length > 0 && l[0].status !== 'running' && l;
    }, 30_000);
    expect(run.status).toBe('ok');
    expect(run.output).toContain(E);
    expect(await req(E)).toBe('timeout');
    expect(await req(B)).toBe(200);
    expect(await setList(4)).toContain(`add console_deny4 ${E}`);
    await ok('cfg.appCronDelete', { Id });
  });
});
