/**
 * Cron (000 §2 "Cron", §3, §5, §7, §8) on the real app and a real database: the REST/RPC contract,
 * refusals, second-precision schedules against a local HTTP server, pause, run now, kill, overlap
 * skips, `path=`/`method=` actions run through the RPC registry, the service switch, the socket
 * messages and `cron.status` events, and a restart that resumes the schedules.
 */
import { jest } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { io, type Socket } from 'socket.io-client';
import type { Paged } from '../../src/contracts/auth.js';
import type { CronAction, CronRunView, CronStatus, CronStatusEvent, CronTaskView } from '../../src/contracts/cron.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { CronEngine } from '../../src/modules/cron/cron-engine.js';
import type { CronHttpThread } from '../../src/modules/cron/http/cron-http.thread.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/wait.js';

jest.setTimeout(60_000);

// ---------------------------------------------------------------------------------------------
// A local HTTP peer: /fast answers at once, /slow?ms= after a while, /never never, /fail with 500.

interface Hit { at: number; path: string; method: string; body: string }
interface Peer { url: string; hits: Hit[]; open: number; maxOpen: number; count(path: string): number; close(): Promise<void> }

async function startPeer(): Promise<Peer> {
  const peer = { hits: [] as Hit[], open: 0, maxOpen: 0 } as Peer;
  const pending = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      peer.hits.push({ at: Date.now(), path: u.pathname + u.search, method: req.method ?? '', body });
      peer.open++;
      peer.maxOpen = Math.max(peer.maxOpen, peer.open);
      const done = () => { peer.open--; pending.delete(res); };
      res.on('close', done);
      pending.add(res);
      if (u.pathname.startsWith('/fast')) res.end(`ok ${u.search}`);
      else if (u.pathname.startsWith('/fail')) { res.statusCode = 500; res.end('broken'); }
      else if (u.pathname.startsWith('/slow')) setTimeout(() => res.end('slow done'), Number(u.searchParams.get('ms') ?? 2000));
      // /never: no answer
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.count = (p) => peer.hits.filter((h) => h.path.startsWith(p)).length;
  peer.close = async () => {
    for (const res of pending) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return peer;
}


let t: TestApp;
let peer: Peer;
let admin: string;

beforeAll(async () => {
  peer = await startPeer();
  t = await startApp();
  admin = (await t.session(1)).hash;
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const ok = <T>(env: Envelope<T>): T => {
  if (env.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(env)}`);
  return env.result;
};
const rpc = async <T>(method: string, args?: unknown, app = t, hash = admin) => ok((await app.rpc<T>(hash, method, args)).env);
const save = async (task: Record<string, unknown>, app = t) => rpc<{ Id: number; message: string }>('cfg.saveAppCron', task, app);
const runs = async (Id: number, app = t) => (await rpc<Paged<CronRunView>>('cron.getRuns', { Id, limit: 100 }, app)).list;
const task = async (Id: number, app = t) => rpc<CronTaskView>('cfg.getAppCron', { Id }, app);
const everySecond = (name: string, cmd: string, extra: Record<string, unknown> = {}) => ({ name, second: '*', cmd, ...extra });

/** The engine's inside (white box): its cron HTTP thread and each task's runs posted ahead to it. */
const engine = () => t.app.get(CronEngine) as unknown as { http: CronHttpThread | null; entries: Map<number, { posts: Array<{ at: number }> }> };
/**
 * Waits until the task's run of a coming second has been posted to the cron HTTP thread and that
 * second is still `margin` ms away; answers the second (epoch ms).
 */
async function postedAhead(Id: number, margin = 250): Promise<number> {
  await engine().http!.whenReady();
  const end = Date.now() + 10_000;
  for (;;) {
    const p = engine().entries.get(Id)?.posts.find((x) => x.at - Date.now() > margin);
    if (p) return p.at;
    if (Date.now() > end) throw new Error(`no run of task ${Id} posted ahead`);
    await sleep(5);
  }
}

describe(`cron tasks: contract (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('POST /api/cfg/save_app_cron creates with the defaults and answers {Id}; GET ?Id= answers it; GET lists; update; delete', async () => {
    const created = await t.rest<Envelope<{ Id: number; message: string }>>(admin, 'POST', '/cfg/save_app_cron', { name: 'Nightly sync', cmd: 'path=cfg|method=getDomains', suspended: 1 });
    expect(created.status).toBe(200);
    const { Id, message } = ok(created.body);
    expect(message).toBe('Save is ok!');
    expect(Id).toBeGreaterThan(0);

    const one = ok((await t.rest<Envelope<CronTaskView>>(admin, 'GET', `/cfg/app_cron?Id=${Id}`)).body);
    expect(one).toMatchObject({ Id, name: 'Nightly sync', second: '0', minute: '*', hour: '*', day: '*', month: '*', week: '*', cmd: 'path=cfg|method=getDomains', suspended: 1, saved_by: 'admin', running: false, next_run: null });
    expect(Date.parse(one.added)).toBeGreaterThan(Date.now() - 60_000);

    const list = ok((await t.rest<Envelope<CronTaskView[]>>(admin, 'GET', '/cfg/app_cron')).body);
    expect(list.map((x) => x.Id)).toContain(Id);

    // With Id: only the given fields change; the schedule is kept; next_run appears once resumed.
    ok((await t.rest<Envelope<unknown>>(admin, 'POST', '/cfg/save_app_cron', { Id, minute: '*/5', suspended: 0 })).body);
    const updated = await task(Id);
    expect(updated).toMatchObject({ name: 'Nightly sync', second: '0', minute: '*/5', suspended: 0 });
    const next = new Date(updated.next_run!);
    expect(next.getUTCSeconds()).toBe(0);
    expect(next.getUTCMinutes() % 5).toBe(0);

    // The spec's RPC names: saveAppCron, cfg.appCronDelete and deleteAppCron(Id).
    const viaAlias = await rpc<{ Id: number }>('saveAppCron', { Id, name: 'Renamed' });
    expect(viaAlias.Id).toBe(Id);
    expect((await task(Id)).name).toBe('Renamed');
    expect(await rpc('cfg.appCronDelete', { Id })).toEqual({ Id, message: 'Delete is ok!' });
    const gone = await t.rest<Envelope<unknown>>(admin, 'GET', `/cfg/app_cron?Id=${Id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ status: 'empty' });

    const other = await save({ name: 'x', cmd: 'curl=http://127.0.0.1:9/x', suspended: 1 });
    expect(await rpc('deleteAppCron', other.Id)).toEqual({ Id: other.Id, message: 'Delete is ok!' });
    expect((await t.rpc(admin, 'cfg.appCronDelete', { Id: other.Id })).env).toMatchObject({ status: 'empty', code: 404 });
  });

  test("a form's empty Id ('' or 0) creates; GET with an empty Id lists", async () => {
    const a = ok((await t.rest<Envelope<{ Id: number }>>(admin, 'POST', '/cfg/save_app_cron', { Id: '', name: 'from a form', cmd: 'curl=http://127.0.0.1:9/a', suspended: '1' })).body);
    const b = await save({ Id: 0, name: 'from a form 2', cmd: 'curl=http://127.0.0.1:9/b', suspended: 1 });
    expect(b.Id).toBeGreaterThan(a.Id);
    const list = ok((await t.rest<Envelope<CronTaskView[]>>(admin, 'GET', '/cfg/app_cron?Id=')).body);
    expect(list.filter((x) => x.name.startsWith('from a form')).map((x) => x.suspended)).toEqual([1, 1]);
    await rpc('cfg.appCronDelete', { Id: a.Id });
    await rpc('cfg.appCronDelete', b.Id);
  });

  test('the cmd is stored in its canonical form', async () => {
    const { Id } = await save({ name: 'canon', cmd: ' method = POST | curl = http://127.0.0.1:9/hook | arg=a=1&&b=2', suspended: 1 });
    expect((await task(Id)).cmd).toBe('curl=http://127.0.0.1:9/hook|method=POST|arg=a=1&&b=2');
    await rpc('cfg.appCronDelete', { Id });
  });

  test.each([
    [{ name: 'x', second: '75', cmd: 'curl=http://h/' }, 'second', /second '75' is not valid/],
    [{ name: 'x', hour: '1-', cmd: 'curl=http://h/' }, 'hour', /hour '1-' is not valid/],
    [{ name: 'x', week: 'FUNDAY', cmd: 'curl=http://h/' }, 'week', /week 'FUNDAY' is not valid/],
    [{ name: 'x', day: '31', month: '2', cmd: 'curl=http://h/' }, 'day', /never runs/],
    [{ name: '', cmd: 'curl=http://h/' }, 'name', /^(name: )?Name is required$/],
    [{ name: 'x', cmd: ' ' }, 'cmd', /^(cmd: )?CMD is required$/],
    [{ name: 'x' }, 'cmd', /^(cmd: )?CMD is required$/],
    [{ name: 'x', cmd: 'path=srv/action|method=noSuchThing' }, 'cmd', /unknown action 'srv\/action\.noSuchThing'/],
    [{ name: 'x', cmd: 'path=cfg|method=appCronDelete|arg=nope' }, 'cmd', /arguments of 'cfg\.appCronDelete'.*Id/],
    [{ name: 'x', cmd: '/bin/sh -c reboot' }, 'cmd', /not key=value/],
    [{ name: 'x', cmd: 'curl=file:///etc/passwd' }, 'cmd', /http:\/\/ or https:\/\//],
  ])('refuses %j with a message naming %s (REST and RPC, never a 5xx)', async (body, field, msg) => {
    const r = await t.rest<Envelope<unknown>>(admin, 'POST', '/cfg/save_app_cron', body);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ status: 'rules' });
    const env = r.body as { message: string; fields: Record<string, string> };
    expect(env.fields[field]).toMatch(msg);
    expect(env.message).toMatch(msg);
    const viaRpc = await t.rpc(admin, 'saveAppCron', body);
    expect(viaRpc.env).toMatchObject({ status: 'rules', code: 422, fields: { [field]: expect.stringMatching(msg) } });
  });

  test('an update that breaks a stored task is refused and changes nothing', async () => {
    const { Id } = await save({ name: 'keep', cmd: 'curl=http://127.0.0.1:9/x', suspended: 1 });
    const r = await t.rest<Envelope<unknown>>(admin, 'POST', '/cfg/save_app_cron', { Id, minute: '99' });
    expect(r.status).toBe(422);
    expect((await task(Id)).minute).toBe('*');
    expect((await t.rest(admin, 'POST', '/cfg/save_app_cron', { Id: 999999, name: 'x' })).status).toBe(404);
    await rpc('cfg.appCronDelete', { Id });
  });

  test('admins only: a role-10 user is refused on REST, RPC and socket', async () => {
    const content = (await t.session(10)).hash;
    expect((await t.rest(content, 'GET', '/cfg/app_cron')).status).toBe(403);
    expect((await t.rest(content, 'POST', '/cfg/save_app_cron', { name: 'x', cmd: 'curl=http://h/' })).status).toBe(403);
    expect((await t.rpc(content, 'cron.executeTask', { Id: 1 })).status).toBe(403);
  });
});

describe('cron engine', () => {
  test('a task every second runs at least twice within 3 s; its history records ok, the HTTP status and the output tail', async () => {
    const { Id } = await save(everySecond('tick', `curl=${peer.url}/fast/a|arg=x=1`));
    const since = Date.now();
    await waitFor('two hits', () => peer.count('/fast/a') >= 2, 3_000 + 1_500);
    expect(peer.hits.filter((h) => h.path.startsWith('/fast/a') && h.at - since <= 3_000 + 1_000).length).toBeGreaterThanOrEqual(2);
    expect(peer.hits.find((h) => h.path.startsWith('/fast/a'))!.path).toBe('/fast/a?x=1');
    await rpc('saveAppCron', { Id, suspended: 1 });
    const list = await waitFor('two recorded runs', async () => { const l = await runs(Id); return l.filter((r) => r.status === 'ok').length >= 2 && l; });
    const r = list.find((x) => x.status === 'ok')!;
    expect(r).toMatchObject({ task_id: Id, source: 'tick', message: 'HTTP 200 OK', output: 'ok ?x=1' });
    expect(Date.parse(r.ended)).toBeGreaterThanOrEqual(Date.parse(r.started));
    expect(r.duration_ms).toBe(Date.parse(r.ended) - Date.parse(r.started));
    // The scheduled second is a whole second, and the start comes at or after it.
    expect(Date.parse(r.scheduled!) % 1000).toBe(0);
    expect(Date.parse(r.started)).toBeGreaterThanOrEqual(Date.parse(r.scheduled!));
    const card = await task(Id);
    expect(card).toMatchObject({ last_status: 'ok', last_message: 'HTTP 200 OK', running: false });
    expect(card.last_start).not.toBeNull();
    await rpc('cfg.appCronDelete', { Id });
  });

  test('tasks due at the same second all run for that second (one timer for every task, nothing moved to another second)', async () => {
    const names = ['same-a', 'same-b', 'same-c'];
    const ids: number[] = [];
    for (const n of names) ids.push((await save(everySecond(n, `curl=${peer.url}/fast/${n}`))).Id);
    await waitFor('each ran twice', () => names.every((n) => peer.count(`/fast/${n}`) >= 2), 5_000);
    for (const Id of ids) await rpc('saveAppCron', { Id, suspended: 1 });
    const seconds = await Promise.all(ids.map(async (Id) => new Set((await runs(Id)).filter((r) => r.source === 'tick').map((r) => r.scheduled))));
    for (const set of seconds) for (const sec of set) expect(Date.parse(sec!) % 1000).toBe(0);
    // The seconds between the last creation and the first pause were run by all three, for the same scheduled second.
    const shared = [...seconds[0]].filter((sec) => seconds[1].has(sec) && seconds[2].has(sec));
    expect(shared.length).toBeGreaterThanOrEqual(1);
    for (const Id of ids) await rpc('cfg.appCronDelete', { Id });
  });

  test('an HTTP run posted ahead to the thread does not start once its task is paused, edited or run now before its second', async () => {
    // Paused after the posting, before its second: no request for that second, nor after.
    const paused = await save(everySecond('posted pause', `curl=${peer.url}/fast/posted-pause`));
    await waitFor('a tick', () => peer.count('/fast/posted-pause') >= 1, 15_000);
    let at = await postedAhead(paused.Id);
    await save({ Id: paused.Id, suspended: 1 });
    expect(Date.now()).toBeLessThan(at); // the pause came before the second (else this test proves nothing)
    await sleep(at - Date.now() + 700);
    expect(peer.hits.filter((h) => h.path.startsWith('/fast/posted-pause') && h.at >= at)).toEqual([]);
    expect((await runs(paused.Id)).filter((r) => Date.parse(r.scheduled ?? '') >= at)).toEqual([]);

    // The cmd edited after the posting: that second runs the new request, never the old one.
    const edited = await save(everySecond('posted edit', `curl=${peer.url}/fast/posted-old`));
    at = await postedAhead(edited.Id);
    await save({ Id: edited.Id, cmd: `curl=${peer.url}/fast/posted-new` });
    const savedAt = Date.now();
    expect(savedAt).toBeLessThan(at);
    await waitFor('the new request', () => peer.hits.some((h) => h.path.startsWith('/fast/posted-new')), 3_000);
    expect(peer.hits.filter((h) => h.path.startsWith('/fast/posted-old') && h.at >= savedAt)).toEqual([]);
    await waitFor('the run of that second', async () => (await runs(edited.Id)).some((r) => r.scheduled === new Date(at).toISOString() && r.status === 'ok'), 3_000);
    await rpc('cfg.appCronDelete', { Id: edited.Id });

    // Run now after the posting: the tick of that second finds it running and is skipped (never two requests at once).
    const slow = await save(everySecond('posted run now', `curl=${peer.url}/slow/posted-now?ms=1500`));
    await waitFor('a tick', () => peer.count('/slow/posted-now') >= 1, 15_000);
    await waitFor('the tick to end', async () => !(await task(slow.Id)).running, 5_000);
    at = await postedAhead(slow.Id);
    if ((await task(slow.Id)).running) at = await postedAhead(slow.Id); // a tick started meanwhile: the next second
    const ran = await t.rpc(admin, 'cron.executeTask', { Id: slow.Id });
    if (ran.env.status === 'ok') {
      expect(Date.now()).toBeLessThan(at);
      await waitFor('that second recorded', async () => (await runs(slow.Id)).some((r) => r.scheduled === new Date(at).toISOString()), 3_000);
      expect((await runs(slow.Id)).find((r) => r.scheduled === new Date(at).toISOString())).toMatchObject({ status: 'skipped', message: expect.stringMatching(/^Still running \(started /) });
    }
    await rpc('saveAppCron', { Id: slow.Id, suspended: 1 });
    await waitFor('the runs to end', async () => !(await task(slow.Id)).running, 5_000);
    const list = (await runs(slow.Id)).filter((r) => r.status !== 'skipped').map((r) => [Date.parse(r.started), Date.parse(r.ended)] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < list.length; i++) expect(list[i][0]).toBeGreaterThanOrEqual(list[i - 1][1]);
    await rpc('cfg.appCronDelete', { Id: slow.Id });
    await rpc('cfg.appCronDelete', { Id: paused.Id });
  });

  test('an HTTP failure is recorded as error with the status', async () => {
    const { Id } = await save({ name: 'fail', cmd: `curl=${peer.url}/fail|method=POST|arg=a=1`, suspended: 1 });
    await rpc('cron.executeTask', { Id });
    const [r] = await waitFor('a run', async () => { const l = await runs(Id); return l.length > 0 && l; });
    expect(r).toMatchObject({ status: 'error', message: 'HTTP 500 Internal Server Error', output: 'broken', source: 'manual' });
    expect(peer.hits.find((h) => h.path === '/fail')).toMatchObject({ method: 'POST', body: 'a=1' });
    await rpc('cfg.appCronDelete', { Id });
  });

  test('a paused task does not run; run now runs it once', async () => {
    const { Id } = await save(everySecond('paused', `curl=${peer.url}/fast/paused`, { suspended: 1 }));
    await sleep(2_500);
    expect(peer.count('/fast/paused')).toBe(0);
    expect(await rpc('cron.executeTask', { Id })).toEqual({ Id, message: 'Started' });
    await waitFor('one manual run', async () => (await runs(Id)).length === 1);
    await sleep(1_500);
    expect(peer.count('/fast/paused')).toBe(1);
    const list = await runs(Id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ source: 'manual', status: 'ok', scheduled: null });
    await rpc('cfg.appCronDelete', { Id });
  });

  test('kill ends a request that never answers within a second; the history says killed', async () => {
    const { Id } = await save({ name: 'hang', cmd: `curl=${peer.url}/never`, suspended: 1 });
    await rpc('cron.executeTask', { Id });
    await waitFor('the request to arrive', () => peer.count('/never') === 1);
    expect((await task(Id)).running).toBe(true);
    const again = await t.rpc(admin, 'cron.executeTask', { Id });
    expect(again.env).toMatchObject({ status: 'rules', code: 409, message: expect.stringMatching(/already running/) });
    const t0 = Date.now();
    expect(await rpc('cron.kill', { Id })).toEqual({ Id, killed: true, message: 'Killed' });
    expect(Date.now() - t0).toBeLessThan(1_000);
    const [r] = await runs(Id);
    expect(r).toMatchObject({ status: 'killed', message: 'Killed' });
    expect(r.duration_ms).toBeGreaterThan(0);
    expect(await task(Id)).toMatchObject({ running: false, last_status: 'killed' });
    expect((await t.rpc(admin, 'cron.kill', { Id })).env).toMatchObject({ status: 'rules', code: 409, message: expect.stringMatching(/not running/) });
    await waitFor('the peer to see the connection closed', () => peer.open === 0);
    await rpc('cfg.appCronDelete', { Id });
  });

  test('a task still running at its next tick is not started twice; the skip is recorded', async () => {
    const { Id } = await save(everySecond('overlap', `curl=${peer.url}/slow/overlap?ms=2500`));
    await waitFor('a skipped tick', async () => (await runs(Id)).some((r) => r.status === 'skipped'), 8_000);
    await rpc('saveAppCron', { Id, suspended: 1 });
    const list = await runs(Id);
    const skipped = list.find((r) => r.status === 'skipped')!;
    expect(skipped.message).toMatch(/^Still running \(started /);
    expect(peer.hits.filter((h) => h.path.startsWith('/slow/overlap'))).not.toHaveLength(0);
    // Never two requests of this task at once.
    const starts = list.filter((r) => r.status !== 'skipped').map((r) => [Date.parse(r.started), Date.parse(r.ended)] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < starts.length; i++) expect(starts[i][0]).toBeGreaterThanOrEqual(starts[i - 1][1]);
    await waitFor('the slow request to end', async () => !(await task(Id)).running, 5_000);
    await rpc('cfg.appCronDelete', { Id });
  });

  test('a path=/method= task runs its registered action with its args, as the admin who saved it', async () => {
    const { Id } = await save({ name: 'action', cmd: 'path=cfg|method=insertConfigsBatch|arg=[{"type":"cron_e2e","value":"from cron"}]', suspended: 1 });
    await rpc('cron.executeTask', { Id });
    const [r] = await waitFor('a run', async () => { const l = await runs(Id); return l.length > 0 && l; });
    expect(r).toMatchObject({ status: 'ok', message: 'Insert ok!' });
    expect(r.output).toContain('from cron');
    const rows = await rpc<Array<{ type: string; value: string }>>('cfg.getConfigs', { type: 'cron_e2e' });
    expect(rows).toEqual([expect.objectContaining({ type: 'cron_e2e', value: 'from cron' })]);
    // The action is audited under the saving admin, from the cron task.
    const audit = await rpc<Paged<{ method: string; login: string; ip: string }>>('audit.getList', { method: 'cfg.insertConfigsBatch' });
    expect(audit.list[0]).toMatchObject({ login: 'admin', ip: `cron#${Id}` });
    await rpc('cfg.appCronDelete', { Id });
  });

  test('a scheduled action runs on its tick; a failing action records its message', async () => {
    const { Id } = await save(everySecond('action tick', 'path=cfg|method=getDomains'));
    await waitFor('an ok tick', async () => (await runs(Id)).some((r) => r.status === 'ok' && r.source === 'tick'), 5_000);
    await rpc('cfg.appCronDelete', { Id });
    const bad = await save({ name: 'action fails', cmd: 'path=cfg|method=appCronDelete|arg=Id=999999', suspended: 1 });
    await rpc('cron.executeTask', { Id: bad.Id });
    const [r] = await waitFor('a run', async () => { const l = await runs(bad.Id); return l.length > 0 && l; });
    expect(r).toMatchObject({ status: 'error', message: 'Cron task 999999 not found' });
    await rpc('cfg.appCronDelete', { Id: bad.Id });
  });

  test('an action whose call cannot validate is refused on save, naming what it needs; cron.getActions lists it', async () => {
    // What a new user saved from the picker (issue 18): cat.update without arguments, which every run refused.
    const actions = await rpc<CronAction[]>('cron.getActions');
    const needs = (name: string) => actions.find((a) => a.name === name)?.args;
    expect({ cat: needs('cat.update'), cron: needs('cfg.saveAppCron'), site: needs('stream.siteSave') })
      .toEqual({ cat: ['cat_title'], cron: ['name', 'cmd'], site: ['name'] });
    for (const [cmd, msg] of [
      ['path=cat|method=update', /arguments of 'cat\.update': cat_title: cat_title is required/],
      ['path=cat|method=update|arg=cat_title=', /arguments of 'cat\.update': cat_title: cat_title is required/],
      ['path=stream|method=siteSave', /arguments of 'stream\.siteSave': name: name is required/],
      ['path=cfg|method=saveAppCron|arg=name=x', /arguments of 'cfg\.saveAppCron': cmd: CMD is required/],
    ] as const) {
      const r = await t.rpc(admin, 'cfg.saveAppCron', { name: 'needs args', cmd, suspended: 1 });
      expect({ cmd, env: r.env }).toMatchObject({ cmd, env: { status: 'rules', code: 422, fields: { cmd: expect.stringMatching(msg) } } });
    }
    // With what it needs, it saves; changing a category needs no title.
    const ok1 = await save({ name: 'new category', cmd: 'path=cat|method=update|arg=cat_title=From cron', suspended: 1 });
    const ok2 = await save({ name: 'category views', cmd: 'path=cat|method=update|arg=Id_cat=1&&cat_h1=H', suspended: 1 });
    await rpc('cfg.appCronDelete', { Id: ok1.Id });
    await rpc('cfg.appCronDelete', { Id: ok2.Id });
  });

  test('every action the picker offers without arguments runs as written (no run ends refusing its input)', async () => {
    const actions = (await rpc<CronAction[]>('cron.getActions')).filter((a) => a.args.length === 0);
    expect(actions.length).toBeGreaterThan(2);
    for (const a of actions) {
      const { Id } = await save({ name: `as written ${a.name}`, cmd: a.cmd, suspended: 1 });
      await rpc('cron.executeTask', { Id });
      const [r] = await waitFor(`a run of ${a.name}`, async () => { const l = await runs(Id); return l.length > 0 && l; }, 20_000);
      expect({ name: a.name, status: r.status, message: r.message }).toEqual({ name: a.name, status: 'ok', message: expect.anything() });
      await rpc('cfg.appCronDelete', { Id });
    }
  });

  test("an action refuses to run once the admin who saved it is deactivated", async () => {
    const other = await t.session(1, 'admin2');
    const { Id } = await save({ name: 'orphan', cmd: 'path=cfg|method=getDomains', suspended: 1 }, t);
    // Saved by admin2 (the owner becomes the admin who saved it last).
    ok((await t.rpc(other.hash, 'saveAppCron', { Id, name: 'orphan' })).env);
    expect((await task(Id)).saved_by).toBe('admin2');
    ok((await t.rpc(admin, 'user.save', { uid: other.uid, active: 0 })).env);
    await rpc('cron.executeTask', { Id });
    const [r] = await waitFor('a run', async () => { const l = await runs(Id); return l.length > 0 && l; });
    expect(r).toMatchObject({ status: 'error', message: expect.stringMatching(/admin2\) is not active/) });
    await rpc('cfg.appCronDelete', { Id });
  });

  test('the service switch off stops every schedule (running tasks finish); on resumes them', async () => {
    const a = await save(everySecond('svc a', `curl=${peer.url}/fast/svc-a`));
    const b = await save(everySecond('svc b', `curl=${peer.url}/slow/svc-b?ms=1500`));
    await waitFor('both running', () => peer.count('/fast/svc-a') > 0 && peer.count('/slow/svc-b') > 0, 5_000);
    await waitFor('b in flight', () => peer.open > 0, 5_000);
    expect(await rpc('cron.setServiceStatus', { service: 0 })).toEqual({ service: 0, scheduling: true });
    expect(await rpc('cron.getServiceStatus')).toEqual({ service: 0, scheduling: true });
    await sleep(300); // a request sent just before the switch reaches the peer
    const counts = [peer.count('/fast/svc-a'), peer.count('/slow/svc-b')];
    await sleep(2_500);
    expect([peer.count('/fast/svc-a'), peer.count('/slow/svc-b')]).toEqual(counts);
    // The run in flight when the switch went off finished normally.
    const bRuns = await runs(b.Id);
    expect(bRuns[0]).toMatchObject({ status: 'ok', message: 'HTTP 200 OK' });
    expect((await task(a.Id)).next_run).toBeNull();
    // Run now still works with the service off.
    await rpc('cron.executeTask', { Id: a.Id });
    await waitFor('the manual run', () => peer.count('/fast/svc-a') === counts[0] + 1);
    await rpc('cron.setServiceStatus', 1);
    await waitFor('ticks again', () => peer.count('/fast/svc-a') >= counts[0] + 3, 5_000);
    await rpc('cfg.appCronDelete', { Id: a.Id });
    await rpc('cfg.appCronDelete', { Id: b.Id });
  });

  test('deleting a running task kills the run and drops its history', async () => {
    const { Id } = await save({ name: 'delete me', cmd: `curl=${peer.url}/never/del`, suspended: 1 });
    await rpc('cron.executeTask', { Id });
    await waitFor('in flight', () => peer.count('/never/del') === 1);
    await rpc('cfg.appCronDelete', { Id });
    expect((await t.rpc(admin, 'cron.getRuns', { Id })).env).toMatchObject({ status: 'empty' });
    expect((await rpc<CronStatus>('cron.getStatus')).tasks.find((s) => s.Id === Id)).toBeUndefined();
  });
});

describe('cron socket messages (000 §7)', () => {
  const connect = (hash: string) => new Promise<Socket>((resolve, reject) => {
    const s = io(t.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false });
    s.on('connect', () => resolve(s));
    s.on('connect_error', reject);
  });

  test('getStatus, executeTask, kill, set/getServiceStatus, reload; cron.status events reach admins only', async () => {
    const sock = await connect(admin);
    const user = await connect((await t.session(100)).hash);
    const events: CronStatusEvent[] = [];
    const userEvents: unknown[] = [];
    sock.on('cron.status', (e: CronStatusEvent) => events.push(e));
    user.on('cron.status', (e) => userEvents.push(e));
    const ask = <T>(name: string, body?: unknown) => sock.timeout(5_000).emitWithAck(name, body ?? {}) as Promise<Envelope<T>>;

    const { Id } = await save({ name: 'socket', cmd: `curl=${peer.url}/slow/sock?ms=800`, suspended: 1 });
    await waitFor('the reload notice', () => events.some((e) => e.reload));
    const status = ok(await ask<CronStatus>('cron.getStatus'));
    expect(status).toMatchObject({ service: 1, scheduling: true });
    expect(status.tasks.find((s) => s.Id === Id)).toMatchObject({ Id, running: false, next_run: null });

    expect(ok(await ask('cron.executeTask', { Id }))).toEqual({ Id, message: 'Started' });
    const states = () => events.flatMap((e) => e.tasks ?? []).filter((s) => s.Id === Id);
    await waitFor('running then done', () => states().some((s) => s.running) && states().some((s) => !s.running && s.last_status === 'ok'), 5_000);
    const firstRunning = states().findIndex((s) => s.running);
    const firstDone = states().findIndex((s) => !s.running && s.last_status === 'ok');
    expect(firstRunning).toBeLessThan(firstDone);
    expect(states()[firstRunning].started).not.toBeNull();

    expect(await ask('cron.kill', { Id })).toMatchObject({ status: 'rules', message: expect.stringMatching(/not running/) });
    expect(ok(await ask('cron.setServiceStatus', { service: 0 }))).toEqual({ service: 0, scheduling: true });
    await waitFor('the service event', () => events.some((e) => e.service === 0));
    expect(ok(await ask('cron.getServiceStatus'))).toEqual({ service: 0, scheduling: true });
    expect(ok(await ask('cron.setServiceStatus', { service: 1 }))).toEqual({ service: 1, scheduling: true });
    expect(ok(await ask<CronStatus>('cron.reload')).tasks.map((s) => s.Id)).toContain(Id);
    expect(await ask('cron.executeTask', { nope: 1 })).toMatchObject({ status: 'rules', code: 422 });

    // A role-100 socket gets no cron events and is refused.
    const refused = new Promise<{ message: string }>((r) => user.once('exception', r));
    user.emit('cron.getStatus', {});
    expect((await refused).message).toMatch(/Forbidden/);
    expect(userEvents).toEqual([]);
    sock.close();
    user.close();
    await rpc('cfg.appCronDelete', { Id });
  });
});

describe('cron across a restart', () => {
  test('a restarted app resumes the schedules and keeps the service switch', async () => {
    // A database of its own, kept across the three app lifetimes (dropped when `first` closes).
    const first = await startApp();
    const db = first.cfg.database;
    const shared = { DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` };
    const h1 = (await first.session(1)).hash;
    const { Id } = ok((await first.rpc<{ Id: number }>(h1, 'saveAppCron', everySecond('survivor', `curl=${peer.url}/fast/restart`))).env);
    await waitFor('ticks', () => peer.count('/fast/restart') >= 1, 5_000);
    await first.app.close();
    await sleep(300);
    const stopped = peer.count('/fast/restart');
    await sleep(1_500);
    expect(peer.count('/fast/restart')).toBe(stopped);

    const second = await startApp(shared);
    try {
      await waitFor('ticks after the restart', () => peer.count('/fast/restart') >= stopped + 2, 6_000);
      const h2 = (await second.session(1)).hash;
      ok((await second.rpc(h2, 'cron.setServiceStatus', { service: 0 })).env);
      await second.app.close();
      const third = await startApp(shared);
      try {
        const h3 = (await third.session(1)).hash;
        expect(ok((await third.rpc(h3, 'cron.getServiceStatus')).env)).toEqual({ service: 0, scheduling: true });
        await sleep(300);
        const n = peer.count('/fast/restart');
        await sleep(2_000);
        expect(peer.count('/fast/restart')).toBe(n);
        ok((await third.rpc(h3, 'cron.setServiceStatus', { service: 1 })).env);
        await waitFor('ticks with the service back on', () => peer.count('/fast/restart') >= n + 1, 5_000);
        ok((await third.rpc(h3, 'cfg.appCronDelete', { Id })).env);
      } finally {
        await third.close();
      }
    } finally {
      await second.close().catch(() => undefined);
      await first.close().catch(() => undefined);
    }
  });
});
