/**
 * The ant hub end to end (issue 24; docs/ant.md): the real app, real reference ants (src/ant, in this
 * process), a static test site on loopback and Debian's tinyproxy with BasicAuth between them.
 *
 * - ant tokens: created once, listed without the token, a wrong or revoked token refused at connect;
 * - operator messages answer through the ack with {status:'ok', result}; a role-10 socket gets nothing
 *   (refused, and no broadcast); an ant cannot send operator messages;
 * - POST /api/proxy/add: counts, duplicates update, passwords masked; role 10 refused;
 * - the chain 8 → 1 → 2 → 4 → 20 → 3 → 21 → 22 through tinyproxy (asserted from tinyproxy's own log),
 *   robots.txt obeyed, then ant.getUniqueness names the pages that copy the seeded book;
 * - only-step; two ants, one killed mid-task: the other finishes the task; get_log; start/stop answers.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import { io, type Socket } from 'socket.io-client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { ANT_NAMESPACE, parseOnlyStep, type AntConnection, type AntUniquenessRow } from '../../src/contracts/ant.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TaskQueueService } from '../../src/modules/ant/queue/task-queue.service.js';
import { startAnt, startTestSite, startTinyproxy, type TestAnt, type TestSite, type Tinyproxy } from '../helpers/ant.js';
import { waitFor } from '../helpers/wait.js';

jest.setTimeout(60_000);

const BOOK_PAGE_1 = 'The old lighthouse keeper climbed the spiral stairs every evening at dusk, counting one hundred and twelve steps, '
  + 'polishing the great brass lens until it shone like a second moon over the restless grey water of the northern bay, '
  + 'while the gulls circled and the fishing boats turned homeward under the first pale stars of autumn.';
const BOOK_PAGE_2 = 'Morning came slowly to the valley; fog lay in the hollows and the baker opened his shutters to the smell of warm rye bread and wet stones.';

let t: TestApp;
let site: TestSite;
let proxy: Tinyproxy;
let admin: string;
let content: string;
let token: string;
const ants: TestAnt[] = [];
const sockets: Socket[] = [];

const operator = async (hash: string) => {
  const s = io(t.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false, forceNew: true });
  sockets.push(s);
  await new Promise<void>((resolve, reject) => { s.once('connect', resolve); s.once('connect_error', reject); });
  return s;
};
const send = async <T = any>(s: Socket, msg: string, args: unknown = {}): Promise<{ status: string; result: T; message?: string }> =>
  s.timeout(10_000).emitWithAck(msg, args);
const ok = async <T = any>(s: Socket, msg: string, args: unknown = {}): Promise<T> => {
  const r = await send<T>(s, msg, args);
  if (r.status !== 'ok') throw new Error(`${msg}: ${JSON.stringify(r)}`);
  return r.result;
};
const ant = async (name: string) => {
  const a = await startAnt({ hubUrl: t.url, token, name });
  ants.push(a);
  return a;
};

beforeAll(async () => {
  [t, proxy] = await Promise.all([startApp({ CRON_ENABLED: '0' }), startTinyproxy()]);
  site = await startTestSite({ '/item/a2': `Intro words. ${BOOK_PAGE_1} Closing words.`, '/item/b1': BOOK_PAGE_1 });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  const db = t.app.get<DataSource>(getDataSourceToken());
  await db.query('INSERT INTO books (Id_book, book_title, book_pages) VALUES (?, ?, ?), (?, ?, ?)', [501, 'Lighthouse', 2, 502, 'Valley', 1]);
  await db.query('INSERT INTO pages (bid, num, body) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)', [501, 1, `<p>${BOOK_PAGE_1}</p>`, 501, 2, BOOK_PAGE_2, 502, 1, 'Completely different text about trains, stations and timetables of a railway company in winter.']);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  for (const a of ants) await a.stop().catch(() => undefined);
  await t?.close();
  await Promise.allSettled([site?.close(), proxy?.stop()]);
});

test('tokens: shown once, listed without the token; a wrong or revoked token is refused at connect', async () => {
  const created = await t.ok(admin, 'ant.createToken', { name: 'test ants' });
  expect(created).toEqual({ Id: expect.any(Number), name: 'test ants', token: expect.stringMatching(/^ant_/) });
  token = created.token;
  const list = await t.ok(admin, 'ant.listTokens', {});
  expect(JSON.stringify(list)).not.toContain(token);
  expect((await t.rpc(content, 'ant.createToken', { name: 'x' })).status).toBe(403);

  await expect(startAnt({ hubUrl: t.url, token: 'ant_wrong-token-0123456789', name: 'bad' })).rejects.toThrow('Invalid ant token');
  const other = await t.ok(admin, 'ant.createToken', { name: 'to revoke' });
  const doomed = await startAnt({ hubUrl: t.url, token: other.token, name: 'doomed' });
  ants.push(doomed);
  const gone = new Promise<void>((r) => doomed.socket.once('disconnect', () => r()));
  await t.ok(admin, 'ant.revokeToken', { Id: other.Id });
  await gone;
  await expect(startAnt({ hubUrl: t.url, token: other.token, name: 'doomed2' })).rejects.toThrow('Invalid ant token');
});

test('operators: acks with the envelope, connections listed; role 10 gets nothing; an ant cannot send operator messages', async () => {
  const op = await operator(admin);
  const weak = await operator(content);
  const weakEvents: string[] = [];
  weak.onAny((e: string) => weakEvents.push(e));
  const seen = new Promise<AntConnection>((resolve) => op.on('ant_change', (c: AntConnection) => c.name === 'ant-one' && resolve(c)));
  const a = await ant('ant-one');
  expect((await seen).isStop).toBe(true);
  const list = await ok<AntConnection[]>(op, 'get_list_connections');
  const mine = list.find((c) => c.name === 'ant-one')!;
  expect(mine).toMatchObject({ id: a.id(), host: 'test-host', status: 'stop', isStop: true, isDisconnect: false, count_send: 0, task: null });
  // The operator's own console socket is listed as 'moder'.
  expect(list.some((c) => c.status === 'moder' && c.id === op.id)).toBe(true);

  const refused = await send(weak, 'get_list_connections');
  expect(refused.status).not.toBe('ok');
  expect(JSON.stringify(refused)).not.toContain('ant-one');
  expect(weakEvents.filter((e) => e !== 'session.changed' && e !== 'exception')).toEqual([]);

  const fromAnt: any = await a.socket.timeout(5000).emitWithAck('get_list_connections', {});
  expect(fromAnt).toMatchObject({ status: 'error', code: 403 });
  // Nor can an ant token open an operator (default namespace) socket.
  const s = io(t.url, { transports: ['websocket'], auth: { hash: token }, reconnection: false, forceNew: true });
  sockets.push(s);
  await expect(new Promise((resolve, reject) => { s.once('connect', () => resolve('connected')); s.once('connect_error', reject); })).rejects.toThrow();

  const streamed = new Promise<any>((resolve) => op.on('stream_logs', (e: any) => e.id === a.id() && e.lines.some((l: string) => l.endsWith(' start')) && resolve(e)));
  expect(await ok(op, 'ant_start', { id: a.id() })).toEqual({ id: a.id(), ok: true, message: 'Started' });
  expect((await streamed).type).toBe('out');
  await waitFor('running', async () => (await ok<AntConnection[]>(op, 'get_list_connections')).find((c) => c.id === a.id())?.isStop === false).catch(async (e) => {
    console.log(JSON.stringify(await ok<AntConnection[]>(op, 'get_list_connections')), a.id(), a.logLines('out'), a.logLines('err'));
    throw e;
  });
  expect(await ok(op, 'ant_stop', { id: a.id() })).toEqual({ id: a.id(), ok: true, message: 'Stopped' });
  expect(await ok(op, 'ant_start', { id: 'no-such-ant' })).toEqual({ id: 'no-such-ant', ok: false, message: 'Ant not connected' });
  expect(await ok(op, 'ant_reload', { id: a.id() })).toEqual({ id: a.id(), ok: true, message: 'Reloaded (stopped)' });
  expect(await ok(op, 'ant_restart_all')).toEqual([{ id: a.id(), ok: true, message: 'Reloaded (stopped)' }]);
  expect((await send(op, 'get_log', { id: a.id(), lines: 0 })).status).toBe('rules');
  const log = await ok(op, 'get_log', { id: a.id(), lines: 2, type: 'out' });
  expect(log.lines).toHaveLength(2);
  expect(log.lines.join('\n')).toContain('reload');
});

test('POST /api/proxy/add: counts, duplicates update, password masked; role 10 refused', async () => {
  const r = await t.rest<any>(admin, 'POST', '/proxy/add', { data: [{ ip: proxy.ip, login: proxy.login, pass: 'wrong-first' }, { ip: '127.0.0.1:1', login: 'x', pass: 'y' }] });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'ok', result: { inserted: 2, updated: 0, total: 2, message: expect.stringContaining('Insert ok!') } });
  const again = await t.rest<any>(admin, 'POST', '/proxy/add', { data: [{ ip: proxy.ip, login: proxy.login, pass: proxy.pass }] });
  expect(again.body.result).toMatchObject({ inserted: 0, updated: 1 });
  expect((await t.rest(admin, 'POST', '/proxy/add', { data: [{ ip: 'not an address', login: '', pass: '' }] })).status).toBe(422);
  expect((await t.rest(content, 'POST', '/proxy/add', { data: [{ ip: '127.0.0.1:2', login: '', pass: '' }] })).status).toBe(403);
  const op = await operator(admin);
  const list = await ok<any[]>(op, 'get_proxy_list');
  expect(list.map((p) => [p.ip, p.pass])).toEqual([[proxy.ip, '***'], ['127.0.0.1:1', '***']]);
  expect(JSON.stringify(list)).not.toContain(proxy.pass);
  // Only the tinyproxy is kept for the chain below.
  const db = t.app.get<DataSource>(getDataSourceToken());
  await db.query('DELETE FROM ant_proxies WHERE ip = ?', ['127.0.0.1:1']);
});

test('only-step: parsed as 001 §5; an ant asking for steps outside it gets none', async () => {
  const op = await operator(admin);
  expect(await ok(op, 'set_only_step', { only_step: '3, 0,-1,x, 8,3' })).toEqual({ only_step: '3,8' });
  expect(await ok(op, 'get_only_step')).toEqual({ only_step: '3,8' });
  expect(parseOnlyStep('')).toEqual([]);
  await ok(op, 'worker_start');
  const raw = io(t.url + ANT_NAMESPACE, { transports: ['websocket'], auth: { token, name: 'raw' }, reconnection: false, forceNew: true });
  sockets.push(raw);
  await new Promise<void>((r) => raw.once('connect', () => r()));
  await raw.timeout(5000).emitWithAck('ant.status', { isStop: false, status: 'wait', steps: [4] });
  await t.ok(admin, 'ant.addTask', { step: 4, item: `${site.url}/item/none` });
  const next: any = await raw.timeout(5000).emitWithAck('ant.next', { steps: [4] });
  expect(next).toEqual({ task: null, message: 'No step of this ant is allowed by only-step' });
  expect(await ok(op, 'set_only_step', { only_step: '' })).toEqual({ only_step: '' });
  const got: any = await raw.timeout(5000).emitWithAck('ant.next', { steps: [4] });
  expect(got.task).toMatchObject({ step: 4, item: `${site.url}/item/none`, proxy: null });
  raw.disconnect();
  // Its disconnect returned the task to the queue.
  await waitFor('task back', async () => (await ok<any[]>(op, 'ant_get_task_list')).some((x) => x.item === `${site.url}/item/none`));
  await ok(op, 'worker_stop');
  const db = t.app.get<DataSource>(getDataSourceToken());
  await db.query('DELETE FROM ant_tasks');
});

test('the chain 8 → 22 through tinyproxy, robots.txt obeyed; ant.getUniqueness names the copies', async () => {
  const op = await operator(admin);
  expect(await ok(op, 'server.set_status_used_proxy', { status: 1 })).toEqual({ status: 1 });
  const a = ants.find((x) => x.name === 'ant-one')!;
  const task = await t.ok(admin, 'ant.addTask', { step: 8, item: `${site.url}/sitemap.xml` });
  expect(task).toMatchObject({ step: 8, duplicate: false });
  expect((await t.ok(admin, 'ant.addTask', { step: 8, item: `${site.url}/sitemap.xml` })).duplicate).toBe(true);
  expect((await ok(op, 'worker_start')).status).toBe('ok');
  expect((await ok(op, 'ant_start', { id: a.id() })).ok).toBe(true);
  const rows = await waitFor('uniqueness', async () => {
    const r = await t.ok<AntUniquenessRow[]>(admin, 'ant.getUniqueness', {});
    return r.length >= 2 ? r : undefined;
  }, 40_000);
  const byUrl = Object.fromEntries(rows.map((r) => [r.url.replace(site.url, ''), r]));
  expect(byUrl['/item/b1']).toMatchObject({ Id_book: 501 });
  // The whole page is the book's page 1 but for the item's own heading words.
  expect(byUrl['/item/b1'].similarity).toBeGreaterThan(0.9);
  expect(byUrl['/item/a2'].Id_book).toBe(501);
  expect(byUrl['/item/a2'].similarity).toBeGreaterThan(0.5);
  expect(byUrl['/item/a2'].similarity).toBeLessThan(byUrl['/item/b1'].similarity);
  expect(rows.every((r) => r.Id_book === 501)).toBe(true);
  // Every other item was scanned and found original: the chain reached them too (a3 via rel=next).
  // drained: nothing queued and nothing leased (the last task may still be in the ant's hands when the queue is empty)
  await waitFor('queue drained', async () => (await ok<any[]>(op, 'task.getStats')).every((s) => s.count === 0)
    && (await ok<any[]>(op, 'get_list_wait_task')).every((w) => w.state !== 'leased'), 30_000);
  // No request failed because of the proxy (no retry was needed).
  expect((await ok<any[]>(op, 'get_proxy_list'))[0]).toMatchObject({ fail_count: 0, last_error: null });
  const paths = site.hits.map((h) => h.path);
  for (const p of ['/sitemap.xml', '/cat/a', '/cat/a/2', '/cat/b', '/item/a1', '/item/a2', '/item/a3', '/item/b1', '/item/b2']) expect(paths).toContain(p);
  expect(paths).not.toContain('/private/secret');
  expect(site.hits.every((h) => h.ua.startsWith('AntBot/'))).toBe(true);
  // Every request went through tinyproxy, which logged it.
  const log = proxy.log();
  for (const p of ['/robots.txt', '/sitemap.xml', '/item/a2', '/item/b1']) expect(log).toContain(`GET ${site.url}${p}`);
  await ok(op, 'ant_stop', { id: a.id() });
});

test('two ants, one killed mid-task: the task is finished by the other', async () => {
  const op = await operator(admin);
  await ok(op, 'server.set_status_used_proxy', { status: 0 });
  expect((await ok<any[]>(op, 'ant_stop_all')).every((r) => r.ok)).toBe(true);
  const x = await ant('ant-x');
  const y = await ant('ant-y');
  const held = site.hold('/item/k1');
  await t.ok(admin, 'ant.addTask', { step: 4, item: `${site.url}/item/k1` });
  await ok(op, 'ant_start', { id: x.id() });
  await held.reached;
  const leased = await ok<any[]>(op, 'get_list_wait_task');
  expect(leased).toEqual([expect.objectContaining({ item: `${site.url}/item/k1`, state: 'leased', ant: x.id(), antName: 'ant-x' })]);
  x.kill();
  await waitFor('back in the queue', async () => (await ok<any[]>(op, 'ant_get_task_list')).some((q) => q.item === `${site.url}/item/k1`));
  const list = await ok<AntConnection[]>(op, 'get_list_connections');
  expect(list.find((c) => c.name === 'ant-x')).toMatchObject({ isDisconnect: true, status: 'disconnect' });
  await ok(op, 'ant_start', { id: y.id() });
  await waitFor('scanned by y', async () => {
    const c = (await ok<AntConnection[]>(op, 'get_list_connections')).find((q) => q.id === y.id());
    return (c?.count_send ?? 0) >= 2; // k1's scan (4) and its step 20
  }, 20_000);
  expect(y.logLines('out').join('\n')).toContain(`${site.url}/item/k1`);
  held.release();
});

test('the queue read ahead: each task handed out once to ants asking together; a task queued after an empty read is handed out at once; a released task comes back first', async () => {
  const q = t.app.get(TaskQueueService, { strict: false });
  const STEP = 97; // no other test queues this step
  expect(await q.lease('q-first', 'q', [STEP])).toBeNull();
  // queued through the RPC (which wakes the hub): the empty read above must not hide them
  const ids: number[] = [];
  for (let i = 0; i < 40; i++) ids.push((await t.ok<{ Id: number }>(admin, 'ant.addTask', { step: STEP, item: `q-${i}` })).Id);
  const got = await Promise.all(ids.map((_, i) => q.lease(`q-${i}`, 'q', [STEP])));
  expect(got.every(Boolean)).toBe(true);
  expect(got.map((x) => x!.Id).sort((a, b) => a - b)).toEqual(ids);
  expect(await q.lease('q-more', 'q', [STEP])).toBeNull();
  // the oldest few are handed out first (a hand-out picks among the PICK_AMONG oldest of its read-ahead)
  const first = got.slice(0, 8).map((x) => x!.Id);
  expect(Math.max(...first)).toBeLessThanOrEqual(ids[15]);
  // one ant's task comes back (disconnect) while newer tasks are queued: it is handed out next
  const back = got[5]!;
  await t.ok(admin, 'ant.addTask', { step: STEP, item: 'q-new' });
  expect(await q.releaseOwner('q-5')).toBe(1);
  const again = await Promise.all([q.lease('q-r1', 'q', [STEP]), q.lease('q-r2', 'q', [STEP])]);
  expect(again.map((x) => x?.Id)).toContain(back.Id);
  expect(again.every(Boolean)).toBe(true);
});

test('an ant tunnelling through tinyproxy with CONNECT (ANT_PROXY_TUNNEL=1)', async () => {
  const op = await operator(admin);
  await ok(op, 'ant_stop_all');
  await ok(op, 'server.set_status_used_proxy', { status: 2 });
  const z = await startAnt({ hubUrl: t.url, token, name: 'ant-tunnel', proxyTunnel: true });
  ants.push(z);
  await t.ok(admin, 'ant.addTask', { step: 4, item: `${site.url}/item/t1` });
  await ok(op, 'ant_start', { id: z.id() });
  await waitFor('scanned through the tunnel', async () => (await ok<AntConnection[]>(op, 'get_list_connections')).find((c) => c.id === z.id())?.count_send).catch((e) => {
    console.log(z.logLines('out'), z.logLines('err'));
    throw e;
  });
  const c = (await ok<AntConnection[]>(op, 'get_list_connections')).find((q) => q.id === z.id())!;
  expect(c.proxy).toBe(proxy.ip);
  expect(proxy.log()).toContain(`CONNECT ${site.url.replace('http://', '')}`);
  await ok(op, 'ant_stop_all');
  await ok(op, 'server.set_status_used_proxy', { status: 0 });
});

describe('two console instances on Redis, ants on each', () => {
  const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let a: TestApp;
  let b: TestApp;
  const mine: TestAnt[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ant-cluster-'));
    const shared = { SECRET_KEY: 'k'.repeat(40), REDIS_URL, CRON_ENABLED: '0' };
    a = await startApp(process.env.TEST_DATABASE_URL ? shared : { ...shared, DATABASE_URL: `sqlite:${join(dir, 'shared.sqlite')}` });
    const db = a.cfg.database;
    b = await startApp({ ...shared, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` });
  }, 60_000);
  afterAll(async () => {
    for (const x of mine) await x.stop().catch(() => undefined);
    await b?.close();
    await a?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('one queue and one view: A lists and commands the ant on B, which works a task queued on A', async () => {
    const hash = (await a.session(1)).hash;
    const { token: tk } = await a.ok(hash, 'ant.createToken', { name: 'cluster' });
    const onA = await startAnt({ hubUrl: a.url, token: tk, name: 'on-a' });
    const onB = await startAnt({ hubUrl: b.url, token: tk, name: 'on-b' });
    mine.push(onA, onB);
    const op = io(a.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false, forceNew: true });
    sockets.push(op);
    await new Promise<void>((r) => op.once('connect', () => r()));
    const list = await ok<AntConnection[]>(op, 'get_list_connections');
    const names = list.filter((c) => c.status !== 'moder').map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['on-a', 'on-b']));
    const workers = new Set(list.filter((c) => c.name.startsWith('on-')).map((c) => c.worker));
    expect(workers.size).toBe(2);
    await ok(op, 'worker_start');
    await a.ok(hash, 'ant.addTask', { step: 20, item: 'http://example.invalid/page' });
    expect(await ok(op, 'ant_start', { id: onB.id() })).toMatchObject({ ok: true, message: 'Started' });
    await waitFor('worked on B', async () => (await ok<AntConnection[]>(op, 'get_list_connections')).find((c) => c.id === onB.id())?.count_send);
    expect(onB.logLines('out').join('\n')).toContain('task');
    expect(onB.logLines('out').join('\n')).toContain('step 20 http://example.invalid/page');
    await ok(op, 'ant_stop', { id: onB.id() });
  });
});
