/**
 * Todo end to end (issue 21; 001 §2 "Todo", §3, §4, §7 todo.get/insert/update, §8; docs/todo.md; SQLite,
 * or MariaDB with TEST_DATABASE_URL): the contract (insert answers {Id}, update {Id, status: -1}
 * finishes with 'Todo close!', restore 'Todo restore OK!', get answers the todo with its history),
 * ownership (a user sees and changes only their own todos, another's Id is 404 on every method, admins
 * see and change all), bad input, the history with who and when, the sanitised text, the alert_type
 * grammar, ts_alert set to now when an alert is added and 0 when it is removed, the next due time in the
 * console's TZ, the list filters, and the notification list's methods (own rows only).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { describeAlert, nextAlertAfter, parseAlertType, TODO_MSG, zonedParts, zonedToUnix } from '../../src/contracts/todo.js';
import { NotificationsService } from '../../src/modules/notifications/notifications.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { pass } from '../helpers/passes.js';

const TZ = 'Europe/Moscow';
let t: TestApp;
let admin: string;
let alice: string;
let bob: string;
let aliceUid: number;
let bobUid: number;

async function call(hash: string, method: string, args: unknown) {
  const r = await t.rpc<any>(hash, method, args);
  return { status: r.env.status === 'ok' ? 200 : (r.env.code ?? 0), env: r.env as any };
}
const db = () => t.app.get<DataSource>(getDataSourceToken());
const nowSec = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0', TZ });
  admin = (await t.session(1)).hash;
  const a = await t.session(100, 'alice');
  const b = await t.session(100, 'bob');
  alice = a.hash; aliceUid = a.uid;
  bob = b.hash; bobUid = b.uid;
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`todo (${pass})`, () => {
  test('contract: insert answers {Id}; update {Id, status: -1} finishes; get answers it with its history', async () => {
    const ins = await t.ok(alice, 'todo.insert', { title: 'Call the bank', text: '<p>About the <b>card</b></p>', type: 5, alert_type: '', ts_alert: 0 });
    expect(ins).toMatchObject({ Id: expect.any(Number), message: TODO_MSG.insertOk });
    expect(ins.todo).toMatchObject({ title: 'Call the bank', text: '<p>About the <b>card</b></p>', type: 5, status: 0, ts_alert: 0, alert_type: '', uid: aliceUid, owner: 'User alice', history: [] });
    expect(ins.todo.ts_create).toBeGreaterThan(0);

    const fin = await t.ok(alice, 'todo.update', { Id: ins.Id, status: -1 });
    expect(fin.message).toBe('Todo close!');
    expect(fin.todo.status).toBe(-1);
    const res = await t.ok(alice, 'todo.update', { Id: ins.Id, status: 0 });
    expect(res.message).toBe('Todo restore OK!');

    const got = await t.ok(alice, 'todo.get', { Id: ins.Id });
    expect(got).toMatchObject({ Id: ins.Id, title: 'Call the bank', status: 0 });
    // Newest first: the version before the restore (finished), then the one before the finish (open).
    expect(got.history.map((h: any) => [h.action, h.status, h.uid, h.who])).toEqual([['restore', -1, aliceUid, 'User alice'], ['finish', 0, aliceUid, 'User alice']]);
    expect(got.history[0].ts).toBeGreaterThanOrEqual(ins.todo.ts_create);
  });

  test('the old version is saved before each change, with who and when; an admin changes any todo; no change saves nothing', async () => {
    const { Id } = await t.ok(alice, 'todo.insert', { title: 'v1', text: 'one', type: 1 });
    await t.ok(alice, 'todo.update', { Id, title: 'v2' });
    await t.ok(admin, 'todo.update', { Id, text: '<p>two</p>', type: 6 });
    const same = await t.ok(alice, 'todo.update', { Id, title: 'v2' });
    expect(same.message).toBe('Update ok!');
    const got = await t.ok(alice, 'todo.get', { Id });
    expect(got).toMatchObject({ title: 'v2', text: '<p>two</p>', type: 6, uid: aliceUid });
    expect(got.history.map((h: any) => ({ action: h.action, title: h.title, text: h.text, type: h.type, uid: h.uid }))).toEqual([
      { action: 'update', title: 'v2', text: 'one', type: 1, uid: 1 },
      { action: 'update', title: 'v1', text: 'one', type: 1, uid: aliceUid },
    ]);
    expect(got.history[0].who).toBe('Administrator');
  });

  test('ownership: another user\'s todo is 404 on every method (nothing leaks, nothing changes); admins see and list all', async () => {
    const { Id } = await t.ok(alice, 'todo.insert', { title: 'Alice only', text: 'secret' });
    const bobTodo = await t.ok(bob, 'todo.insert', { title: 'Bob only' });
    for (const [method, args] of [
      ['todo.get', { Id }], ['todo.update', { Id, title: 'taken' }], ['todo.update', { Id, status: -1 }], ['todo.update', { Id, alert_type: '1,0' }],
    ] as const) {
      const r = await call(bob, method, args);
      expect([method, r.status, r.env.message]).toEqual([method, 404, TODO_MSG.notFound]);
    }
    // The same answer as an Id that does not exist at all.
    expect((await call(bob, 'todo.get', { Id: 999_999 })).env.message).toBe(TODO_MSG.notFound);
    const row = await t.ok(alice, 'todo.get', { Id });
    expect(row).toMatchObject({ title: 'Alice only', status: 0, history: [] });

    const bobList = await t.ok(bob, 'todo.get', {});
    expect(bobList.list.map((r: any) => r.uid)).toEqual([bobUid]);
    const aliceList = await t.ok(alice, 'todo.get', { limit: 100 });
    expect(aliceList.list.every((r: any) => r.uid === aliceUid)).toBe(true);
    expect(aliceList.list.some((r: any) => r.Id === bobTodo.Id)).toBe(false);
    const all = await t.ok(admin, 'todo.get', { limit: 100 });
    expect(all.list.some((r: any) => r.Id === bobTodo.Id) && all.list.some((r: any) => r.Id === Id)).toBe(true);
    expect((await t.ok(admin, 'todo.get', { mine: 1 })).count).toBe(0);
    expect((await t.ok(admin, 'todo.get', { Id: bobTodo.Id })).owner).toBe('User bob');
    // `mine` does not widen a user's view.
    expect((await t.ok(bob, 'todo.get', { mine: 0 })).list.map((r: any) => r.uid)).toEqual([bobUid]);
  });

  test('the list filters by status and type, newest first, 20 a page', async () => {
    const carol = (await t.session(100, 'carol')).hash;
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) ids.push((await t.ok(carol, 'todo.insert', { title: `t${i}`, type: i % 3 })).Id);
    await t.ok(carol, 'todo.update', { Id: ids[0], status: -1 });
    await t.ok(carol, 'todo.update', { Id: ids[3], status: -1 });
    const p1 = await t.ok(carol, 'todo.get', {});
    expect([p1.count, p1.list.length, p1.limit, p1.list[0].Id]).toEqual([23, 20, 20, ids[22]]);
    expect((await t.ok(carol, 'todo.get', { p_: 2 })).list.map((r: any) => r.Id)).toEqual([ids[2], ids[1], ids[0]]);
    const finished = await t.ok(carol, 'todo.get', { status: -1 });
    expect(finished.list.map((r: any) => r.Id)).toEqual([ids[3], ids[0]]);
    const open = await t.ok(carol, 'todo.get', { status: '0' });
    expect(open.count).toBe(21);
    const type2 = await t.ok(carol, 'todo.get', { type: 2, status: 0 });
    expect(type2.list.every((r: any) => r.type === 2 && r.status === 0)).toBe(true);
    expect(type2.count).toBe(ids.filter((_, i) => i % 3 === 2).length);
  });

  test('bad input: 422 naming the field, nothing stored', async () => {
    const before = await db().query('SELECT COUNT(*) AS n FROM todos');
    const cases: Array<[string, unknown, string]> = [
      ['todo.insert', {}, 'title'],
      ['todo.insert', { title: '   ' }, 'title'],
      ['todo.insert', { title: 'x'.repeat(256) }, 'title'],
      ['todo.insert', { title: 'ok', type: 7 }, 'type'],
      ['todo.insert', { title: 'ok', type: '1e1' }, 'type'],
      ['todo.insert', { title: 'ok', type: true }, 'type'],
      ['todo.insert', { title: 'ok', ts_alert: -5 }, 'ts_alert'],
      ['todo.insert', { title: 'ok', ts_alert: '17e8' }, 'ts_alert'],
      ['todo.insert', { title: 'ok', alert_type: '4,0' }, 'alert_type'],
      ['todo.insert', { title: 'ok', alert_type: '3,7' }, 'alert_type'],
      ['todo.insert', { title: 'ok', alert_type: '1' }, 'alert_type'],
      ['todo.insert', { title: 'ok', alert_type: 10 }, 'alert_type'],
      ['todo.insert', { title: 'ok', text: 5 }, 'text'],
      ['todo.insert', { title: 'ok\u200b' }, 'title'],
      ['todo.update', { title: 'no id' }, 'Id'],
      ['todo.update', { Id: 1, status: 1 }, 'status'],
      ['todo.update', { Id: 1, status: '-2' }, 'status'],
      ['todo.get', { status: 5 }, 'status'],
      ['todo.get', { Id: '0x1' }, 'Id'],
    ];
    for (const [method, args, field] of cases) {
      const r = await call(alice, method, args);
      expect([method, args, r.status, Object.keys(r.env.fields ?? {})]).toEqual([method, args, 422, [field]]);
    }
    // Stored HTML past the column: refused by name.
    const big = await call(alice, 'todo.insert', { title: 'big', text: '€'.repeat(29_000) + '<b>x</b>'.repeat(100) });
    expect([big.status, big.env.fields]).toEqual([422, { text: TODO_MSG.textTooLong }]);
    expect(await db().query('SELECT COUNT(*) AS n FROM todos')).toEqual(before);
  });

  test('text is HTML through the one sanitiser: no script, handler or javascript: link is stored', async () => {
    const { Id, todo } = await t.ok(alice, 'todo.insert', {
      title: 'html', text: '<p onclick="x()">Hi <a href="javascript:alert(1)">a</a><script>alert(1)</script><img src=x onerror=alert(1)></p><a href="https://ex.org" target="_blank">ok</a>',
    });
    expect(todo.text).not.toMatch(/script|onclick|onerror|javascript:/i);
    expect(todo.text).toContain('<a href="https://ex.org" target="_blank" rel="noopener noreferrer">ok</a>');
    const upd = await t.ok(alice, 'todo.update', { Id, text: '<p>fine</p><iframe src="https://evil"></iframe>' });
    expect(upd.todo.text).toBe('<p>fine</p>');
  });

  test('alert_type: a semicolon list of method,weekday groups, stored in its canonical form', async () => {
    expect(parseAlertType('')).toEqual([]);
    expect(parseAlertType('1,0')).toEqual([{ method: 1, weekday: 0 }]);
    expect(parseAlertType(' 3,5 ; 3,1;2,4;3,0;3,1; ')).toEqual([{ method: 2, weekday: 0 }, { method: 3, weekday: 1 }, { method: 3, weekday: 5 }, { method: 3, weekday: 0 }]);
    for (const bad of ['0,0', '4,1', '3,7', '1', '1,', ',1', '1;0', '1,0,2', 'a,b', '1.0', '3,-1', '31']) expect([bad, parseAlertType(bad)]).toEqual([bad, null]);
    const ts = nowSec() + 86_400;
    const { todo } = await t.ok(alice, 'todo.insert', { title: 'weekly', alert_type: '3,5;3,1; 3,5;2,6', ts_alert: ts });
    expect(todo.alert_type).toBe('2,0;3,1;3,5');
    expect(todo.ts_alert).toBe(ts);
    expect(todo.alerts.tz).toBe(TZ);
    const z = zonedParts(ts, TZ);
    expect(todo.alerts.description).toBe(`Every day at ${z.time}; Every week on Monday at ${z.time}; Every week on Friday at ${z.time}`);
  });

  test('adding an alert sets ts_alert to now, removing it sets 0; the next due time is computed on save', async () => {
    const before = nowSec();
    const { Id, todo } = await t.ok(alice, 'todo.insert', { title: 'alert', alert_type: '1,0' });
    expect(todo.ts_alert).toBeGreaterThanOrEqual(before);
    expect(todo.ts_alert).toBeLessThanOrEqual(nowSec());
    // Once at now: due at once.
    expect(todo.alert_next).toBe(todo.ts_alert);
    const off = await t.ok(alice, 'todo.update', { Id, alert_type: '' });
    expect([off.todo.alert_type, off.todo.ts_alert, off.todo.alert_next]).toEqual(['', 0, 0]);
    // Insert with a time but no alert stores no time (ts_alert 0 means none).
    expect((await t.ok(alice, 'todo.insert', { title: 'no alert', alert_type: '', ts_alert: before + 500 })).todo.ts_alert).toBe(0);
    // Adding to an existing todo without a time: now.
    const on = await t.ok(alice, 'todo.update', { Id, alert_type: '2,0' });
    expect(on.todo.ts_alert).toBeGreaterThanOrEqual(before);
    // Daily at that time of day: the next occurrence after now.
    expect(on.todo.alert_next).toBe(nextAlertAfter([{ method: 2, weekday: 0 }], on.todo.ts_alert, nowSec(), TZ));
    expect(on.todo.alert_next).toBeGreaterThan(nowSec());
    // An explicit time with the weekly method, on Sunday 09:30 in the console's zone.
    const at = zonedToUnix('2031-03-03', '09:30', TZ)!; // a Monday
    const weekly = await t.ok(alice, 'todo.update', { Id, alert_type: '3,0', ts_alert: at });
    expect(weekly.todo.alert_next).toBe(zonedToUnix('2031-03-09', '09:30', TZ));
    // Finished: nothing is due; restored: due again.
    expect((await t.ok(alice, 'todo.update', { Id, status: -1 })).todo.alert_next).toBe(0);
    expect((await t.ok(alice, 'todo.update', { Id, status: 0 })).todo.alert_next).toBe(zonedToUnix('2031-03-09', '09:30', TZ));
  });

  test('the schedule in the console\'s zone: daily, weekly, once, DST in a zone that has it', () => {
    const tz = 'Europe/Berlin';
    const t0 = zonedToUnix('2027-03-26', '02:30', tz)!; // Friday, before the change to summer time (28 March)
    expect(zonedParts(t0, tz)).toMatchObject({ date: '2027-03-26', time: '02:30', weekday: 5 });
    const daily = [{ method: 2, weekday: 0 }] as const;
    const runs: number[] = [];
    let after = t0 - 1;
    for (let i = 0; i < 4; i++) runs.push((after = nextAlertAfter([...daily], t0, after, tz)));
    // 02:30 does not exist on 28 March there: that day's alert comes at 03:00 (croner), then 02:30 again.
    expect(runs.map((r) => `${zonedParts(r, tz).date} ${zonedParts(r, tz).time}`)).toEqual(['2027-03-26 02:30', '2027-03-27 02:30', '2027-03-28 03:00', '2027-03-29 02:30']);
    expect(nextAlertAfter([{ method: 1, weekday: 0 }], t0, t0, tz)).toBe(0);
    expect(nextAlertAfter([{ method: 1, weekday: 0 }], t0, t0 - 1, tz)).toBe(t0);
    expect(nextAlertAfter([{ method: 3, weekday: 1 }, { method: 3, weekday: 3 }], t0, t0, tz)).toBe(zonedToUnix('2027-03-29', '02:30', tz));
    expect(describeAlert([], 0, tz)).toBe('No alert');
    expect(zonedToUnix('2027-02-30', '10:00', tz)).toBeNull();
    expect(zonedToUnix('2027-01-01', '24:00', tz)).toBeNull();
  });

  test('the notification list: own rows only, unread count, mark one or all read; settings for alert e-mail', async () => {
    const svc = t.app.get(NotificationsService);
    const stored = await svc.push([
      { uid: aliceUid, kind: 'test', level: 'info', title: 'A1', body: 'b', link: '/todo', ref: `t:${pass}:1` },
      { uid: aliceUid, kind: 'test', level: 'warning', title: 'A2', body: 'b', link: '/todo', ref: `t:${pass}:2` },
      { uid: bobUid, kind: 'test', level: 'info', title: 'B1', body: 'b', link: '', ref: `t:${pass}:3` },
    ]);
    expect(stored).toHaveLength(3);
    // The same ref again stores nothing new.
    await svc.push([{ uid: aliceUid, kind: 'test', level: 'info', title: 'A1 again', body: 'b', link: '', ref: `t:${pass}:1` }]);
    const list = await t.ok(alice, 'notify.getList', {});
    expect(list.list.map((n: any) => n.title)).toEqual(['A2', 'A1']);
    expect([list.count, list.unread]).toEqual([2, 2]);
    const b1 = stored.find((n) => n.title === 'B1')!;
    expect((await call(alice, 'notify.markRead', { Id: b1.Id })).status).toBe(404);
    expect((await t.ok(alice, 'notify.markRead', { Id: list.list[1].Id })).unread).toBe(1);
    expect((await t.ok(alice, 'notify.getList', { unread: 1 })).list.map((n: any) => n.title)).toEqual(['A2']);
    expect((await t.ok(alice, 'notify.markRead', { all: 1 })).unread).toBe(0);
    expect((await t.ok(bob, 'notify.getList', {})).unread).toBe(1);

    expect(await t.ok(alice, 'notify.getSettings', {})).toEqual({ email: '', mail_configured: false, alert_to_set: false });
    expect((await t.ok(alice, 'notify.saveSettings', { email: 'alice@example.org' })).email).toBe('alice@example.org');
    expect((await call(alice, 'notify.saveSettings', { email: 'not an address' })).env.fields).toEqual({ email: 'email must be an e-mail address' });
    expect((await t.ok(bob, 'notify.getSettings', {})).email).toBe('');
    expect(await svc.emailsOf([aliceUid, bobUid])).toEqual(new Map([[aliceUid, 'alice@example.org']]));
    await t.ok(alice, 'notify.saveSettings', { email: '' });
    expect(await svc.emailOf(aliceUid)).toBe('');
  });
});
