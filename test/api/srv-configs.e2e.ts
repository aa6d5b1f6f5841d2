/**
 * Cluster configs (000 §2 /srv/configs_global, §3, §4 row states, §7 cfg.*) and domains (GET /cfg/domains,
 * cfg.getDomains: the config rows of type 'domain').
 */
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
});
afterAll(async () => { await t?.close(); });

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

describe(`cluster configs (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test("insert, update, remove batches answer 'Insert ok!', 'Update ok!', 'Delete ok!'", async () => {
    const ins = await ok('cfg.insertConfigsBatch', [
      { type: 'firewall_used_ip_drop', value: '1' },
      { type: 'cluster_host', value: 'https://node1.example:8443|main' },
      { type: 'note', value: 'multi\nline' },
    ]);
    expect(ins).toMatchObject({ message: 'Insert ok!', count: 3 });
    expect(ins.list.map((r: any) => r.type)).toEqual(['firewall_used_ip_drop', 'cluster_host', 'note']);
    const [fw, host, note] = ins.list;
    expect(await ok('cfg.getConfigs')).toEqual([host, fw, note]); // by type, then Id

    const upd = await ok('cfg.updateConfigsBatch', { list: [{ ...fw, value: '0' }, { ...note, type: 'note2' }] });
    expect(upd).toEqual({ message: 'Update ok!', count: 2 });
    expect(await ok('cfg.getConfigs', { type: 'firewall_used_ip_drop' })).toEqual([{ ...fw, value: '0' }]);
    expect((await ok('cfg.getConfigs', { type: 'note2' }))[0].value).toBe('multi\nline');

    const rem = await ok('cfg.removeConfigs', [note.Id, { Id: fw.Id }]);
    expect(rem).toEqual({ message: 'Delete ok!', count: 2 });
    expect((await ok('cfg.getConfigs')).map((r: any) => r.Id)).toEqual([host.Id]);
  });

  test('an update batch with an unknown Id changes nothing (all or none)', async () => {
    const { list: [row] } = await ok('cfg.insertConfigsBatch', [{ type: 'atomic', value: 'before' }]);
    const r = await t.rpc<any>(admin, 'cfg.updateConfigsBatch', [{ Id: row.Id, type: 'atomic', value: 'after' }, { Id: 987654, type: 'x', value: 'y' }]);
    expect(r.env).toMatchObject({ status: 'empty', code: 404, message: 'Config rows not found: 987654' });
    expect(await ok('cfg.getConfigs', { type: 'atomic' })).toEqual([{ ...row, value: 'before' }]);
  });

  test('validation names the row and field; an empty batch and a missing type are refused', async () => {
    const bad = await t.rpc<any>(admin, 'cfg.insertConfigsBatch', [{ type: 'ok_type', value: 'v' }, { type: 'bad type!', value: 'v' }, { type: 'domain', value: 'not a domain' }]);
    expect(bad.env).toMatchObject({ status: 'rules', code: 422 });
    expect(Object.keys((bad.env as any).fields).sort()).toEqual(['list.1.type', 'list.2.value']);
    expect((await t.rpc<any>(admin, 'cfg.insertConfigsBatch', [])).env).toMatchObject({ code: 422 });
    expect((await t.rpc<any>(admin, 'cfg.insertConfigsBatch', [{ value: 'x' }])).env).toMatchObject({ code: 422, fields: { 'list.0.type': expect.any(String) } });
    expect((await t.rpc<any>(admin, 'cfg.insertConfigsBatch', [{ type: 'cluster_host', value: 'no-url' }])).env).toMatchObject({ code: 422 });
    expect((await t.rpc<any>(admin, 'cfg.removeConfigs', ['x'])).env).toMatchObject({ code: 422 });
    expect((await ok('cfg.getConfigs', { type: 'ok_type' }))).toEqual([]);
  });

  test("domains come from the config rows of type 'domain': GET /cfg/domains and cfg.getDomains", async () => {
    expect(await ok('cfg.getDomains')).toEqual([]);
    await ok('cfg.insertConfigsBatch', [
      { type: 'domain', value: 'Books.Example' },
      { type: 'domain', value: 'alpha.example' },
      { type: 'domain', value: 'books.example' },
      { type: 'cluster_host', value: 'http://not-a-domain.example' },
    ]);
    const expected = [{ domain: 'alpha.example' }, { domain: 'books.example' }];
    expect(await ok('cfg.getDomains')).toEqual(expected);
    const rest = await t.rest<any>(admin, 'GET', '/cfg/domains');
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ status: 'ok', result: expected });
  });

  test('roles: only admins', async () => {
    for (const role of [10, 100]) {
      const { hash } = await t.session(role);
      for (const m of ['cfg.getConfigs', 'cfg.getDomains', 'cfg.insertConfigsBatch', 'cfg.updateConfigsBatch', 'cfg.removeConfigs']) {
        const r = await t.rpc<any>(hash, m, [{ type: 'x', value: 'y' }]);
        expect([m, r.status]).toEqual([m, 403]);
      }
      expect((await t.rest(hash, 'GET', '/cfg/domains')).status).toBe(403);
    }
    expect(await ok('cfg.getConfigs', { type: 'x' })).toEqual([]);
  });
});
