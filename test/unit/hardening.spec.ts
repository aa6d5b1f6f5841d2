/**
 * Issue 7 units: the sign-in and registration limiters (no lockout of others), the one masking
 * function shared by the audit log and the logger, the cron URL credentials helpers, and the
 * /api write guard (JSON only, same site).
 */
import type { Request } from 'express';
import { splitUrlUserinfo } from '../../src/contracts/cron.js';
import { summarizeArgs } from '../../src/core/audit/audit.service.js';
import { maskSecrets, maskUrlCredentials } from '../../src/core/audit/mask.js';
import { LoginLimiter, RegistrationLimiter, SlidingWindow } from '../../src/core/auth/login-limiter.js';
import { isUniqueViolation } from '../../src/core/database/db-errors.js';
import { crossSite, isJson } from '../../src/core/http/api-guard.js';
import { basicAuthorization, keptUserinfo, originOf } from '../../src/modules/cron/cron-secret.js';

const W = 15 * 60_000;

describe('login limiter: per (login, address), per address, and a slow mode per login', () => {
  test('five failures from A lock A out of that login only: B signs in, A stays throttled until the window passes', () => {
    const l = new LoginLimiter(5, 20, W, 100);
    for (let i = 0; i < 5; i++) l.fail('A', 'admin', 1000 + i);
    expect(l.blockedFor('A', 'admin', 2000)).toBeGreaterThan(0);
    expect(l.blockedFor('A', 'ADMIN', 2000)).toBeGreaterThan(0);
    expect(l.blockedFor('B', 'admin', 2000)).toBe(0);
    l.succeed('B', 'admin');
    expect(l.blockedFor('A', 'admin', 2000)).toBeGreaterThan(0);
    // The wait is counted from the oldest failure that still counts.
    expect(l.blockedFor('A', 'admin', 1000 + W - 10_000)).toBe(10);
    expect(l.blockedFor('A', 'admin', 1004 + W)).toBe(0);
  });

  test('a success clears only its own (login, address) count', () => {
    const l = new LoginLimiter(5, 20, W, 100);
    for (let i = 0; i < 4; i++) l.fail('A', 'bob', 1000);
    for (let i = 0; i < 4; i++) l.fail('B', 'bob', 1000);
    l.succeed('A', 'bob');
    l.fail('A', 'bob', 1001);
    l.fail('B', 'bob', 1001);
    expect(l.blockedFor('A', 'bob', 1002)).toBe(0);
    expect(l.blockedFor('B', 'bob', 1002)).toBeGreaterThan(0);
  });

  test('an address is throttled for every login after 20 failures across logins', () => {
    const l = new LoginLimiter(5, 20, W, 100);
    for (let i = 0; i < 20; i++) l.fail('C', `user${i}`, 1000);
    expect(l.blockedFor('C', 'fresh', 1001)).toBeGreaterThan(0);
    expect(l.blockedFor('D', 'fresh', 1001)).toBe(0);
  });

  test('past the per-login cap an address gets one failure for that login, an address without failures still tries', () => {
    const l = new LoginLimiter(5, 20, W, 100);
    for (let i = 0; i < 100; i++) l.fail(`10.0.${i >> 8}.${i & 255}`, 'admin', 1000);
    expect(l.blockedFor('10.0.0.1', 'admin', 1001)).toBeGreaterThan(0); // one failure each: enough now
    expect(l.blockedFor('172.16.0.1', 'admin', 1001)).toBe(0); // never failed: not refused
    expect(l.blockedFor('10.0.0.1', 'other', 1001)).toBe(0);
    expect(l.blockedFor('10.0.0.1', 'admin', 1001 + W)).toBe(0);
  });

  test('memory stays bounded: expired keys are swept', () => {
    const w = new SlidingWindow(1000);
    for (let i = 0; i < 25_000; i++) w.add(`k${i}`, i < 20_000 ? 0 : 5000);
    expect(w.size).toBeLessThanOrEqual(10_000);
  });
});

describe('registration limiter', () => {
  test('five per address in the hour, then the wait; other addresses unaffected', () => {
    const r = new RegistrationLimiter(5, 3600_000);
    for (let i = 0; i < 5; i++) expect(r.take('A', 1000 + i)).toBe(0);
    expect(r.take('A', 2000)).toBe(3599);
    expect(r.take('B', 2000)).toBe(0);
    expect(r.take('A', 1000 + 3600_000)).toBe(0);
  });
});

describe('masking shared by the audit log and the logger', () => {
  test('URL credentials are masked in any text', () => {
    expect(maskUrlCredentials('curl=http://user:s3cret@127.0.0.1:8080/x|method=POST')).toBe('curl=http://user:***@127.0.0.1:8080/x|method=POST');
    expect(maskUrlCredentials('see https://tok123@api.example.com/v1 and ftp://a:b@h')).toBe('see https://***@api.example.com/v1 and ftp://a:***@h');
    expect(maskUrlCredentials('http://u:p@ss@host/x')).toBe('http://u:***@host/x');
    expect(maskUrlCredentials('mail admin@example.com, http://example.com/?a=b@c')).toBe('mail admin@example.com, http://example.com/?a=b@c');
    expect(maskUrlCredentials('{"url":"https://u:pw@h/"}')).toBe('{"url":"https://u:***@h/"}');
  });

  test('secret-looking fields are masked at any depth, URL credentials in every string', () => {
    const m = maskSecrets({ sshpass: 'hunter2', nested: { private_key: 'K', url: 'http://a:b@h/' }, list: [{ token: 't' }, 'https://x:y@z'], empty: '', n: 5 });
    expect(m).toEqual({ sshpass: '***', nested: { private_key: '***', url: 'http://a:***@h/' }, list: [{ token: '***' }, 'https://x:***@z'], empty: '', n: 5 });
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(maskSecrets(circular)).toEqual({ a: 1, self: '[circular]' });
  });

  test('the audit summary masks URL credentials too', () => {
    const s = summarizeArgs({ name: 'hook', cmd: 'curl=http://user:s3cret@host/x' });
    expect(s).not.toContain('s3cret');
    expect(s).toContain('user:***@host');
  });
});

describe('cron URL credentials', () => {
  test('split, mask, keep', () => {
    expect(splitUrlUserinfo('http://user:s3cret@host:81/x?a=b')).toEqual({ userinfo: 'user:s3cret', bare: 'http://host:81/x?a=b', masked: 'http://user:***@host:81/x?a=b', isMask: false });
    expect(splitUrlUserinfo('https://tok@host')).toMatchObject({ masked: 'https://***@host', isMask: false });
    expect(splitUrlUserinfo('https://user:***@host/')).toMatchObject({ isMask: true });
    expect(splitUrlUserinfo('https://***@host/')).toMatchObject({ isMask: true });
    expect(splitUrlUserinfo('https://host/a@b')).toBeNull();
    expect(keptUserinfo('other:***', 'user:s3cret')).toBe('other:s3cret');
    expect(keptUserinfo('***', 'tok')).toBe('tok');
    expect(originOf('http://user:***@Host:81/x')).toBe('http://host:81');
    expect(basicAuthorization('us%40r:p%3Ass')).toBe('Basic ' + Buffer.from('us@r:p:ss').toString('base64'));
    expect(basicAuthorization('tok')).toBe('Basic ' + Buffer.from('tok:').toString('base64'));
  });
});

describe('the /api write guard', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as Request;
  test('JSON content types', () => {
    expect(isJson('application/json')).toBe(true);
    expect(isJson('Application/JSON; charset=utf-8')).toBe(true);
    expect(isJson('application/x-www-form-urlencoded')).toBe(false);
    expect(isJson('text/plain')).toBe(false);
    expect(isJson(undefined)).toBe(false);
  });
  test('cross-site by Sec-Fetch-Site, else by Origin against Host (X-Forwarded-Host behind a trusted proxy)', () => {
    expect(crossSite(req({ 'sec-fetch-site': 'cross-site' }), false)).toBe(true);
    expect(crossSite(req({ 'sec-fetch-site': 'same-site' }), false)).toBe(true);
    expect(crossSite(req({ 'sec-fetch-site': 'same-origin', origin: 'https://elsewhere' }), false)).toBe(false);
    expect(crossSite(req({ host: 'console:3000' }), false)).toBe(false);
    expect(crossSite(req({ host: 'console:3000', origin: 'http://console:3000' }), false)).toBe(false);
    expect(crossSite(req({ host: 'console:3000', origin: 'https://evil.example' }), false)).toBe(true);
    expect(crossSite(req({ host: 'console:3000', origin: 'null' }), false)).toBe(true);
    expect(crossSite(req({ host: '127.0.0.1:3000', origin: 'https://ops.example.com', 'x-forwarded-host': 'ops.example.com' }), true)).toBe(false);
    expect(crossSite(req({ host: '127.0.0.1:3000', origin: 'https://ops.example.com', 'x-forwarded-host': 'ops.example.com' }), false)).toBe(true);
  });
});

test('unique violations are recognised on both drivers', () => {
  expect(isUniqueViolation({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe(true);
  expect(isUniqueViolation({ code: 'ER_DUP_ENTRY' })).toBe(true);
  expect(isUniqueViolation({ driverError: { code: 'ER_DUP_ENTRY' } })).toBe(true);
  expect(isUniqueViolation({ code: 'SQLITE_BUSY' })).toBe(false);
  expect(isUniqueViolation(new Error('x'))).toBe(false);
});
