import { encodeAuthKey } from '../../src/contracts/auth.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await startApp(); });
afterAll(async () => { await t?.close(); });

describe(`platform on ${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'}`, () => {
  test('health answers 200 with the database up', async () => {
    const r = await t.rest<{ status: string; result: { db: string } }>(null, 'GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body.result.db).toBe('up');
  });

  test("API answers carry helmet's headers and no-store, never an ETag, on every path of the request (docs/architecture.md \"Request path\")", async () => {
    const admin = await t.session(1);
    const batch = JSON.stringify({ methods: ['user.me'], args: [null] });
    const answers = await Promise.all([
      // health without and with a session header; HEAD; a 404; an RPC batch; a 401
      fetch(`${t.url}/api/health`),
      fetch(`${t.url}/api/health`, { headers: { User: admin.hash } }),
      fetch(`${t.url}/api/health/`, { method: 'HEAD' }),
      fetch(`${t.url}/api/no-such-route`),
      fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: admin.hash }, body: batch }),
      fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 404, 200, 401]);
    for (const r of answers) {
      expect(r.headers.get('content-security-policy')).toBe(
        "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
      );
      expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(r.headers.get('strict-transport-security')).toBeNull();
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(r.headers.get('etag')).toBeNull();
      expect(r.headers.get('x-powered-by')).toBeNull();
    }
    const [plain, viaGuard] = await Promise.all([answers[0].json(), answers[1].json()]) as Array<{ status: string; result: Record<string, unknown> }>;
    expect(Object.keys(plain.result).sort()).toEqual(Object.keys(viaGuard.result).sort());
    expect(plain.result.db).toBe('up');
  });

  test('outside /api the site answers GET and HEAD: deep links get index.html, a missing asset a JSON 404; other methods reach the router', async () => {
    const [deep, head, asset, post] = await Promise.all([
      fetch(`${t.url}/srv/srv_map?page=2`),
      fetch(`${t.url}/book/list`, { method: 'HEAD' }),
      fetch(`${t.url}/assets/no-such-file.js`),
      fetch(`${t.url}/srv/srv_map`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    ]);
    expect([deep.status, head.status, asset.status, post.status]).toEqual([200, 200, 404, 404]);
    expect(deep.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8$/i);
    expect(await deep.text()).toMatch(/<div id="root">/);
    expect(deep.headers.get('cache-control')).toBe('no-cache');
    expect(deep.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(await asset.json()).toEqual({ status: 'http', message: 'Cannot GET /assets/no-such-file.js', code: 404 });
    expect(await post.json()).toMatchObject({ status: 'http', code: 404 });
    // The node agents' paths are not the console's: a JSON 404, not the UI.
    const sync = await fetch(`${t.url}/sync/logs`);
    expect([sync.status, await sync.json()]).toEqual([404, expect.objectContaining({ status: 'http', code: 404 })]);
  });

  test('a JSON body is an object or an array (body-parser strict mode); an empty one is {}', async () => {
    const { hash } = await t.session(1);
    const send = (body: string) => fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', User: hash }, body });
    const scalar = await send('"user.me"');
    expect([scalar.status, await scalar.json()]).toEqual([400, { status: 'parse', message: 'Malformed JSON body: a JSON object or array is expected', code: 400 }]);
    const empty = await send('');
    expect([empty.status, (await empty.json()).message]).toEqual([422, expect.stringMatching(/methods/)]);
    const ok = await send(' {"methods": ["user.me"], "args": [null]}');
    expect([ok.status, (await ok.json())[0].status]).toEqual([200, 'ok']);
  });

  test('login answers the session values of 000 §3 and the hash works', async () => {
    const r = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey(ADMIN.login, ADMIN.password) });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(Object.keys(r.body.result).sort()).toEqual(['atime', 'hash', 'name', 'role', 'uid']);
    expect(r.body.result.role).toBe(1);
    const me = await t.rpc<any>(r.body.result.hash, 'user.me');
    expect(me.env).toMatchObject({ status: 'ok', result: { login: ADMIN.login } });
  });

  test('wrong credentials answer 401 with a clear message', async () => {
    const r = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey(ADMIN.login, 'nope-nope') });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: 'error', message: 'Wrong login or password' });
  });

  test('repeated failures for one login are throttled with 429', async () => {
    const key = encodeAuthKey('victim', 'wrong-password');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await t.rest(null, 'POST', '/user/auth', { key })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
  });

  test('credentials are never accepted in a URL', async () => {
    const r = await t.rest<any>(null, 'GET', `/user/auth?key=${encodeAuthKey(ADMIN.login, ADMIN.password)}`);
    expect(r.status).toBe(405);
    expect(r.body.status).not.toBe('ok');
  });

  test('register creates an inactive role-100 account that cannot sign in until activated', async () => {
    const reg = await t.rest<any>(null, 'POST', '/user/register', { login: 'newbie', name: 'New Bie', password: 'newbie-pass-1' });
    expect(reg.body.status).toBe('ok');
    const denied = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey('newbie', 'newbie-pass-1') });
    expect(denied.status).toBe(401);
    expect(denied.body.message).toBe('Wrong login or password'); // as a wrong password: the answer does not tell that this one was right
    const admin = await t.session(1);
    const list = await t.rpc<any>(admin.hash, 'user.getList', {});
    const row = list.env.status === 'ok' && list.env.result.list.find((u: any) => u.login === 'newbie');
    expect(row).toMatchObject({ role: 100, active: 0 });
    expect(JSON.stringify(list.env)).not.toMatch(/password|argon/);
    const saved = await t.rpc(admin.hash, 'user.save', { uid: row.uid, active: 1 });
    expect(saved.env.status).toBe('ok');
    const ok = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey('newbie', 'newbie-pass-1') });
    expect(ok.status).toBe(200);
    const dup = await t.rest<any>(null, 'POST', '/user/register', { login: 'newbie', name: 'x', password: 'another-pass-1' });
    expect(dup.status).toBe(409);
  });

  test('register validates its fields with messages that name them', async () => {
    const r = await t.rest<any>(null, 'POST', '/user/register', { login: '', name: 'x', password: 'short' });
    expect(r.status).toBe(422);
    expect(r.body.status).toBe('rules');
    expect(Object.keys(r.body.fields).sort()).toEqual(['login', 'password']);
  });

  test('logout ends the session', async () => {
    const r = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey(ADMIN.login, ADMIN.password) });
    const hash = r.body.result.hash;
    expect((await t.rpc(hash, 'user.me')).status).toBe(200);
    expect((await t.rest(hash, 'POST', '/user/logout')).status).toBe(200);
    expect((await t.rpc(hash, 'user.me')).status).toBe(401);
  });

  test('an RPC batch answers one envelope per method in order; one failure does not fail the others', async () => {
    const { hash } = await t.session(1);
    const r = await t.rest<any[]>(hash, 'POST', '', { methods: ['user.me', 'no.such.method', 'user.save', 'audit.getList'], args: [null, {}, { uid: 'x' }, { limit: 5 }], host: 0 });
    expect(r.status).toBe(200);
    expect(r.body.map((e) => e.status)).toEqual(['ok', 'error', 'rules', 'ok']);
    expect(r.body[1].message).toBe('Unknown method: no.such.method');
    expect(r.body[2].fields).toHaveProperty('uid');
  });

  test('bad input answers 4xx envelopes, never a stack trace', async () => {
    const { hash } = await t.session(1);
    const malformed = await fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: hash }, body: '{"methods": [' });
    expect(malformed.status).toBe(400);
    const bodies: unknown[] = [await malformed.json()];
    expect(bodies[0]).toMatchObject({ status: 'parse' });
    // Past BODY_LIMIT for a session that may not upload; past the upload limit (STORAGE_MAX_MB as
    // base64, docs/architecture.md "Storage") for an admin's.
    const viewer = (await t.session(100)).hash;
    for (const [user, size] of [[viewer, 2_000_000], [hash, 15_000_000]] as const) {
      const big = await fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: user }, body: JSON.stringify({ methods: ['user.me'], args: ['x'.repeat(size)] }) });
      expect(big.status).toBe(413);
      bodies.push(await big.json());
      expect(bodies.at(-1)).toMatchObject({ status: 'http' });
    }
    const wrongType = await t.rest<any>(hash, 'POST', '', { methods: 'user.me' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.message).toMatch(/methods/);
    const unknown = await t.rest<any>(hash, 'GET', '/definitely/not/here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe('http');
    for (const body of bodies) expect(JSON.stringify(body)).not.toMatch(/at .*\.js:\d+/);
  });

  test('state-changing calls are audited with secrets masked', async () => {
    const { hash } = await t.session(1);
    const reg = await t.rest<any>(null, 'POST', '/user/register', { login: 'audited', name: 'A', password: 'secret-pass-99' });
    await t.rpc(hash, 'user.save', { uid: reg.body.result.uid, password: 'another-secret-1' });
    const r = await t.rpc<any>(hash, 'audit.getList', { method: 'user.save' });
    expect(r.env.status).toBe('ok');
    const row = r.env.status === 'ok' && r.env.result.list[0];
    expect(row).toMatchObject({ method: 'user.save', login: ADMIN.login, outcome: 'ok' });
    expect(row.args).toContain('***');
    const all = JSON.stringify((await t.rpc<any>(hash, 'audit.getList', { limit: 500 })).env);
    expect(all).not.toContain('another-secret-1');
    expect(all).not.toContain('secret-pass-99');
    expect(all).toContain('POST /api/user/register');
  });

  test('an admin cannot lock themselves out', async () => {
    const s = await t.session(1);
    const r = await t.rpc<any>(s.hash, 'user.save', { uid: s.uid, active: 0 });
    expect(r.env.status).toBe('rules');
  });
});
