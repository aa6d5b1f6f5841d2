import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/config.js';
import { encodeAuthKey } from '../../src/contracts/auth.js';
import { notifyDurationMs } from '../../src/contracts/constants.js';
import { roleAllows } from '../../src/contracts/roles.js';
import { summarizeArgs } from '../../src/core/audit/audit.service.js';
import { LoginLimiter } from '../../src/core/auth/login-limiter.js';
import { SecretBox } from '../../src/core/crypto/secret-box.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cfg-'));

describe('configuration', () => {
  test('defaults: SQLite in DATA_DIR, port 3000, a generated secret kept in DATA_DIR', () => {
    const dir = tmp();
    const cfg = loadConfig({ DATA_DIR: dir });
    expect(cfg.port).toBe(3000);
    expect(cfg.database).toEqual({ type: 'better-sqlite3', database: join(dir, 'console.sqlite') });
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toBe(cfg.secretKey);
    expect(loadConfig({ DATA_DIR: dir }).secretKey).toBe(cfg.secretKey);
  });

  test('mysql:// and mariadb:// select MariaDB through mysql2', () => {
    expect(loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'mysql://root@127.0.0.1:3306/test' }).database).toEqual({ type: 'mariadb', url: 'mysql://root@127.0.0.1:3306/test' });
    expect(loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'mariadb://u:p@db/console' }).database).toEqual({ type: 'mariadb', url: 'mysql://u:p@db/console' });
  });

  test('the input stream keeps hour rows 35 days and day rows 400 by default; 0 keeps them', () => {
    expect(loadConfig({ DATA_DIR: tmp() }).stream).toEqual({ hoursRetentionDays: 35, daysRetentionDays: 400 });
    expect(loadConfig({ DATA_DIR: tmp(), STREAM_HOURS_RETENTION_DAYS: '0', STREAM_DAYS_RETENTION_DAYS: '0' }).stream).toEqual({ hoursRetentionDays: 0, daysRetentionDays: 0 });
  });

  test.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'postgres://x/y' }, 'DATABASE_URL'],
    [{ SECRET_KEY: 'short' }, 'SECRET_KEY'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ ADMIN_PASSWORD: '123' }, 'ADMIN_PASSWORD'],
    [{ STREAM_HOURS_RETENTION_DAYS: '1' }, 'STREAM_HOURS_RETENTION_DAYS'],
    [{ STREAM_DAYS_RETENTION_DAYS: '30' }, 'STREAM_DAYS_RETENTION_DAYS'],
  ])('a bad value stops the start with a message naming it: %o', (env, name) => {
    expect(() => loadConfig({ DATA_DIR: tmp(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: tmp(), ...env })).toThrow(new RegExp(`${name}:`));
  });
});

describe('secret box', () => {
  test('seals and opens; the sealed form does not contain the secret; another key cannot open it', () => {
    const box = new SecretBox('k'.repeat(32));
    const sealed = box.seal('p@ssw0rd');
    expect(sealed).not.toContain('p@ssw0rd');
    expect(box.open(sealed)).toBe('p@ssw0rd');
    expect(box.seal('p@ssw0rd')).not.toBe(sealed);
    expect(() => new SecretBox('x'.repeat(32)).open(sealed)).toThrow();
  });
});

describe('login limiter', () => {
  test('blocks a login from one address after 5 failures in the window and frees it after', () => {
    const l = new LoginLimiter(5, 20, 60_000);
    for (let i = 0; i < 4; i++) l.fail('1.1.1.1', 'bob', 1000 + i);
    expect(l.blockedFor('1.1.1.1', 'bob', 2000)).toBe(0);
    l.fail('1.1.1.1', 'BOB', 1500);
    expect(l.blockedFor('1.1.1.1', 'bob', 2000)).toBeGreaterThan(0);
    expect(l.blockedFor('3.3.3.3', 'bob', 2000)).toBe(0);
    expect(l.blockedFor('1.1.1.1', 'alice', 2000)).toBe(0);
    expect(l.blockedFor('1.1.1.1', 'bob', 62_000)).toBe(0);
  });
  test('blocks an address after 20 failures across logins', () => {
    const l = new LoginLimiter(5, 20, 60_000);
    for (let i = 0; i < 20; i++) l.fail('9.9.9.9', `user${i}`, 1000);
    expect(l.blockedFor('9.9.9.9', 'fresh', 1001)).toBeGreaterThan(0);
    expect(l.blockedFor('8.8.8.8', 'fresh', 1001)).toBe(0);
  });
});

describe('audit summaries', () => {
  test('mask secret-looking fields at any depth and bound the size', () => {
    expect(summarizeArgs({ sshkey: 'K1', key_data: 'K2', apiKey: 'K3' })).not.toMatch(/K1|K2|K3/);
    const s = summarizeArgs({ name: 'web1', sshpass: 'hunter2', nested: { private_key: 'KEY', token: 't' }, key: 'abc', list: [{ password: 'x' }] });
    expect(s).not.toMatch(/hunter2|KEY"|"t"|abc|"x"/);
    expect(s).toContain('web1');
    expect(summarizeArgs({ v: 'a'.repeat(10_000) }).length).toBeLessThan(2100);
  });
});

test('roles: lower is stronger, unset is 100', () => {
  expect(roleAllows(1, 10)).toBe(true);
  expect(roleAllows(10, 1)).toBe(false);
  expect(roleAllows(undefined, 100)).toBe(true);
  expect(roleAllows(undefined, 10)).toBe(false);
});

test('notification duration: max(3000 ms, length / 18 s)', () => {
  expect(notifyDurationMs('short')).toBe(3000);
  expect(notifyDurationMs('x'.repeat(180))).toBe(10_000);
});

test('auth key is base64 of login:password in UTF-8', () => {
  expect(Buffer.from(encodeAuthKey('админ', 'p:ss'), 'base64').toString('utf8')).toBe('админ:p:ss');
});
