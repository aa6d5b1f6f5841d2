/**
 * Whois (issue 8 "Whois"; 000 §7 getIpWhois, getWhois(ip)) on the real app, against whois servers on
 * loopback that speak the protocol (test/helpers/fakes/whois.ts): the app asks the "IANA" server of
 * WHOIS_SERVER, follows its `refer:` to a "regional registry" on another port (and a registry's
 * `ReferralServer: whois://` once more), caches the answer (the outside services' answer cache: a
 * failed lookup past the day answers the last good answer marked stale), and answers a clear 504 / 502
 * when a server is silent or unreachable and nothing was known, a 422 for a bad address.
 * One pass: the subject is the whois protocol; the answer cache is covered on both databases by outside.e2e.ts.
 */
import { createServer } from 'node:net';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ErrorEnvelope } from '../../src/contracts/envelope.js';
import { WHOIS_CACHE_MAX, type WhoisAnswer } from '../../src/contracts/whois.js';
import { WhoisService } from '../../src/modules/firewall/whois.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { ianaAnswer, ripeAnswer, startWhoisServer, type WhoisServer } from '../helpers/fakes/whois.js';

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';
const TIMEOUT_MS = 1500;

let t: TestApp;
let admin: string;
let iana: WhoisServer;
let rir: WhoisServer;
let arin: WhoisServer;
let national: WhoisServer;
let silent: WhoisServer;
let closedPort: number;
/** Addresses IANA stops answering (silent: a time-out), to show the stale answer. */
const down = new Set<string>();

/** A port nobody listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  rir = await startWhoisServer((q) => ripeAnswer({ range: '192.0.2.0 - 192.0.2.255', netname: 'TEST-NET-1', country: 'NL', org: 'Example Hosting B.V.', abuse: 'abuse@example.net', ...(q.includes(':') ? { range: '2001:db8::/32' } : {}) }));
  national = await startWhoisServer(() => 'inetnum:  198.51.100.0/24\nnetname:  NATIONAL-NET\ncountry:  BR\nowner:    Exemplo Ltda\n');
  arin = await startWhoisServer(() => `NetRange:       198.51.100.0 - 198.51.100.255\nCIDR:           198.51.100.0/24\nNetName:        LACNIC-TEST\nOrgName:        Latin American Test Registry\n\nReferralServer: whois://127.0.0.1:${national.port}\n`);
  silent = await startWhoisServer(() => null);
  closedPort = await deadPort();
  iana = await startWhoisServer((q) => {
    if (down.has(q)) return null;
    if (q.startsWith('192.0.2.') || q.startsWith('2001:db8:')) return ianaAnswer('192.0.0.0 - 192.255.255.255', rir.address);
    if (q.startsWith('198.51.100.')) return ianaAnswer('198.0.0.0 - 198.255.255.255', arin.address);
    if (q.startsWith('203.0.113.')) return ianaAnswer('203.0.0.0 - 203.255.255.255', silent.address);
    if (q.startsWith('100.64.')) return ianaAnswer('100.0.0.0 - 100.255.255.255', `127.0.0.1:${closedPort}`);
    if (q === '10.9.9.9') return 'close';
    // reserved blocks: IANA answers itself, no referral
    return '% IANA WHOIS server\n\ninetnum:      10.0.0.0 - 10.255.255.255\norganisation: IANA - Private Use\nstatus:       RESERVED\n';
  });
  t = await startApp({ WHOIS_SERVER: iana.address, WHOIS_TIMEOUT_MS: String(TIMEOUT_MS) });
  admin = (await t.session(1)).hash;
}, 60_000);

afterAll(async () => {
  await t?.close();
  for (const s of [iana, rir, arin, national, silent]) await s?.close();
}, 30_000);

const whois = (args: unknown, method = 'firewall.getIpWhois') => t.rpc<WhoisAnswer>(admin, method, args);

async function failure(args: unknown): Promise<{ status: number; env: ErrorEnvelope }> {
  const r = await whois(args);
  expect(r.env.status).not.toBe('ok');
  return { status: r.status, env: r.env as ErrorEnvelope };
}

describe(`whois (${DB})`, () => {
  test('asks IANA, follows its referral to the regional registry on another port, answers the registry text and a summary', async () => {
    const r = await whois({ ip: '192.0.2.10' });
    expect(r.status).toBe(200);
    expect(r.env.status).toBe('ok');
    const a = (r.env as { result: WhoisAnswer }).result;
    expect(a.chain).toEqual([iana.address, rir.address]);
    expect(a.server).toBe(rir.address);
    expect(a.text).toContain('netname:        TEST-NET-1');
    expect(a.text).not.toContain('IANA WHOIS server');
    expect(a.summary).toEqual({ range: '192.0.2.0 - 192.0.2.255', netname: 'TEST-NET-1', country: 'NL', org: 'Example Hosting B.V.', abuse: 'abuse@example.net' });
    expect(a.cached).toBe(false);
    expect(a.stale).toBe(false);
    expect(iana.queries).toEqual(['192.0.2.10']);
    expect(rir.queries).toEqual(['192.0.2.10']);
  });

  test('cached: the second call (also under getWhois, with the address alone) asks no server', async () => {
    const before = [iana.queries.length, rir.queries.length];
    const again = await t.ok<WhoisAnswer>(admin, 'firewall.getWhois', '192.0.2.10');
    expect(again.cached).toBe(true);
    expect(again.summary.netname).toBe('TEST-NET-1');
    expect(again.chain).toEqual([iana.address, rir.address]);
    expect([iana.queries.length, rir.queries.length]).toEqual(before);
    // another address is a new lookup
    const other = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '192.0.2.11' });
    expect(other.cached).toBe(false);
    expect(iana.queries.at(-1)).toBe('192.0.2.11');
  });

  test("a registry's ReferralServer whois://host:port is followed once more; IPv6 addresses are asked in their normal form", async () => {
    const a = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '198.51.100.5' });
    expect(a.chain).toEqual([iana.address, arin.address, national.address]);
    expect(a.summary).toMatchObject({ netname: 'NATIONAL-NET', country: 'BR', org: 'Exemplo Ltda' });
    expect(national.queries).toEqual(['198.51.100.5']);

    const v6 = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '2001:DB8:0::7' });
    expect(v6.ip).toBe('2001:db8::7');
    expect(rir.queries.at(-1)).toBe('2001:db8::7');
    expect(v6.summary.range).toBe('2001:db8::/32');
  });

  test('past its day, a failed lookup answers the last good answer marked stale, with its time and the error; the next good one clears it', async () => {
    const first = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '192.0.2.20' });
    expect(first).toMatchObject({ cached: false, stale: false });
    // a day later (the entry's freshness moved into the past), IANA falls silent
    const ds = t.app.get<DataSource>(getDataSourceToken());
    await ds.query("UPDATE outside_cache SET expires_at = ? WHERE service = 'whois' AND cache_key = ?", [Date.now() - 1000, '192.0.2.20']);
    down.add('192.0.2.20');
    const n = iana.queries.length;
    const stale = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '192.0.2.20' });
    expect(iana.queries.length).toBe(n + 1); // it did ask
    expect(stale).toMatchObject({ stale: true, cached: true, fetched: first.fetched, summary: first.summary, text: first.text });
    expect(stale.error).toBe(`Whois time-out: ${iana.address} did not answer within ${TIMEOUT_MS / 1000} s`);
    // IANA back: a new answer, not stale
    down.delete('192.0.2.20');
    const again = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '192.0.2.20' });
    expect(again).toMatchObject({ stale: false, cached: false });
    expect(again.error).toBeUndefined();
    expect(Date.parse(again.fetched)).toBeGreaterThan(Date.parse(first.fetched));
  });

  test('no referral (a reserved block): the IANA answer is the answer', async () => {
    const a = await t.ok<WhoisAnswer>(admin, 'firewall.getIpWhois', { ip: '10.1.2.3' });
    expect(a.chain).toEqual([iana.address]);
    expect(a.text).toContain('RESERVED');
  });

  test('a silent registry: 504 naming the server and the time-out; not cached (the next call asks again)', async () => {
    const f = await failure({ ip: '203.0.113.9' });
    expect(f.status).toBe(200); // the batch answers; the envelope carries the failure
    expect(f.env).toMatchObject({ status: 'http', code: 504 });
    expect(f.env.message).toBe(`Whois time-out: ${silent.address} did not answer within ${TIMEOUT_MS / 1000} s`);
    expect(silent.queries).toEqual(['203.0.113.9']);
    await failure({ ip: '203.0.113.9' });
    expect(silent.queries).toEqual(['203.0.113.9', '203.0.113.9']);
  });

  test('an unreachable registry or an empty answer: 502 naming the server', async () => {
    const f = await failure({ ip: '100.64.0.1' });
    expect(f.env).toMatchObject({ status: 'http', code: 502 });
    expect(f.env.message).toBe(`Whois server 127.0.0.1:${closedPort} cannot be reached: ECONNREFUSED`);
    const e = await failure({ ip: '10.9.9.9' });
    expect(e.env).toMatchObject({ status: 'http', code: 502, message: `Whois server ${iana.address} answered nothing` });
  });

  test('a bad address is 422 naming the field, and no server is asked', async () => {
    const before = iana.queries.length;
    for (const bad of [{ ip: 'not-an-ip' }, { ip: '999.1.1.1' }, { ip: '127.1' }, { ip: '' }, {}, 'x', [5], { ip: 5 }]) {
      const f = await failure(bad);
      expect(f.env).toMatchObject({ status: 'rules', code: 422 });
      // a non-object argument is refused as a whole ('_'), a bad address by its field
      expect({ bad, fields: Object.keys(f.env.fields ?? {}) }).toEqual({ bad, fields: [Array.isArray(bad) ? '_' : 'ip'] });
    }
    expect(iana.queries.length).toBe(before);
  });

  test('admin only', async () => {
    const user = await t.session(100);
    const r = await t.rpc(user.hash, 'firewall.getIpWhois', { ip: '192.0.2.10' });
    expect(r.status).toBe(403);
  });

  test(`the cache holds ${WHOIS_CACHE_MAX} addresses at most: the least recently used goes first`, async () => {
    const svc = t.app.get(WhoisService);
    // 10.0.x.y: IANA answers itself (one query each)
    const ips = Array.from({ length: WHOIS_CACHE_MAX + 1 }, (_, i) => `10.2.${i >> 8}.${i & 255}`);
    await svc.getIpWhois({ ip: ips[0] });
    for (const ip of ips.slice(1, WHOIS_CACHE_MAX)) await svc.getIpWhois({ ip });
    expect(await svc.cacheSize()).toBe(WHOIS_CACHE_MAX);
    // ips[0] used again: the oldest used is now ips[1]
    expect((await svc.getIpWhois({ ip: ips[0] })).cached).toBe(true);
    await svc.getIpWhois({ ip: ips[WHOIS_CACHE_MAX] });
    expect(await svc.cacheSize()).toBe(WHOIS_CACHE_MAX);
    expect((await svc.getIpWhois({ ip: ips[0] })).cached).toBe(true);
    const n = iana.queries.length;
    expect((await svc.getIpWhois({ ip: ips[1] })).cached).toBe(false);
    expect(iana.queries.length).toBe(n + 1);
  }, 120_000);
});
