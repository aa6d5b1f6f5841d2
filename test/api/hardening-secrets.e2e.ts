/**
 * Issue 7, secrets and logs, on the real app and a real database (SQLite, and MariaDB with
 * TEST_DATABASE_URL):
 * - every log line is JSON through the one logger and never holds query parameters (argon2 hashes,
 *   passwords), also when parallel registrations of one login fail on the unique key;
 * - credentials in a cron task's URL are sealed, masked in answers and in the audit, kept when the
 *   masked form is saved back, replaced or cleared, and sent by the runner as Basic auth;
 * - every /api answer is no-store; the data directory, the SQLite file and its WAL are the owner's only.
 * Issue 18 (one splitter, one masker): passwords with quotes, '<', '`', spaces, tabs, '@', ':', '/',
 * '?', '#', '%' and non-ASCII, in a cron URL's user part, as secret query parameters and as
 * `arg=password=` arguments: nowhere in answers, audit rows or log lines, sealed in the database,
 * kept when the masked form is saved back, and sent for real by a run.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { encodeAuthKey } from '../../src/contracts/auth.js';
import type { CronRunView, CronTaskView } from '../../src/contracts/cron.js';
import { MSG } from '../../src/contracts/messages.js';
import { JsonLogger } from '../../src/core/logger.js';
import { prng } from '../../src/core/prng.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

jest.setTimeout(120_000);
const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

describe(`logs are JSON lines without query parameters (${DB})`, () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const logger = new JsonLogger('trace', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
    t = await startApp({ TRUST_PROXY: '1', LOG_LEVEL: 'trace' }, { logger });
  });
  afterAll(async () => { await t?.close(); });

  test('20 parallel registrations of one login: one account, 19 answers 409, every line JSON, no hash or password', async () => {
    const password = 'race-password-Zq81';
    // Whatever the process writes outside the logger (TypeORM's own console logger did) is captured too.
    const stray: string[] = [];
    const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug, out: process.stdout.write, err: process.stderr.write };
    const grab = (...a: unknown[]) => void stray.push(a.map(String).join(' '));
    Object.assign(console, { log: grab, info: grab, warn: grab, error: grab, debug: grab });
    process.stdout.write = ((chunk: unknown) => { stray.push(String(chunk)); return true; }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown) => { stray.push(String(chunk)); return true; }) as typeof process.stderr.write;
    let answers: Array<{ status: number; body: any }>;
    try {
      answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${t.url}/api/user/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.20.0.${i + 1}` },
            body: JSON.stringify({ login: 'racer', name: 'Racer', password }),
          });
          return { status: res.status, body: await res.json() };
        }),
      );
    } finally {
      Object.assign(console, { log: saved.log, info: saved.info, warn: saved.warn, error: saved.error, debug: saved.debug });
      process.stdout.write = saved.out;
      process.stderr.write = saved.err;
    }
    const all = [...lines, ...stray.flatMap((s) => s.split('\n')).filter((l) => l.trim() !== '')];
    for (const line of all) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain('$argon2');
      expect(line).not.toContain(password);
    }
    expect(stray.join('')).toBe('');
    expect(lines.length).toBeGreaterThan(0);

    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => a.status)).toEqual(Array(19).fill(409));
    for (const a of refused) expect(a.body.message).toBe(MSG.loginTaken);

    const admin = await t.session(1);
    const users = await t.ok<{ list: Array<{ login: string }> }>(admin.hash, 'user.getList', { limit: 500 });
    expect(users.list.filter((u) => u.login.toLowerCase() === 'racer')).toHaveLength(1);
  });

  test('the logger masks secret fields and URL credentials like the audit log', () => {
    const before = lines.length;
    const logger = new JsonLogger('info', { write: (s: string) => void lines.push(s.trim()) });
    logger.log('fetching http://bob:hunter2@example.com/x', 'Test');
    logger.pino.info({ password: 'pw-1', nested: { token: 'tk-1', url: 'https://tok-2@example.com/' } }, 'with fields');
    const out = lines.slice(before).join('\n');
    expect(out).not.toMatch(/hunter2|pw-1|tk-1|tok-2/);
    expect(out).toContain('http://bob:***@example.com/x');
    expect(out).toContain('https://***@example.com/');
  });
});

// ---------------------------------------------------------------------------------------------

interface Peer { url: string; port: number; auth: Array<string | undefined>; close(): Promise<void> }

/** A local HTTP service that wants Basic auth user:s3cret (or whatever `want` says), and records what it got. */
async function startPeer(): Promise<Peer & { want: string }> {
  const peer = { auth: [] as Array<string | undefined>, want: 'user:s3cret' } as Peer & { want: string };
  const server: Server = createServer((req, res) => {
    peer.auth.push(req.headers.authorization);
    const ok = req.headers.authorization === 'Basic ' + Buffer.from(peer.want).toString('base64');
    res.statusCode = ok ? 200 : 401;
    res.end(ok ? 'welcome' : 'who are you');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  peer.port = (server.address() as AddressInfo).port;
  peer.url = `http://127.0.0.1:${peer.port}`;
  peer.close = async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); };
  return peer;
}

describe(`credentials in a cron task's URL (${DB})`, () => {
  let t: TestApp;
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let admin: string;
  let Id: number;
  beforeAll(async () => {
    peer = await startPeer();
    t = await startApp();
    admin = (await t.session(1)).hash;
  });
  afterAll(async () => { await t?.close(); await peer?.close(); });

  const stored = async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const rows: Array<{ cmd: string; cmd_secret: string | null }> = await ds.query('SELECT cmd, cmd_secret FROM cron_tasks WHERE Id = ?', [Id]);
    return rows[0];
  };
  const runOnce = async () => {
    const before = (await t.ok<{ count: number }>(admin, 'cron.getRuns', { Id })).count;
    await t.ok(admin, 'cron.executeTask', { Id });
    const runs = await waitFor('the run', async () => {
      const r = await t.ok<{ count: number; list: CronRunView[] }>(admin, 'cron.getRuns', { Id });
      return r.count > before && r.list[0];
    });
    return runs;
  };
  const everything = async () => JSON.stringify([
    await t.ok(admin, 'cfg.getAppCron', {}),
    (await t.rest(admin, 'GET', '/cfg/app_cron')).body,
    (await t.rest(admin, 'GET', `/cfg/app_cron?Id=${Id}`)).body,
    await t.ok(admin, 'audit.getList', { limit: 500 }),
    await t.ok(admin, 'cron.getRuns', { Id }),
  ]);

  test('sealed at rest, masked in answers and in the audit, sent as Basic auth by the runner', async () => {
    const saved = await t.rpc<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'with creds', cmd: `curl=${peer.url.replace('//', '//user:s3cret@')}/x`, suspended: 1 });
    expect(saved.env.status).toBe('ok');
    expect(JSON.stringify(saved.env)).not.toContain('s3cret');
    Id = (saved.env as { result: { Id: number } }).result.Id;

    const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id });
    expect(task.cmd).toBe(`curl=http://user:***@127.0.0.1:${peer.port}/x`);
    const row = await stored();
    expect(row.cmd).not.toContain('s3cret');
    expect(row.cmd_secret).toMatch(/^v1:/);
    expect(row.cmd_secret).not.toContain('s3cret');

    const run = await runOnce();
    expect(run).toMatchObject({ status: 'ok', message: 'HTTP 200 OK' });
    expect(peer.auth.at(-1)).toBe('Basic ' + Buffer.from('user:s3cret').toString('base64'));
    expect(await everything()).not.toContain('s3cret');
    const audit = JSON.stringify(await t.ok(admin, 'audit.getList', { method: 'cfg.saveAppCron' }));
    expect(audit).toContain('user:***@127.0.0.1');
  });

  test('saving the masked form back (as the edit form does) keeps the credentials', async () => {
    const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id });
    const r = await t.rest<any>(admin, 'POST', '/cfg/save_app_cron', { Id, name: 'renamed', cmd: task.cmd, second: task.second, minute: task.minute, hour: task.hour, day: task.day, month: task.month, week: task.week, suspended: 1 });
    expect(r.body.status).toBe('ok');
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect(peer.auth.at(-1)).toBe('Basic ' + Buffer.from('user:s3cret').toString('base64'));
    // A save without cmd (the pause switch) keeps them too.
    await t.ok(admin, 'cfg.saveAppCron', { Id, suspended: 1 });
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect((await stored()).cmd_secret).toMatch(/^v1:/);
  });

  test('the masked form is refused for another host, and for a task without stored credentials', async () => {
    const moved = await t.rpc(admin, 'cfg.saveAppCron', { Id, cmd: `curl=http://user:***@localhost:${peer.port}/x` });
    expect(moved.env).toMatchObject({ status: 'rules', code: 422, fields: { cmd: expect.stringContaining('type them again') } });
    const fresh = await t.rpc(admin, 'cfg.saveAppCron', { name: 'no creds yet', cmd: `curl=http://user:***@127.0.0.1:${peer.port}/x`, suspended: 1 });
    expect(fresh.env).toMatchObject({ status: 'rules', code: 422, fields: { cmd: expect.stringContaining('none stored') } });
  });

  test('typing new credentials replaces them; a URL without them clears them', async () => {
    peer.want = 'user:n3w-pass';
    await t.ok(admin, 'cfg.saveAppCron', { Id, cmd: `curl=http://user:n3w-pass@127.0.0.1:${peer.port}/x` });
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect(peer.auth.at(-1)).toBe('Basic ' + Buffer.from('user:n3w-pass').toString('base64'));
    const all = await everything();
    expect(all).not.toContain('n3w-pass');
    expect(all).not.toContain('s3cret');

    await t.ok(admin, 'cfg.saveAppCron', { Id, cmd: `curl=http://127.0.0.1:${peer.port}/x` });
    expect(await stored()).toMatchObject({ cmd_secret: null });
    expect(await runOnce()).toMatchObject({ status: 'error', message: 'HTTP 401 Unauthorized' });
    expect(peer.auth.at(-1)).toBeUndefined();
  });

  test('a token-only user part is masked whole', async () => {
    peer.want = 'tok-abc123:';
    const r = await t.ok<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'token', cmd: `curl=http://tok-abc123@127.0.0.1:${peer.port}/t`, suspended: 1 });
    const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id: r.Id });
    expect(task.cmd).toBe(`curl=http://***@127.0.0.1:${peer.port}/t`);
    Id = r.Id;
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect(await everything()).not.toContain('tok-abc123');
  });

  test('a task saved before sealing existed (credentials in clear in cmd) is sealed at start and still runs', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    peer.want = 'old:legacy-pw';
    await ds.query('UPDATE cron_tasks SET cmd = ?, cmd_secret = NULL WHERE Id = ?', [`curl=http://old:legacy-pw@127.0.0.1:${peer.port}/legacy`, Id]);
    await t.ok(admin, 'cron.reload');
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect(peer.auth.at(-1)).toBe('Basic ' + Buffer.from('old:legacy-pw').toString('base64'));
    // What the engine does at start (onApplicationBootstrap), called again here on the same app.
    const { CronEngine } = await import('../../src/modules/cron/cron-engine.js');
    await (t.app.get(CronEngine) as unknown as { sealUrlCredentials(): Promise<void> }).sealUrlCredentials();
    const row = await stored();
    expect(row.cmd).toBe(`curl=http://old:***@127.0.0.1:${peer.port}/legacy`);
    expect(row.cmd_secret).toMatch(/^v1:/);
    await t.ok(admin, 'cron.reload');
    expect(await runOnce()).toMatchObject({ status: 'ok' });
    expect(peer.auth.at(-1)).toBe('Basic ' + Buffer.from('old:legacy-pw').toString('base64'));
  });
});

// ---------------------------------------------------------------------------------------------

/** Written in a URL's user part as a user would: only what ends the user part (/ ? # and the cmd's '|') and '%' percent-encoded. */
const inUserinfo = (pw: string) => pw.replace(/[%/?#|]/g, (c) => encodeURIComponent(c));
/** Written as a query value: '%', '&', '#', '|', '+' and tab percent-encoded, the rest raw. */
const inQuery = (pw: string) => pw.replace(/[%&#|+\t]/g, (c) => encodeURIComponent(c));

describe(`secrets of every kind in a cron cmd: one splitter, one masker (${DB})`, () => {
  const lines: string[] = [];
  let t: TestApp;
  let logger: JsonLogger;
  let admin: string;
  const got: Array<{ auth?: string; url: string; body: string }> = [];
  let server: Server;
  let port = 0;
  // The characters, then random printable ones (seeded).
  const r = prng(1818);
  const pool = [...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)), '\t', 'é', 'Ж', '€', '中'];
  const random = Array.from({ length: 4 }, () => Array.from({ length: 16 }, () => pool[Math.floor(r() * pool.length)]).join('') + "'\"<`@:/?#% \t");
  const passwords = ["Cron'QuoteSecret2", 'Cron"QuoteSecret2', 'Cron<Secret2', 'Cron`Secret2`', 'Cron Space Secret2', 'Cron\tTab\tSecret2', 'Sé:cr@t/?#%20x', ...random];
  /** Every form the password may take in text: as typed, as written in the cmd, JSON-escaped. */
  const formsOf = (pw: string) => [...new Set([pw, inUserinfo(pw), inQuery(pw)].flatMap((f) => [f, JSON.stringify(f).slice(1, -1)]))];
  const expectNowhere = (what: string, text: string, pw: string) => {
    for (const f of formsOf(pw)) expect([what, pw, text.includes(f)]).toEqual([what, pw, false]);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ auth: req.headers.authorization, url: req.url ?? '', body });
        res.end('ok');
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
    logger = new JsonLogger('trace', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
    t = await startApp({ LOG_LEVEL: 'trace' }, { logger });
    admin = (await t.session(1)).hash;
  });
  afterAll(async () => {
    await t?.close();
    server?.closeAllConnections();
    await new Promise((ok) => server?.close(ok));
  });

  const row = async (Id: number) => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const rows: Array<{ cmd: string; cmd_secret: string | null }> = await ds.query('SELECT cmd, cmd_secret FROM cron_tasks WHERE Id = ?', [Id]);
    return rows[0];
  };
  const run = async (Id: number) => {
    const before = (await t.ok<{ count: number }>(admin, 'cron.getRuns', { Id })).count;
    await t.ok(admin, 'cron.executeTask', { Id });
    return waitFor('the run', async () => {
      const runs = await t.ok<{ count: number; list: CronRunView[] }>(admin, 'cron.getRuns', { Id });
      return runs.count > before && runs.list[0];
    });
  };
  /** What anyone can read back: the tasks, the REST list, every audit row (list and one by one), the runs. */
  const readable = async (Id: number) => {
    const audit = await t.ok<{ list: Array<{ Id: number }> }>(admin, 'audit.getList', { limit: 500 });
    const ones = await Promise.all(audit.list.map((a) => t.ok(admin, 'audit.get', { Id: a.Id })));
    return JSON.stringify([
      await t.ok(admin, 'cfg.getAppCron', {}), await t.ok(admin, 'cfg.getAppCron', { Id }),
      (await t.rest(admin, 'GET', '/cfg/app_cron')).body, audit, ones, await t.ok(admin, 'cron.getRuns', { Id }),
    ]);
  };

  test.each(passwords.map((pw) => [JSON.stringify(pw), pw]))('password %s: URL user part, query token and password, arg=password=', async (_, pw) => {
    const arg = pw.replace(/\|/g, '!').replace(/&+/g, '&');
    const cmd = `curl=http://cronuser:${inUserinfo(pw)}@127.0.0.1:${port}/hook?x=1&token=${inQuery(pw)}&password=${inQuery(pw)}|method=POST|arg=password=${arg}&&x=2`;
    const logFrom = lines.length;
    const saved = await t.rpc<{ Id: number }>(admin, 'cfg.saveAppCron', { name: `secrets ${pw.length}`, cmd, suspended: 1 });
    expect(saved.env.status).toBe('ok');
    expectNowhere('save answer', JSON.stringify(saved.env), pw);
    const Id = (saved.env as { result: { Id: number } }).result.Id;

    // Answered masked, every secret `***`.
    const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id });
    expect(task.cmd).toBe(`curl=http://cronuser:***@127.0.0.1:${port}/hook?x=1&token=***&password=***|method=POST|arg=password=***&&x=2`);
    // Stored sealed: neither the cmd nor the sealed column holds it in clear.
    const stored = await row(Id);
    expect(stored.cmd).toBe(task.cmd);
    expect(stored.cmd_secret).toMatch(/^v1:/);
    expectNowhere('database row', JSON.stringify(stored), pw);

    // A run sends the real values.
    const want = { auth: 'Basic ' + Buffer.from(`cronuser:${pw}`, 'utf8').toString('base64'), token: pw, password: pw, body: { password: arg, x: '2' } };
    const sent = () => {
      const last = got.at(-1)!;
      const q = new URL(last.url, 'http://x').searchParams;
      return { auth: last.auth, token: q.get('token'), password: q.get('password'), body: Object.fromEntries(new URLSearchParams(last.body)) };
    };
    expect(await run(Id)).toMatchObject({ status: 'ok', message: 'HTTP 200 OK' });
    expect(sent()).toEqual(want);

    // The masked form saved back (as the edit form does) keeps them all.
    const back = await t.rest<any>(admin, 'POST', '/cfg/save_app_cron', { Id, name: task.name, cmd: task.cmd, second: task.second, minute: task.minute, hour: task.hour, day: task.day, month: task.month, week: task.week, suspended: 1 });
    expect(back.body.status).toBe('ok');
    expect((await row(Id)).cmd_secret).toMatch(/^v1:/);
    expect(await run(Id)).toMatchObject({ status: 'ok' });
    expect(sent()).toEqual(want);

    // Nowhere to read: answers, audit rows (cfg.saveAppCron as typed and saved back), runs, log lines.
    const audit = JSON.stringify(await t.ok(admin, 'audit.getList', { method: 'saveAppCron', limit: 5 }));
    expect(audit).toContain('cronuser:***@127.0.0.1');
    expect(audit).toContain('token=***&password=***');
    expect(audit).toContain('arg=password=***&&x=2');
    expectNowhere('readable', await readable(Id), pw);
    // The app writes no line with a cmd in these flows; a line that would (a message, a field, an error) goes through the same masker.
    logger.log(`cron task ${Id}: ${cmd}`, 'Cron');
    logger.pino.info({ args: { cmd }, url: cmd.slice(5, cmd.indexOf('|')) }, 'saved');
    logger.error(new Error(`run of ${cmd} failed`));
    const logged = lines.slice(logFrom);
    expect(logged.filter((l) => l.includes('cronuser:***@127.0.0.1') && l.includes('token=***&password=***'))).toHaveLength(3);
    expectNowhere('log lines', logged.join('\n'), pw);
  });

  test('an action task: arg=password= is sealed, masked, and the action gets the real one (the user signs in with it)', async () => {
    const user = await t.session(100);
    const uid = (await t.ok<{ uid: number }>(user.hash, 'user.me')).uid;
    const pw = "Act'ion\"<pw> `x` \t@:/?#%";
    const saved = await t.ok<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'reset', cmd: `path=user|method=save|arg=uid=${uid}&&password=${pw}`, suspended: 1 });
    const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id: saved.Id });
    expect(task.cmd).toBe(`path=user|method=save|arg=uid=${uid}&&password=***`);
    // Saved back masked: kept (and checked against the method's input with the real value).
    await t.ok(admin, 'cfg.saveAppCron', { Id: saved.Id, cmd: task.cmd });
    expect(await run(saved.Id)).toMatchObject({ status: 'ok' });
    const signIn = await t.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey('user100', pw) });
    expect(signIn.body.status).toBe('ok');
    expectNowhere('readable', await readable(saved.Id), pw);
    expectNowhere('log lines', lines.join('\n'), pw);
    expectNowhere('database row', JSON.stringify(await row(saved.Id)), pw);
  });

  test('*** with nothing stored, or sent to another address, is refused; a new value replaces the stored one', async () => {
    const fresh = await t.rpc(admin, 'cfg.saveAppCron', { name: 'nothing stored', cmd: `curl=http://127.0.0.1:${port}/h?token=***`, suspended: 1 });
    expect(fresh.env).toMatchObject({ status: 'rules', code: 422, fields: { cmd: "cmd: the query parameter 'token' shows *** but this task has none stored: type it" } });
    const { Id } = await t.ok<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'tok', cmd: `curl=http://127.0.0.1:${port}/h?token=first-T0ken`, suspended: 1 });
    const moved = await t.rpc(admin, 'cfg.saveAppCron', { Id, cmd: `curl=http://localhost:${port}/h?token=***` });
    expect(moved.env).toMatchObject({ status: 'rules', code: 422, fields: { cmd: expect.stringContaining('type them again') } });
    await t.ok(admin, 'cfg.saveAppCron', { Id, cmd: `curl=http://127.0.0.1:${port}/h?token=second-T0ken` });
    await run(Id);
    expect(new URL(got.at(-1)!.url, 'http://x').searchParams.get('token')).toBe('second-T0ken');
    const all = await readable(Id);
    expect(all).not.toContain('first-T0ken');
    expect(all).not.toContain('second-T0ken');
  });

  test('a task saved before query and argument secrets were sealed (in clear in cmd) is sealed at start and still runs', async () => {
    const { Id } = await t.ok<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'legacy', cmd: `curl=http://127.0.0.1:${port}/legacy`, suspended: 1 });
    const ds = t.app.get<DataSource>(getDataSourceToken());
    await ds.query('UPDATE cron_tasks SET cmd = ?, cmd_secret = NULL WHERE Id = ?', [`curl=http://127.0.0.1:${port}/legacy?api_key=legacy-K3y|method=POST|arg=secret=legacy-S3cret`, Id]);
    const { CronEngine } = await import('../../src/modules/cron/cron-engine.js');
    await (t.app.get(CronEngine) as unknown as { sealUrlCredentials(): Promise<void> }).sealUrlCredentials();
    const stored = await row(Id);
    expect(stored.cmd).toBe(`curl=http://127.0.0.1:${port}/legacy?api_key=***|method=POST|arg=secret=***`);
    expect(stored.cmd_secret).toMatch(/^v1:/);
    await t.ok(admin, 'cron.reload');
    await run(Id);
    expect(got.at(-1)).toMatchObject({ url: '/legacy?api_key=legacy-K3y', body: 'secret=legacy-S3cret' });
  });
});

// ---------------------------------------------------------------------------------------------

describe(`no-store answers and private files (${DB})`, () => {
  let t: TestApp;
  let sqliteApp: TestApp;
  const root = mkdtempSync(join(tmpdir(), 'hardening-'));
  const dataDir = join(root, 'data'); // does not exist yet: the console creates it
  beforeAll(async () => {
    t = await startApp();
    sqliteApp = await startApp({ DATA_DIR: dataDir, DATABASE_URL: `sqlite:${join(dataDir, 'console.sqlite')}` });
  });
  afterAll(async () => {
    await t?.close();
    await sqliteApp?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('every /api answer carries Cache-Control: no-store', async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const signIn = await post('/user/auth', JSON.stringify({ key: encodeAuthKey(ADMIN.login, ADMIN.password) }));
    expect(signIn.status).toBe(200);
    const { hash } = (await signIn.json()).result;
    const answers: Array<[string, Response, number]> = [
      ['sign-in', signIn, 200],
      ['rpc', await post('', JSON.stringify({ methods: ['user.me'], args: [null] }), { User: hash }), 200],
      ['rpc without session', await post('', JSON.stringify({ methods: ['user.me'], args: [null] })), 401],
      ['wrong password', await post('/user/auth', JSON.stringify({ key: encodeAuthKey(ADMIN.login, 'nope-nope') })), 401],
      ['404 under /api', await fetch(`${t.url}/api/no/such/thing`), 404],
      ['404 POST under /api', await post('/no/such/thing', '{}', { User: hash }), 404],
      ['malformed JSON', await post('', '{"methods": [', { User: hash }), 400],
      ['bad input', await post('/user/register', JSON.stringify({ login: '' })), 422],
      ['form body', await post('/user/register', 'login=a', { 'content-type': 'application/x-www-form-urlencoded' }), 415],
      ['health', await fetch(`${t.url}/api/health`), 200],
      ['REST read', await fetch(`${t.url}/api/cfg/app_cron`, { headers: { User: hash } }), 200],
    ];
    for (const [what, res, status] of answers) {
      expect([what, res.status]).toEqual([what, status]);
      expect([what, res.headers.get('cache-control')]).toEqual([what, 'no-store']);
    }
  });

  test('the data directory is 0700, the SQLite file, its WAL and secret.key are 0600', async () => {
    // A write, so the WAL holds pages.
    await sqliteApp.session(1);
    const mode = (p: string) => statSync(p).mode & 0o777;
    const db = join(dataDir, 'console.sqlite');
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(db)).toBe(0o600);
    expect(mode(`${db}-wal`)).toBe(0o600);
    expect(mode(`${db}-shm`)).toBe(0o600);
    expect(mode(join(dataDir, 'secret.key'))).toBe(0o600);
  });
});
