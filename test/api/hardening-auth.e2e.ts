/**
 * Issue 7, no lockout of others and no free registration flood, on the real app and a real database
 * (SQLite, and MariaDB with TEST_DATABASE_URL). TRUST_PROXY=1 so X-Forwarded-For names the address.
 * - failed sign-ins are counted per (login, address) and per address: a guessing address is
 *   throttled, the right password from another address still signs in;
 * - registration is JSON from this site only, throttled per address, closed while too many accounts
 *   wait for an admin; logins are unique ignoring case, in the database too, and sign-in ignores case.
 */
import { jest } from '@jest/globals';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { encodeAuthKey } from '../../src/contracts/auth.js';
import { LOGIN_FAILURES_PER_IP, LOGIN_FAILURES_PER_LOGIN, PENDING_ACCOUNTS_MAX, REGISTRATIONS_PER_IP } from '../../src/contracts/constants.js';
import { MSG } from '../../src/contracts/messages.js';
import { UserEntity } from '../../src/core/auth/user.entity.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';

jest.setTimeout(120_000);
const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

type Answer = { status: number; body: any; headers: Headers };

function client(t: TestApp) {
  const post = async (path: string, body: string | object, ip: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${t.url}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    post,
    signIn: (login: string, password: string, ip: string) => post('/user/auth', { key: encodeAuthKey(login, password) }, ip),
    register: (login: string, ip: string, headers: Record<string, string> = {}) => post('/user/register', { login, name: `Name ${login}`, password: `${login}-password-1` }, ip, headers),
  };
}

describe(`sign-in throttling does not lock others out (${DB})`, () => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    c = client(t);
  });
  afterAll(async () => { await t?.close(); });

  test('wrong passwords for admin from address A: A is throttled, admin still signs in from address B', async () => {
    const A = '203.0.113.7';
    const B = '198.51.100.9';
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await c.signIn(ADMIN.login, `guess-${i}`, A)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    const fromB = await c.signIn(ADMIN.login, ADMIN.password, B);
    expect(fromB.status).toBe(200);
    expect(fromB.body.result.role).toBe(1);
    // A keeps being throttled, even with the right password (it is not even verified).
    const again = await c.signIn(ADMIN.login, ADMIN.password, A);
    expect(again.status).toBe(429);
    expect(again.body.message).toMatch(new RegExp(`^${MSG.tooManyAttempts} \\(in \\d+ s\\)$`));
    // The other letter case is the same login for the limiter.
    expect((await c.signIn('ADMIN', ADMIN.password, A)).status).toBe(429);
  });

  test('an address guessing across many logins is throttled for every login', async () => {
    const C = '192.0.2.44';
    for (let i = 0; i < LOGIN_FAILURES_PER_IP; i++) expect((await c.signIn(`nobody${i}`, 'wrong-pass', C)).status).toBe(401);
    expect((await c.signIn('someone-else', 'wrong-pass', C)).status).toBe(429);
    expect((await c.signIn(ADMIN.login, ADMIN.password, C)).status).toBe(429);
    expect((await c.signIn(ADMIN.login, ADMIN.password, '192.0.2.45')).status).toBe(200);
  });

  test('an inactive account answers as a wrong password does, with the right password or not, and both count as failures', async () => {
    const E = '100.64.1.1';
    const made = await c.register('sleeper', E);
    expect(made.status).toBe(200);
    const right = await c.signIn('sleeper', 'sleeper-password-1', E);
    const wrong = await c.signIn('sleeper', 'not-the-password', E);
    expect([right.status, wrong.status]).toEqual([401, 401]);
    expect(right.body).toEqual(wrong.body);
    expect(right.body).toMatchObject({ status: 'error', message: MSG.badCredentials });
    // Both were failures of (sleeper, E): the right password counts like the wrong one until the address is throttled.
    for (let i = 2; i < LOGIN_FAILURES_PER_LOGIN; i++) expect((await c.signIn('sleeper', 'sleeper-password-1', E)).status).toBe(401);
    expect((await c.signIn('sleeper', 'sleeper-password-1', E)).status).toBe(429);
    // Activated, it signs in (from another address); deactivated again, the same answer as a wrong password.
    const admin = (await t.session(1)).hash;
    await t.ok(admin, 'user.save', { uid: made.body.result.uid, active: 1 });
    expect((await c.signIn('sleeper', 'sleeper-password-1', '100.64.1.2')).status).toBe(200);
    await t.ok(admin, 'user.save', { uid: made.body.result.uid, active: 0 });
    const off = await c.signIn('sleeper', 'sleeper-password-1', '100.64.1.3');
    expect([off.status, off.body]).toEqual([401, wrong.body]);
    // A key that is well-formed JSON but not base64 of login:password is refused input: 422 naming key (400 is for a body that is not JSON).
    const noColon = await c.post('/user/auth', { key: Buffer.from('no-colon-here').toString('base64') }, '100.64.1.4');
    expect([noColon.status, noColon.body.fields]).toEqual([422, { key: 'key must be base64 of login:password' }]);
  });

  test('logins are unique ignoring case; sign-in finds the account in any case; the spelling is kept', async () => {
    const D = '100.64.0.1';
    const taken = await c.register('ADMIN', D);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ status: 'rules', message: MSG.loginTaken });
    expect((await c.register('Admin', D)).status).toBe(409);

    const upper = await c.signIn('ADMIN', ADMIN.password, D);
    expect(upper.status).toBe(200);
    const me = await t.ok<{ login: string }>(upper.body.result.hash, 'user.me');
    expect(me.login).toBe(ADMIN.login);

    const made = await c.register('MixedCase', D);
    expect(made.status).toBe(200);
    const admin = await t.session(1);
    await t.ok(admin.hash, 'user.save', { uid: made.body.result.uid, active: 1 });
    const list = await t.ok<{ list: Array<{ uid: number; login: string }> }>(admin.hash, 'user.getList', { limit: 500 });
    expect(list.list.find((u) => u.uid === made.body.result.uid)?.login).toBe('MixedCase');
    const lower = await c.signIn('mixedcase', 'MixedCase-password-1', D);
    expect(lower.status).toBe(200);
    expect(lower.body.result.uid).toBe(made.body.result.uid);
    expect((await c.register('MIXEDCASE', D)).status).toBe(409);
  });

  test('the database itself refuses a login differing only in case', async () => {
    const repo = t.app.get<Repository<UserEntity>>(getRepositoryToken(UserEntity));
    const row = { name: 'Direct', role: 100, active: 0, password_hash: 'x', created_at: new Date(), last_login: null };
    await expect(repo.insert({ ...row, login: 'ADMIN' })).rejects.toThrow(/unique|duplicate/i);
    await expect(repo.insert({ ...row, login: 'mixedCASE' })).rejects.toThrow(/unique|duplicate/i);
    expect(await repo.count({ where: { login: 'admin' } })).toBe(1);
  });
});

describe(`registration: JSON from this site, throttled, capped (${DB})`, () => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  let admin: string;
  beforeAll(async () => {
    t = await startApp({ TRUST_PROXY: '1' });
    c = client(t);
    admin = (await t.session(1)).hash;
  });
  afterAll(async () => { await t?.close(); });

  const pending = async () => {
    const r = await t.ok<{ list: Array<{ uid: number; active: number; login: string }> }>(admin, 'user.getList', { limit: 500 });
    return r.list.filter((u) => u.active === 0);
  };

  test('a form-encoded or text body is refused with 415 and creates nothing', async () => {
    const form = await c.post('/user/register', 'login=formuser&name=F&password=form-password-1', '10.1.0.1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ status: 'http', code: 415 });
    const text = await c.post('/user/register', JSON.stringify({ login: 'textuser', name: 'T', password: 'text-password-1' }), '10.1.0.1', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const multipart = await c.post('/user/register', '--x\r\n\r\n--x--', '10.1.0.1', { 'content-type': 'multipart/form-data; boundary=x' });
    expect(multipart.status).toBe(415);
    expect((await pending()).map((u) => u.login)).toEqual([]);
  });

  test('every /api write is JSON only: a form-encoded RPC batch or REST save is refused', async () => {
    const rpc = await fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', User: admin }, body: 'methods=user.me' });
    expect(rpc.status).toBe(415);
    const save = await fetch(`${t.url}/api/cfg/save_app_cron`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', User: admin }, body: 'name=x&cmd=curl%3Dhttp%3A%2F%2Fexample.com%2F' });
    expect(save.status).toBe(415);
    expect(await t.ok<unknown[]>(admin, 'cfg.getAppCron', {})).toEqual([]);
    // A write without a body (sign-out) needs no content type.
    const s = await c.signIn(ADMIN.login, ADMIN.password, '10.1.0.2');
    const out = await fetch(`${t.url}/api/user/logout`, { method: 'POST', headers: { User: s.body.result.hash } });
    expect(out.status).toBe(200);
  });

  test('a cross-site request is refused with 403 (Sec-Fetch-Site, or Origin naming another host)', async () => {
    const ip = '10.1.0.3';
    expect((await c.register('crosssite1', ip, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).status).toBe(403);
    expect((await c.register('crosssite2', ip, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await c.register('crosssite3', ip, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await c.register('crosssite4', ip, { origin: 'null' })).status).toBe(403);
    const r = await c.register('crosssite5', ip, { 'sec-fetch-site': 'cross-site' });
    expect(r.body).toMatchObject({ status: 'error', code: 403 });
    // The console's own page (same origin) and non-browser clients pass.
    expect((await c.register('samesite1', ip, { 'sec-fetch-site': 'same-origin', origin: t.url })).status).toBe(200);
    expect((await c.register('samesite2', ip, { origin: t.url })).status).toBe(200);
    expect((await pending()).map((u) => u.login).sort()).toEqual(['samesite1', 'samesite2']);
  });

  test(`the ${REGISTRATIONS_PER_IP + 1}th registration from one address within the hour answers 429 with the wait`, async () => {
    const ip = '10.1.0.4';
    for (let i = 0; i < REGISTRATIONS_PER_IP; i++) expect((await c.register(`flood${i}`, ip)).status).toBe(200);
    const sixth = await c.register('flood-next', ip);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(new RegExp(`^${MSG.tooManyRegistrations} \\(in \\d+ s\\)$`));
    expect((await pending()).some((u) => u.login === 'flood-next')).toBe(false);
    // Another address is not affected.
    expect((await c.register('flood-next', '10.1.0.5')).status).toBe(200);
  });

  test(`registration closes while ${PENDING_ACCOUNTS_MAX} accounts wait for an admin, and opens again after a review`, async () => {
    let n = 0;
    let ipIndex = 10;
    while ((await pending()).length < PENDING_ACCOUNTS_MAX) {
      const r = await c.register(`pending${n++}`, `10.2.0.${ipIndex}`);
      expect(r.status).toBe(200);
      if (n % REGISTRATIONS_PER_IP === 0) ipIndex++;
    }
    const refused = await c.register('one-too-many', '10.3.0.1');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 'error', message: MSG.registrationClosed });
    expect(refused.body.message).toMatch(/closed until an administrator reviews/);
    const waiting = await pending();
    expect(waiting).toHaveLength(PENDING_ACCOUNTS_MAX);
    // An admin activates one: there is room again.
    const list = await t.ok<{ list: Array<{ uid: number; login: string }> }>(admin, 'user.getList', { limit: 500 });
    await t.ok(admin, 'user.save', { uid: list.list.find((u) => u.login === 'pending0')!.uid, active: 1 });
    expect((await c.register('one-too-many', '10.3.0.1')).status).toBe(200);
    // Full again: removing a junk pending account (audited, never one's own) makes room too.
    expect((await c.register('junk-after', '10.3.0.2')).status).toBe(403);
    const junk = (await pending()).find((u) => u.login === 'pending1')!;
    expect(await t.ok(admin, 'user.remove', { uid: junk.uid })).toEqual({ message: 'Delete ok!' });
    expect((await pending()).some((u) => u.login === 'pending1')).toBe(false);
    expect((await c.register('junk-after', '10.3.0.2')).status).toBe(200);
    const me = await t.ok<{ uid: number }>(admin, 'user.me');
    expect((await t.rpc(admin, 'user.remove', { uid: me.uid })).env).toMatchObject({ status: 'rules', code: 422, message: 'You cannot remove your own account', fields: { uid: expect.any(String) } });
    expect((await t.rpc(admin, 'user.save', { uid: me.uid, active: 0 })).env).toMatchObject({ status: 'rules', code: 422, fields: { active: 'You cannot deactivate your own account' } });
    expect((await t.rpc(admin, 'user.remove', { uid: 999999 })).env).toMatchObject({ code: 404 });
    const audit = await t.ok<{ list: Array<{ method: string; target: string | null }> }>(admin, 'audit.getList', { method: 'user.remove', limit: 10 });
    expect(audit.list.some((r) => r.target?.includes('pending1'))).toBe(true);
  });
});
