/**
 * Audit log (issue 7, "The UI as a new operator meets it"): the date range of audit.getList (from/to,
 * server-side, both bounds inclusive), the object each entry acted on (`target`, named by the service
 * that knows it: the server of a `{Id, status}` write, over RPC and REST), one entry by Id
 * (audit.get), and cron.getActions (only registered methods; each suggestion without arguments saves).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AuditRow, Paged } from '../../src/contracts/auth.js';
import { actionName, parseCronCmd, type CronAction } from '../../src/contracts/cron.js';
import { AuditEntity } from '../../src/core/audit/audit.entity.js';
import { AuditService } from '../../src/core/audit/audit.service.js';
import { RpcRegistry } from '../../src/core/rpc/rpc.registry.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
const db = () => (process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite');

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
});
afterAll(async () => { await t?.close(); });

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
const list = (args: Record<string, unknown>) => ok<Paged<AuditRow>>('audit.getList', { limit: 500, ...args });

describe(`audit on ${db()}`, () => {
  test('audit.getList filters by date range on the server: dates are whole UTC days, date-times keep their zone, both bounds inclusive', async () => {
    const repo = t.app.get<DataSource>(getDataSourceToken()).getRepository(AuditEntity);
    const at = (iso: string, n: number) => ({ ts: new Date(iso), uid: null, login: 'range', method: `test.range${n}`, args: null, target: null, outcome: 'ok' as const, message: null, ip: null, duration_ms: 0 });
    await repo.insert([
      at('2020-01-01T00:00:00.000Z', 1),
      at('2020-01-01T10:00:00.000Z', 2),
      at('2020-01-02T23:59:59.500Z', 3),
      at('2020-01-03T00:00:00.000Z', 4),
      at('2020-02-01T12:00:00.000Z', 5),
    ]);
    const methods = async (args: Record<string, unknown>) => (await list({ login: 'range', ...args })).list.map((r) => r.method).sort();

    expect(await methods({})).toEqual(['test.range1', 'test.range2', 'test.range3', 'test.range4', 'test.range5']);
    expect(await methods({ from: '2020-01-01', to: '2020-01-02' })).toEqual(['test.range1', 'test.range2', 'test.range3']);
    expect(await methods({ from: '2020-01-02' })).toEqual(['test.range3', 'test.range4', 'test.range5']);
    expect(await methods({ to: '2020-01-01' })).toEqual(['test.range1', 'test.range2']);
    expect(await methods({ from: '2020-01-03', to: '2020-01-03' })).toEqual(['test.range4']);
    // A local day in UTC-05:00 (what the UI sends): 2020-01-02 there is 05:00 UTC that day to 04:59:59.999 the next.
    expect(await methods({ from: '2020-01-02T00:00:00.000-05:00', to: '2020-01-02T23:59:59.999-05:00' })).toEqual(['test.range3', 'test.range4']);
    expect(await methods({ from: '2020-01-01T10:00:00Z', to: '2020-01-01T10:00:00Z' })).toEqual(['test.range2']);
    expect(await methods({ from: '', to: '' })).toHaveLength(5);
    // The count and the pages follow the filter.
    const paged = await list({ login: 'range', from: '2020-01-01', to: '2020-01-02', limit: 2, page: 2 });
    expect(paged).toMatchObject({ count: 3, page: 2, limit: 2 });
    expect(paged.list.map((r) => r.method)).toEqual(['test.range1']);

    // Refusals name the field: not a date, a date-time without a zone, a range that ends before it starts.
    for (const [args, field] of [
      [{ from: '2020-13-01' }, 'from'], [{ to: 'yesterday' }, 'to'], [{ from: '2020-01-01T10:00:00' }, 'from'],
      [{ from: 5 }, 'from'], [{ from: '2020-01-03', to: '2020-01-02' }, 'to'],
    ] as const) {
      const r = await t.rpc(admin, 'audit.getList', args);
      expect({ args, code: (r.env as { code?: number }).code, env: r.env.status }).toEqual({ args, code: 422, env: 'rules' });
      expect(Object.keys((r.env as { fields?: object }).fields ?? {})).toEqual([field]);
    }
  });

  test('audit.getList method filter: LIKE wildcards and the escape character match themselves', async () => {
    const repo = t.app.get<DataSource>(getDataSourceToken()).getRepository(AuditEntity);
    const at = (method: string) => ({ ts: new Date(), uid: null, login: 'likes', method, args: null, target: null, outcome: 'ok' as const, message: null, ip: null, duration_ms: 0 });
    await repo.insert([at('test.like_a'), at('test.likeXa'), at('test.100%'), at('test.like!x'), at('test.plain')]);
    const methods = async (method: string) => (await list({ login: 'likes', method })).list.map((r) => r.method).sort();
    expect(await methods('%')).toEqual(['test.100%']);
    expect(await methods('_')).toEqual(['test.like_a']);
    expect(await methods('like_a')).toEqual(['test.like_a']);
    expect(await methods('!')).toEqual(['test.like!x']);
    expect(await methods('!x')).toEqual(['test.like!x']);
    expect(await methods('test.')).toHaveLength(5);
  });

  test('a server {Id, status} write names the server in its audit entry (RPC and REST), and so do removes and refusals after the lookup', async () => {
    const { Id } = await ok<{ Id: number }>('srv.save_server', { name: 'audit-web-1', type: 8, ip: '203.0.113.77' });
    await ok('srv.save_server', { Id, status: 0 });
    const rpcRow = (await list({ method: 'srv.save_server' })).list[0];
    expect(rpcRow).toMatchObject({ method: 'srv.save_server', outcome: 'ok', target: `server audit-web-1 (#${Id})` });
    expect(JSON.parse(rpcRow.args)).toEqual({ Id, status: 0 });

    // The create names the new server too.
    const created = (await list({ method: 'srv.save_server' })).list.find((r) => JSON.parse(r.args).name === 'audit-web-1');
    expect(created?.target).toBe(`server audit-web-1 (#${Id})`);

    const rest = await t.rest<any>(admin, 'POST', '/srv/save_server', { Id, status: 1 });
    expect(rest.body.status).toBe('ok');
    expect((await list({ method: 'POST /api/srv/save_server' })).list[0]).toMatchObject({ outcome: 'ok', target: `server audit-web-1 (#${Id})` });

    // A refused write on a known server still names it; an unknown Id names nothing.
    const bad = await t.rpc(admin, 'srv.save_server', { Id, cod: Id });
    expect(bad.env.status).toBe('rules');
    expect((await list({ method: 'srv.save_server', outcome: 'error' })).list[0]).toMatchObject({ target: `server audit-web-1 (#${Id})` });
    const missing = await t.rpc(admin, 'srv.save_server', { Id: 999999, status: 0 });
    expect(missing.env.status).toBe('empty');
    expect((await list({ method: 'srv.save_server', outcome: 'error' })).list[0]).toMatchObject({ target: null, message: 'Server 999999 not found' });

    // The name is taken before the row goes.
    await ok('srv.remove_server_by_id', { Id });
    expect((await list({ method: 'srv.remove_server_by_id' })).list[0]).toMatchObject({ outcome: 'ok', target: `server audit-web-1 (#${Id})` });

    // Other areas name their objects the same way: users and cron tasks.
    const me = await t.session(1);
    await ok('user.save', { uid: me.uid, name: 'Administrator' });
    expect((await list({ method: 'user.save' })).list[0].target).toBe(`user admin (#${me.uid})`);
    const task = await ok<{ Id: number }>('cfg.saveAppCron', { name: 'audit task', cmd: 'path=cron|method=reload', suspended: 1 });
    expect((await list({ method: 'cfg.saveAppCron' })).list[0].target).toBe(`cron task audit task (#${task.Id})`);
    await ok('cfg.appCronDelete', { Id: task.Id });
    expect((await list({ method: 'cfg.appCronDelete' })).list[0].target).toBe(`cron task audit task (#${task.Id})`);
    // Reads are not audited, whatever they look up.
    const before = (await list({})).count;
    await ok('srv.getList');
    expect((await list({})).count).toBe(before);
  });

  test('retention: entries older than the days kept are removed in batches, newer ones stay; 0 keeps everything', async () => {
    const repo = t.app.get<DataSource>(getDataSourceToken()).getRepository(AuditEntity);
    const audit = t.app.get(AuditService);
    const now = Date.parse('2031-06-01T00:00:00Z');
    const day = 86_400_000;
    const row = (ageDays: number, i: number) => ({ ts: new Date(now - ageDays * day), uid: null, login: 'retention', method: `test.keep${i}`, args: null, target: null, outcome: 'ok' as const, message: null, ip: null, duration_ms: 0 });
    // 5,100 old entries (more than one batch of 5,000) and 3 newer than 30 days
    const old = Array.from({ length: 5_100 }, (_, i) => row(31 + (i % 400), i));
    for (let i = 0; i < old.length; i += 500) await repo.insert(old.slice(i, i + 500));
    await repo.insert([row(29, 1), row(1, 2), row(0, 3)]);
    expect(await audit.prune(0, now)).toBe(0);
    const before = await repo.count();
    // every entry of the other tests is older than 2031-05-02 too
    const older = await repo.createQueryBuilder('a').where('a.ts < :b', { b: new Date(now - 30 * day) }).getCount();
    expect(await audit.prune(30, now)).toBe(older);
    expect(await repo.count()).toBe(before - older);
    expect((await repo.find({ where: { login: 'retention' } })).map((r) => r.method).sort()).toEqual(['test.keep1', 'test.keep2', 'test.keep3']);
    expect(await audit.prune(30, now)).toBe(0);
  });

  test('audit.get answers one entry with its whole (masked) arguments; 404 for an unknown Id, 422 for a bad one', async () => {
    const args = { name: 'audit-web-2', type: 8, ip: '203.0.113.78', sshpass: 'Very-Secret-Audit-9', note_like: 'x'.repeat(250) };
    const bad = await t.rpc(admin, 'srv.save_server', args); // refused (unknown field or not), audited either way
    expect(bad.status).toBeLessThan(500);
    const row = (await list({ method: 'srv.save_server' })).list[0];
    const one = await ok<AuditRow>('audit.get', { Id: row.Id });
    expect(one).toEqual(row);
    const parsed = JSON.parse(one.args);
    expect(parsed).toMatchObject({ name: 'audit-web-2', sshpass: '***', note_like: 'x'.repeat(250) });
    expect(JSON.stringify(one)).not.toContain('Very-Secret-Audit-9');

    const missing = await t.rpc(admin, 'audit.get', { Id: 99999999 });
    expect({ code: (missing.env as { code?: number }).code, env: missing.env.status }).toEqual({ code: 404, env: 'empty' });
    const wrong = await t.rpc(admin, 'audit.get', { Id: 'abc' });
    expect({ code: (wrong.env as { code?: number }).code, env: wrong.env.status }).toEqual({ code: 422, env: 'rules' });
    const user = (await t.session(100)).hash;
    expect((await t.rpc(user, 'audit.get', { Id: row.Id })).status).toBe(403);
  });

  test('cron.getActions lists only registered state-changing methods, each with the cmd that names it; every one without arguments saves, the others say what they need', async () => {
    const actions = await ok<CronAction[]>('cron.getActions');
    const registry = t.app.get(RpcRegistry);
    expect(actions.length).toBeGreaterThan(3);
    expect(actions.map((a) => a.name)).toEqual([...actions.map((a) => a.name)].sort((a, b) => a.localeCompare(b)));
    for (const a of actions) {
      const m = registry.get(a.name);
      expect({ name: a.name, registered: !!m, write: m?.write, alias: m?.aliasOf }).toEqual({ name: a.name, registered: true, write: true, alias: undefined });
      const cmd = parseCronCmd(a.cmd);
      expect(cmd.kind === 'action' && actionName(cmd)).toBe(a.name);
      expect(a.summary).toBe(m?.summary ?? '');
    }
    const names = actions.map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['srv.sslCheckAll', 'cron.reload', 'srv.save_server']));
    expect(names).not.toContain('srv/action.noSuchThing');
    expect(names).not.toContain('srv.getList'); // a read
    expect(names).not.toContain('srv.clone_srv'); // an alias of srv.clone_server
    expect(actions.find((a) => a.name === 'srv.remove_server_by_id')?.args).toEqual(['Id']);
    expect(actions.find((a) => a.name === 'srv.sslCheckAll')?.args).toEqual([]);

    for (const a of actions) {
      const r = await t.rpc<{ Id: number }>(admin, 'cfg.saveAppCron', { name: `suggested ${a.name}`, cmd: a.cmd, suspended: 1 });
      if (a.args.length === 0) {
        expect({ name: a.name, status: r.env.status }).toEqual({ name: a.name, status: 'ok' });
        if (r.env.status === 'ok') await ok('cfg.appCronDelete', { Id: r.env.result.Id });
      } else {
        expect({ name: a.name, status: r.env.status }).toEqual({ name: a.name, status: 'rules' });
      }
    }
    // A method that is not registered is refused on save.
    const unknown = await t.rpc(admin, 'cfg.saveAppCron', { name: 'unknown', cmd: 'path=srv/action|method=noSuchThing', suspended: 1 });
    expect(unknown.env.status).toBe('rules');
  });
});
