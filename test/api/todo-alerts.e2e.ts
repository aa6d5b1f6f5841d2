/**
 * Todo alerts that arrive (issue 21 "Contract that acceptance checks rely on"; docs/todo.md "Delivery";
 * SQLite, or MariaDB with TEST_DATABASE_URL), against a real SMTP server on loopback
 * (test/helpers/smtp.ts) and real sockets:
 * - the contract: with SMTP_URL and ALERT_MAIL_TO, a todo with alert_type "1,0" and ts_alert ahead gives
 *   exactly one e-mail to that address whose subject holds the title, within 90 s of ts_alert, and the
 *   owner's every open tab gets the notification, which stays in their list (unread);
 * - a finished todo sends nothing; a 451 is tried again with back-off and its state is on the todo; a
 *   550 fails for good;
 * - a restart: an alert due while the console was down is sent at start, marked late; a failed e-mail
 *   left by the stopped process and a row claimed by a process that died are delivered by the next;
 * - two instances on one database and Redis: every due time is delivered exactly once, and the
 *   notification reaches the owner's tab on the other instance.
 * The scan interval is shortened (TODO_ALERT_SCAN_MS) and ts_alert is a few seconds ahead: the job
 * honours seconds.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { encodeAuthKey } from '../../src/contracts/auth.js';
import type { NotificationView } from '../../src/contracts/notifications.js';
import { MailClient } from '../../src/core/outside/mail.client.js';
import { TodoAlertsJob } from '../../src/jobs/todo-alerts.job.js';
import { TodoAlertsService } from '../../src/modules/todo/todo-alerts.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { migratedMysql } from '../helpers/mysql.js';
import { pass } from '../helpers/passes.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { sleep, waitFor } from '../helpers/wait.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const T = 120_000;
const nowSec = () => Math.floor(Date.now() / 1000);
const FAST = { TODO_ALERT_SCAN_MS: '200', TODO_ALERT_MAIL_RETRY_SECONDS: '1' };

let smtp: TestSmtp;
const apps: TestApp[] = [];
const sockets: Socket[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => { smtp = await startSmtp(); });
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const a of apps.splice(0).reverse()) await a.close();
  for (const c of cleanups.splice(0)) await c();
});
afterAll(async () => { await smtp?.close(); });

async function start(env: Record<string, string>): Promise<TestApp> {
  const a = await startApp({ SMTP_URL: smtp.url, ALERT_MAIL_TO: 'ops@example.org', ...FAST, ...env });
  // The MailClient's own quick tries (a 4xx answered at once) take milliseconds here, not seconds.
  a.app.get(MailClient).retry = { tries: 3, baseMs: 20, maxMs: 50 };
  apps.push(a);
  return a;
}

/** A database two processes can share and that outlives one of them: a SQLite file, or a MariaDB database of this test. */
async function sharedDatabase(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) {
    const m = await migratedMysql(process.env.TEST_DATABASE_URL);
    cleanups.push(() => m.drop());
    return m.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'todo-alerts-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'shared.sqlite')}`;
}

function connect(url: string, hash: string): Promise<Socket & { got: NotificationView[] }> {
  return new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false }) as Socket & { got: NotificationView[] };
    s.got = [];
    s.on('notify.new', (n: NotificationView) => s.got.push(n));
    s.on('connect', () => resolve(s));
    s.on('connect_error', reject);
    sockets.push(s);
  });
}

/** Signs in a user the shared database already has (TestApp.session registers new ones). */
async function signIn(a: TestApp, login: string): Promise<{ hash: string; uid: number }> {
  const r = await a.rest<any>(null, 'POST', '/user/auth', { key: encodeAuthKey(login, `${login}-password-1`) });
  if (r.body.status !== 'ok') throw new Error(JSON.stringify(r.body));
  return r.body.result;
}

const mailsWith = (title: string) => smtp.messages.filter((m) => m.subject.includes(title));
const db = (a: TestApp) => a.app.get<DataSource>(getDataSourceToken());
const deliveries = async (a: TestApp, hash: string, Id: number) => (await a.ok(hash, 'todo.get', { Id })).alerts.deliveries as any[];

describe(`todo alerts (${pass})`, () => {
  test('contract: one e-mail to ALERT_MAIL_TO with the title in its subject within 90 s of ts_alert; every open tab gets the notification', async () => {
    const t = await start({});
    const alice = await t.session(100, 'alice');
    const tab1 = await connect(t.url, alice.hash);
    const tab2 = await connect(t.url, alice.hash);
    const bobTab = await connect(t.url, (await t.session(100, 'bob')).hash);
    const title = `Renew the certificate ${pass}`;
    const ts_alert = nowSec() + 3;
    const { Id } = await t.ok(alice.hash, 'todo.insert', { title, text: '<p>for <b>books.example</b></p>', type: 6, alert_type: '1,0', ts_alert });
    expect(Number.isInteger(Id)).toBe(true);
    await waitFor('the alert e-mail', () => mailsWith(title).length > 0, 90_000);
    const arrived = Date.now();
    expect(arrived - ts_alert * 1000).toBeLessThan(90_000);
    expect(arrived).toBeGreaterThanOrEqual(ts_alert * 1000);
    const [mail] = mailsWith(title);
    expect(mail.to).toEqual(['ops@example.org']);
    expect(mail.subject).toBe(`Todo alert: ${title}`);
    expect(mail.text).toContain('books.example');
    expect(mail.text).toContain(`/todo/show/${Id}`);

    await waitFor('both tabs notified', () => tab1.got.length > 0 && tab2.got.length > 0, 10_000);
    for (const tab of [tab1, tab2]) expect(tab.got).toEqual([expect.objectContaining({ kind: 'todo.alert', title: `Todo: ${title}`, link: `/todo/show/${Id}`, level: 'info', read_at: 0 })]);
    const list = await t.ok(alice.hash, 'notify.getList', {});
    expect([list.unread, list.list[0].Id]).toEqual([1, tab1.got[0].Id]);

    await waitFor('the delivery done', async () => (await deliveries(t, alice.hash, Id))[0]?.mail_state === 'sent', 10_000);
    const [d] = await deliveries(t, alice.hash, Id);
    expect(d).toMatchObject({ due_at: ts_alert, late: 0, mail_state: 'sent', mail_tries: 1, mail_to: 'ops@example.org', mail_error: '' });
    expect(d.notified_at).toBeGreaterThanOrEqual(ts_alert);
    expect((await t.ok(alice.hash, 'todo.get', { Id })).alert_next).toBe(0);
    // More passes (the job's and these, side by side) send nothing more.
    const svc = t.app.get(TodoAlertsService);
    await Promise.all([svc.pass(), svc.pass()]);
    await svc.pass();
    await svc.drain();
    expect(mailsWith(title)).toHaveLength(1);
    expect(tab1.got).toHaveLength(1);
    expect(bobTab.got).toEqual([]);
  }, T);

  test('a daily alert is delivered at its time and moves to the next day', async () => {
    const t = await start({ TZ: 'Asia/Tokyo' });
    const alice = await t.session(100, 'alice');
    const title = `Daily stand-up ${pass}`;
    const ts_alert = nowSec() + 2;
    const { Id } = await t.ok(alice.hash, 'todo.insert', { title, alert_type: '2,0', ts_alert });
    await waitFor('the daily e-mail', () => mailsWith(title).length > 0, 30_000);
    const got = await t.ok(alice.hash, 'todo.get', { Id });
    expect(got.alert_next).toBe(ts_alert + 86_400);
    expect(got.alerts.deliveries.map((x: any) => x.due_at)).toEqual([ts_alert]);
  }, T);

  test('a finished todo sends nothing: no e-mail, no notification', async () => {
    const t = await start({});
    const alice = await t.session(100, 'alice');
    const tab = await connect(t.url, alice.hash);
    const title = `Finished before its time ${pass}`;
    const ts_alert = nowSec() + 2;
    const { Id } = await t.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0;2,0', ts_alert });
    await t.ok(alice.hash, 'todo.update', { Id, status: -1 });
    // A control due at the same time shows the job ran past that time.
    const control = `Control ${pass}`;
    await t.ok(alice.hash, 'todo.insert', { title: control, alert_type: '1,0', ts_alert });
    await waitFor('the control e-mail', () => mailsWith(control).length > 0, 30_000);
    await t.app.get(TodoAlertsService).pass();
    await t.app.get(TodoAlertsService).drain();
    expect(mailsWith(title)).toEqual([]);
    expect(await deliveries(t, alice.hash, Id)).toEqual([]);
    await waitFor('the control notification', () => tab.got.length > 0, 10_000);
    expect(tab.got.map((n) => n.title)).toEqual([`Todo: ${control}`]);
  }, T);

  test('a 451 is tried again with back-off and shown on the todo; finishing the todo cancels a pending try; a 550 fails for good', async () => {
    const t = await start({});
    const alice = await t.session(100, 'alice');
    // Three 451s: the MailClient's own quick tries all fail, so the alert keeps the e-mail for later.
    const title = `Greylisted ${pass}`;
    for (let i = 0; i < 3; i++) smtp.failNext('data', 451, 'Try again later');
    const { Id } = await t.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0', ts_alert: nowSec() + 1 });
    const retry = await waitFor('the retry state', async () => (await deliveries(t, alice.hash, Id)).find((d) => d.mail_state === 'retry'), 30_000);
    expect(retry).toMatchObject({ mail_tries: 1, late: 0 });
    expect(retry.mail_error).toMatch(/451 Try again later/);
    expect(retry.mail_next_at).toBeGreaterThan(0);
    expect(retry.notified_at).toBeGreaterThan(0);
    await waitFor('the e-mail on the second try', () => mailsWith(title).length > 0, 30_000);
    const sent = await waitFor('sent', async () => (await deliveries(t, alice.hash, Id)).find((d) => d.mail_state === 'sent'), 10_000);
    expect(sent).toMatchObject({ mail_tries: 2, mail_error: '' });
    expect(mailsWith(title)).toHaveLength(1);

    // Failing again, then finished before the next try: nothing is sent.
    const title2 = `Finished while waiting ${pass}`;
    for (let i = 0; i < 3; i++) smtp.failNext('data', 451, 'Try again later');
    const second = await t.ok(alice.hash, 'todo.insert', { title: title2, alert_type: '1,0', ts_alert: nowSec() });
    await waitFor('the retry state', async () => (await deliveries(t, alice.hash, second.Id)).some((d) => d.mail_state === 'retry'), 30_000);
    await t.ok(alice.hash, 'todo.update', { Id: second.Id, status: -1 });
    const cancelled = await waitFor('cancelled', async () => (await deliveries(t, alice.hash, second.Id)).find((d) => d.mail_state === 'cancelled'), 30_000);
    expect(cancelled.mail_tries).toBe(1);
    expect(mailsWith(title2)).toEqual([]);

    const title3 = `Refused ${pass}`;
    smtp.failNext('rcpt', 550, 'No such user');
    const third = await t.ok(alice.hash, 'todo.insert', { title: title3, alert_type: '1,0', ts_alert: nowSec() });
    const failed = await waitFor('failed', async () => (await deliveries(t, alice.hash, third.Id)).find((d) => d.mail_state === 'failed'), 30_000);
    expect(failed).toMatchObject({ mail_tries: 1, mail_next_at: 0 });
    expect(failed.mail_error).toMatch(/550 No such user/);
    await t.app.get(TodoAlertsService).pass();
    await t.app.get(TodoAlertsService).drain();
    expect(mailsWith(title3)).toEqual([]);
  }, T);

  test('the user\'s own address wins over ALERT_MAIL_TO; without SMTP_URL no e-mail is planned, the notification still arrives', async () => {
    const t = await start({});
    const alice = await t.session(100, 'alice');
    await t.ok(alice.hash, 'notify.saveSettings', { email: 'alice@example.org' });
    const title = `Own address ${pass}`;
    const { Id } = await t.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0', ts_alert: nowSec() });
    await waitFor('the e-mail', () => mailsWith(title).length > 0, 30_000);
    expect(mailsWith(title)[0].to).toEqual(['alice@example.org']);
    expect((await deliveries(t, alice.hash, Id))[0].mail_to).toBe('alice@example.org');

    const plain = await startApp({ ...FAST });
    apps.push(plain);
    const bob = await plain.session(100, 'bob');
    const tab = await connect(plain.url, bob.hash);
    const noMail = `No mail ${pass}`;
    const b = await plain.ok(bob.hash, 'todo.insert', { title: noMail, alert_type: '1,0', ts_alert: nowSec() });
    await waitFor('the notification', () => tab.got.length > 0, 30_000);
    await waitFor('done', async () => (await deliveries(plain, bob.hash, b.Id))[0]?.notified_at > 0, 10_000);
    expect((await deliveries(plain, bob.hash, b.Id))[0]).toMatchObject({ mail_state: 'none', mail_to: '' });
    expect(mailsWith(noMail)).toEqual([]);
  }, T);

  test('restart: an alert due while the console was down is sent at start, marked late; work left by a stopped or dead process is finished by the next', async () => {
    const DATABASE_URL = await sharedDatabase();
    const SECRET_KEY = 'k'.repeat(40);
    const a = await start({ DATABASE_URL, SECRET_KEY, TODO_ALERT_MAIL_RETRY_SECONDS: '3' });
    const alice = await a.session(100, 'alice');
    // A failed e-mail waiting for its next try when the process stops.
    const retryTitle = `Left to retry ${pass}`;
    for (let i = 0; i < 3; i++) smtp.failNext('data', 451, 'Try again later');
    const left = await a.ok(alice.hash, 'todo.insert', { title: retryTitle, alert_type: '1,0', ts_alert: nowSec() });
    await waitFor('the retry state', async () => (await deliveries(a, alice.hash, left.Id)).some((d) => d.mail_state === 'retry'), 30_000);
    // The scheduler stops (as at shutdown); then a todo due in 2 s, and a row taken by a process that
    // died before delivering it (taken here without delivering; its lease already run out).
    const job = a.app.get(TodoAlertsJob);
    await job.onModuleDestroy();
    expect(job.running).toBe(false);
    const lateTitle = `Due while down ${pass}`;
    const ts_alert = nowSec() + 2;
    const late = await a.ok(alice.hash, 'todo.insert', { title: lateTitle, alert_type: '1,0', ts_alert });
    const orphanTitle = `Claimed by the dead ${pass}`;
    const orphan = await a.ok(alice.hash, 'todo.insert', { title: orphanTitle });
    await db(a).query('UPDATE todos SET ts_alert = ?, alert_type = ?, alert_next = ? WHERE Id = ?', [nowSec() - 1, '1,0', nowSec() - 1, orphan.Id]);
    await (a.app.get(TodoAlertsService) as unknown as { takeDue(claim: string): Promise<unknown> }).takeDue('dead-process');
    expect(await db(a).query("UPDATE todo_alerts SET lease_until = 0 WHERE claim = 'dead-process'")).toBeDefined();
    apps.splice(apps.indexOf(a), 1);
    await a.close();
    await waitFor('ts_alert passed while down', () => nowSec() > ts_alert + 1, 10_000);
    expect(mailsWith(lateTitle)).toEqual([]);

    const c = await start({ DATABASE_URL, SECRET_KEY });
    const aliceC = await signIn(c, 'alice');
    await waitFor('the late e-mail', () => mailsWith(lateTitle).length > 0, 30_000);
    expect(mailsWith(lateTitle)[0].subject).toBe(`Todo alert: ${lateTitle} (late)`);
    const [d] = await waitFor('sent', async () => {
      const x = await deliveries(c, aliceC.hash, late.Id);
      return x[0]?.mail_state === 'sent' ? x : undefined;
    }, 10_000);
    expect(d).toMatchObject({ due_at: ts_alert, late: 1 });
    const n = (await c.ok(aliceC.hash, 'notify.getList', {})).list.find((x: any) => x.link === `/todo/show/${late.Id}`);
    expect(n).toMatchObject({ level: 'warning', title: `Todo: ${lateTitle}` });
    expect(n.body).toContain('delivered late');
    await waitFor('the e-mail left to retry', () => mailsWith(retryTitle).length > 0, 30_000);
    await waitFor('the orphan delivered', () => mailsWith(orphanTitle).length > 0, 30_000);
    await waitFor('all done', async () => {
      const [{ n: open }] = await db(c).query('SELECT COUNT(*) AS n FROM todo_alerts WHERE pending = 1');
      return Number(open) === 0;
    }, 10_000);
    await c.app.get(TodoAlertsService).pass();
    await c.app.get(TodoAlertsService).drain();
    expect([mailsWith(lateTitle).length, mailsWith(retryTitle).length, mailsWith(orphanTitle).length]).toEqual([1, 1, 1]);
    expect((await deliveries(c, aliceC.hash, left.Id))[0]).toMatchObject({ mail_state: 'sent', mail_tries: 2 });
  }, T);

  test('two instances on one database and Redis: every due time is delivered exactly once; the notification reaches a tab on the other instance', async () => {
    const DATABASE_URL = await sharedDatabase();
    const shared = { DATABASE_URL, SECRET_KEY: 'k'.repeat(40), REDIS_URL, TODO_ALERT_BATCH: '7', TODO_ALERT_SCAN_MS: '100' };
    const a = await start(shared);
    const b = await start(shared);
    const alice = await a.session(100, 'alice');
    const tabB = await connect(b.url, alice.hash);
    const tabA = await connect(a.url, alice.hash);
    await sleep(300); // the Redis subscriptions settle
    const N = 40;
    const ts_alert = nowSec() + 3;
    const titles = Array.from({ length: N }, (_, i) => `Pair ${pass} #${i}`);
    const ids: number[] = [];
    for (const title of titles) ids.push((await a.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0', ts_alert })).Id);
    await waitFor('every e-mail', () => titles.every((x) => smtp.messages.some((m) => m.subject === `Todo alert: ${x}`)), 60_000);
    await waitFor('every delivery done', async () => {
      const [{ n }] = await db(a).query('SELECT COUNT(*) AS n FROM todo_alerts WHERE pending = 0 AND todo_id IN (' + ids.join(',') + ')');
      return Number(n) === N;
    }, 30_000);
    await Promise.all([a.app.get(TodoAlertsService).pass(), b.app.get(TodoAlertsService).pass()]);
    await Promise.all([a.app.get(TodoAlertsService).drain(), b.app.get(TodoAlertsService).drain()]);
    for (const x of titles) expect([x, smtp.messages.filter((m) => m.subject === `Todo alert: ${x}`).length]).toEqual([x, 1]);
    const [{ n: rows }] = await db(b).query('SELECT COUNT(*) AS n FROM todo_alerts WHERE todo_id IN (' + ids.join(',') + ')');
    const [{ n: notes }] = await db(b).query("SELECT COUNT(*) AS n FROM notifications WHERE kind = 'todo.alert' AND uid = ?", [alice.uid]);
    expect([Number(rows), Number(notes)]).toEqual([N, N]);
    await waitFor('every notification in both tabs', () => new Set(tabB.got.map((x) => x.Id)).size === N && new Set(tabA.got.map((x) => x.Id)).size === N, 10_000);
    expect(tabB.got).toHaveLength(N);
  }, T);

  test('two instances racing: passes of both, side by side over the same due rows, create and send each due time once', async () => {
    const DATABASE_URL = await sharedDatabase();
    const shared = { DATABASE_URL, SECRET_KEY: 'k'.repeat(40), REDIS_URL, CRON_ENABLED: '0', TODO_ALERT_BATCH: '9' };
    const a = await start(shared);
    const b = await start(shared);
    const alice = await a.session(100, 'alice');
    const N = 30;
    const titles = Array.from({ length: N }, (_, i) => `Race ${pass} #${i}`);
    const ts_alert = nowSec();
    for (const title of titles) await a.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0;2,0', ts_alert });
    const pa = a.app.get(TodoAlertsService);
    const pb = b.app.get(TodoAlertsService);
    const attempts: number[] = [];
    for (let round = 0; round < 50; round++) {
      const r = await Promise.all([pa.pass(), pb.pass(), pa.pass(), pb.pass()]);
      await Promise.all([pa.drain(), pb.drain()]);
      attempts.push(r.filter(Boolean).length);
      if (r.every((x) => x === null)) break;
    }
    expect(attempts.at(-1)).toBe(0);
    for (const x of titles) expect([x, smtp.messages.filter((m) => m.subject === `Todo alert: ${x}`).length]).toEqual([x, 1]);
    const [{ n: rows }] = await db(a).query("SELECT COUNT(*) AS n FROM todo_alerts WHERE mail_state = 'sent'");
    const [{ n: notes }] = await db(a).query('SELECT COUNT(*) AS n FROM notifications WHERE uid = ?', [alice.uid]);
    expect([Number(rows), Number(notes)]).toEqual([N, N]);
    // The daily group moved every todo on to tomorrow.
    const [{ n: tomorrow }] = await db(a).query('SELECT COUNT(*) AS n FROM todos WHERE alert_next = ?', [ts_alert + 86_400]);
    expect(Number(tomorrow)).toBe(N);

    // Step by step. Both instances take the same due time: one row, held by the first.
    type Inner = { takeDue(claim: string): Promise<{ taken: number; inserted: number }>; claimWork(claim: string): Promise<number>; deliver(claim: string): Promise<unknown>; sendOne(r: unknown, claim: string): Promise<string> };
    const ia = pa as unknown as Inner;
    const ib = pb as unknown as Inner;
    const title = `Taken over ${pass}`;
    const one = await a.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0', ts_alert: nowSec() });
    expect(await ia.takeDue('claim-a')).toEqual({ taken: 1, inserted: 1 });
    await db(a).query('UPDATE todos SET alert_next = ? WHERE Id = ?', [one.todo.ts_alert, one.Id]);
    expect(await ib.takeDue('claim-b')).toEqual({ taken: 1, inserted: 0 });
    const [row] = await db(a).query('SELECT * FROM todo_alerts WHERE todo_id = ?', [one.Id]);
    expect(row.claim).toBe('claim-a');
    // A's lease runs out before it sends (a stalled process) and B takes the row over; A, waking up with
    // the row it had, sends nothing; B sends it once.
    await db(a).query('UPDATE todo_alerts SET lease_until = 0 WHERE Id = ?', [row.Id]);
    expect(await ib.claimWork('claim-b')).toBe(1);
    const stale = { ...row, Id: Number(row.Id), mail_tries: 0, title, text: '', type: 0, status: 0 };
    expect(await ia.sendOne(stale, 'claim-a')).toBe('skipped');
    await ib.deliver('claim-b');
    await pb.drain();
    expect(mailsWith(title)).toHaveLength(1);
    const [after] = await db(a).query('SELECT claim, mail_state, mail_tries FROM todo_alerts WHERE Id = ?', [row.Id]);
    expect([after.claim, after.mail_state, Number(after.mail_tries)]).toEqual(['claim-b', 'sent', 1]);
  }, T);
});
