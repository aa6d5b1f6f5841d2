/**
 * Servers inventory and map (000 §2 /srv/srv_map, §3 Server, §4 status toggle, §7 srv.* and /srv/*):
 * create/edit/partial saves, validation, secrets never sent back, grouping with FREE, clone, remove,
 * nginx upstream preview, roles.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
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
const create = async (fields: Record<string, unknown>) => (await ok<{ Id: number }>('srv.save_server', fields)).Id;

describe(`servers on ${db()}`, () => {
  test('save_server without Id creates and answers {Id}; srv.get answers every field of 000 §3 and no secret', async () => {
    const r = await t.rpc<any>(admin, 'srv.save_server', {
      name: 'web-a1', type: 8, ip: '203.0.113.10', ip_local: '10.0.0.10', sshlogin: 'deploy', sshpass: 'Very-Secret-Pass-1',
      sshport: 2222, cluster_key: 'cluster-key-secret-1', balance_web: 1,
    });
    expect(r.env).toEqual({ status: 'ok', result: { Id: expect.any(Number) } });
    const Id = (r.env as any).result.Id;
    const s = await ok('srv.get', { Id });
    expect(s).toMatchObject({
      Id, name: 'web-a1', type: 8, cod: 0, status: 1, ip: '203.0.113.10', ip_local: '10.0.0.10', sshlogin: 'deploy', sshport: 2222,
      number_in_nginx: 0, balance_db: 0, balance_cache: 0, balance_memcache: 0, balance_web: 1, read_nginx_log_firewall: 0,
      has_sshpass: true, has_private_key: false, has_cluster_key: true, host_key: null,
    });
    expect(s).not.toHaveProperty('sshpass');
    expect(s).not.toHaveProperty('cluster_key');
    const everywhere = JSON.stringify([s, await ok('srv.getList'), await ok('srv.servers_map'), (await t.rest(admin, 'GET', '/srv/list')).body, (await t.rest(admin, 'GET', '/srv/servers_map')).body]);
    expect(everywhere).toContain('web-a1');
    expect(everywhere).not.toContain('Very-Secret-Pass-1');
    expect(everywhere).not.toContain('cluster-key-secret-1');
    expect(everywhere).not.toMatch(/"(sshpass|sshkey|sshkey_pass|cluster_key)"/);
  });

  test('secrets are sealed at rest and masked in the audit log', async () => {
    const Id = await create({ name: 'sealed-1', type: 9, sshpass: 'Plain-Password-777', cluster_key: 'Plain-Cluster-777' });
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const [row] = await ds.query('SELECT sshpass, cluster_key FROM servers WHERE Id = ?', [Id]);
    expect(row.sshpass).toMatch(/^v1:/);
    expect(row.cluster_key).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain('Plain-');
    const audit = await ok('audit.getList', { method: 'srv.save_server', limit: 500 });
    expect(audit.list.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain('Plain-Password-777');
    expect(JSON.stringify(audit)).not.toContain('Plain-Cluster-777');
  });

  test('a secret is kept when omitted or empty, replaced when given, removed with *_clear', async () => {
    const Id = await create({ name: 'secret-keep', type: 9, sshpass: 'first-pass' });
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const sealed = async () => (await ds.query('SELECT sshpass FROM servers WHERE Id = ?', [Id]))[0].sshpass;
    const before = await sealed();
    await ok('srv.save_server', { Id, name: 'secret-keep', sshpass: '' });
    expect(await sealed()).toBe(before);
    await ok('srv.save_server', { Id, sshpass: 'second-pass' });
    expect(await sealed()).not.toBe(before);
    expect((await ok('srv.get', { Id })).has_sshpass).toBe(true);
    await ok('srv.save_server', { Id, sshpass_clear: true });
    expect((await ok('srv.get', { Id })).has_sshpass).toBe(false);
  });

  test('{Id, status} changes only the status; {Id, read_nginx_log_firewall} only that flag (000 §4, §7)', async () => {
    const Id = await create({ name: 'proxy-s1', type: 1, ip: '198.51.100.7', sshlogin: 'root', sshpass: 'p', sshport: 22 });
    const before = await ok('srv.get', { Id });
    await ok('srv.save_server', { Id, status: 0 });
    expect(await ok('srv.get', { Id })).toEqual({ ...before, status: 0 });
    const rest = await t.rest<any>(admin, 'POST', '/srv/save_server', { Id, status: 1 });
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ status: 'ok', result: { Id } });
    await t.rest(admin, 'POST', '/srv/save_server', { Id, read_nginx_log_firewall: 1 });
    expect(await ok('srv.get', { Id })).toEqual({ ...before, read_nginx_log_firewall: 1 });
    await ok('srv.save_server', { Id, balance_web: true });
    expect((await ok('srv.get', { Id })).balance_web).toBe(1);
  });

  test('validation: required name and type, addresses, ports 1-65535, known type; 422 with field messages', async () => {
    const missing = await t.rpc<any>(admin, 'srv.save_server', { ip: '10.0.0.1' });
    expect(missing.env).toMatchObject({ status: 'rules', code: 422 });
    expect(Object.keys((missing.env as any).fields).sort()).toEqual(['name', 'type']);
    const bad = await t.rest<any>(admin, 'POST', '/srv/save_server', { name: 'x', type: 7, ip: '10.0.0.300', ip_local: 'not-an-ip', sshport: 70000 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.fields).sort()).toEqual(['ip', 'ip_local', 'sshport', 'type']);
    for (const sshport of [0, -1, 65536, 'abc']) {
      const r = await t.rpc<any>(admin, 'srv.save_server', { name: 'port-check', type: 9, sshport });
      expect((r.env as any).fields).toHaveProperty('sshport');
    }
    const v6 = await t.rpc<any>(admin, 'srv.save_server', { name: 'v6-host', type: 9, ip: '2001:db8::5', sshport: 65535 });
    expect(v6.env.status).toBe('ok');
    const blank = await t.rpc<any>(admin, 'srv.save_server', { Id: (v6.env as any).result.Id, name: '   ' });
    expect((blank.env as any).fields).toHaveProperty('name');
    const unknown = await t.rpc<any>(admin, 'srv.save_server', { Id: 999999, status: 0 });
    expect(unknown.env).toMatchObject({ status: 'empty', code: 404 });
    const badKey = await t.rpc<any>(admin, 'srv.save_server', { name: 'bad-key', type: 9, private_key: 'not a key' });
    expect(badKey.env).toMatchObject({ status: 'rules', code: 422 });
    expect((badKey.env as any).fields).toHaveProperty('private_key');
  });

  test('server names are unique (case-insensitive) with a 409 naming the field', async () => {
    await create({ name: 'Unique-Name', type: 9 });
    const dup = await t.rpc<any>(admin, 'srv.save_server', { name: 'unique-name', type: 8 });
    expect(dup.env).toMatchObject({ status: 'rules', code: 409 });
    expect((dup.env as any).fields).toHaveProperty('name');
  });

  test("servers_map groups by parent (type 0) then type; unknown parents go under 'FREE', listed last", async () => {
    const dc2 = await create({ name: 'zz-dc-2', type: 0, ip: '192.0.2.2' });
    const dc1 = await create({ name: 'zz-dc-1', type: 0, ip: '192.0.2.1' });
    await create({ name: 'zz-web-2', type: 8, cod: dc1 });
    await create({ name: 'zz-web-10', type: 8, cod: dc1 });
    await create({ name: 'zz-proxy-1', type: 1, cod: dc1 });
    await create({ name: 'zz-db-1', type: 6, cod: dc2 });
    await create({ name: 'zz-orphan-node', type: 9, cod: 987654 });
    const map = await ok('srv.servers_map');
    const names = map.groups.map((g: any) => g.name);
    expect(names.indexOf('zz-dc-1')).toBeLessThan(names.indexOf('zz-dc-2'));
    expect(names[names.length - 1]).toBe('FREE');
    const g1 = map.groups.find((g: any) => g.Id === dc1);
    expect(g1.parent).toMatchObject({ Id: dc1, type: 0, name: 'zz-dc-1' });
    expect(g1.types.map((x: any) => [x.type, x.type_name, x.list.map((s: any) => s.name)])).toEqual([
      [1, 'Proxy', ['zz-proxy-1']],
      [8, 'WEB', ['zz-web-2', 'zz-web-10']],
    ]);
    const g2 = map.groups.find((g: any) => g.Id === dc2);
    expect(g2.types).toEqual([{ type: 6, type_name: 'DB', list: [expect.objectContaining({ name: 'zz-db-1' })] }]);
    const free = map.groups.find((g: any) => g.name === 'FREE');
    expect(free.Id).toBeNull();
    const freeNames = free.types.flatMap((x: any) => x.list.map((s: any) => s.name));
    expect(freeNames).toEqual(expect.arrayContaining(['zz-orphan-node', 'web-a1']));
    // A parent is a group head, never a child, wherever its cod points.
    expect(freeNames).not.toContain('zz-dc-1');
    expect(map.count).toBe((await ok('srv.getList')).length);
    const rest = await t.rest<any>(admin, 'GET', '/srv/servers_map');
    expect(rest.body.result).toEqual(map);
  });

  test('getList filters by type; GET /srv/list too', async () => {
    const webs = await ok('srv.getList', { type: 8 });
    expect(webs.length).toBeGreaterThan(0);
    expect(webs.every((s: any) => s.type === 8)).toBe(true);
    const two = await ok('srv.getList', { type: [0, 6] });
    expect(new Set(two.map((s: any) => s.type))).toEqual(new Set([0, 6]));
    const rest = await t.rest<any>(admin, 'GET', '/srv/list?type=6');
    expect(rest.body.result.map((s: any) => s.name)).toContain('zz-db-1');
    expect(rest.body.result.every((s: any) => s.type === 6)).toBe(true);
  });

  test('clone copies a server (secrets included, not shown) under a new name; REST /srv/clone_srv takes clone_by', async () => {
    const Id = await create({ name: 'clone-src', type: 8, ip: '203.0.113.50', sshlogin: 'ops', sshpass: 'clone-pass', sshport: 2200, balance_web: 1, cod: 0 });
    const c1 = await ok('srv.clone_server', { clone_by: Id });
    expect(c1).toEqual({ Id: expect.any(Number), name: 'clone-src-clone' });
    const orig = await ok('srv.get', { Id });
    const copy = await ok('srv.get', { Id: c1.Id });
    expect(copy).toEqual({ ...orig, Id: c1.Id, name: 'clone-src-clone' });
    const c2 = await t.rest<any>(admin, 'POST', '/srv/clone_srv', { clone_by: Id });
    expect(c2.status).toBe(200);
    expect(c2.body.result.name).toBe('clone-src-clone-2');
    const named = await ok('srv.clone_server', { clone_by: Id, name: 'clone-named' });
    expect((await ok('srv.get', { Id: named.Id })).name).toBe('clone-named');
    const dup = await t.rpc<any>(admin, 'srv.clone_server', { clone_by: Id, name: 'clone-src' });
    expect(dup.env).toMatchObject({ code: 409 });
    const missing = await t.rest<any>(admin, 'POST', '/srv/clone_srv', { clone_by: 987654 });
    expect(missing.status).toBe(404);
    // The free-name lookup matches _ and % literally (core/database/like.ts): each clone gets the next number.
    for (const base of ['web_a', 'web%b']) {
      const src = await create({ name: base, type: 8, ip: '203.0.113.51', cod: 0 });
      expect((await ok('srv.clone_server', { clone_by: src })).name).toBe(`${base}-clone`);
      expect((await ok('srv.clone_server', { clone_by: src })).name).toBe(`${base}-clone-2`);
    }
  });

  test('remove_server_by_id removes (audited); get_map answers the new map; children of a removed parent go FREE', async () => {
    const dc = await create({ name: 'rm-dc', type: 0 });
    const child = await create({ name: 'rm-child', type: 9, cod: dc });
    const plain = await t.rest<any>(admin, 'POST', '/srv/remove_server_by_id', { Id: dc });
    expect(plain.body).toEqual({ status: 'ok', result: { Id: dc, message: 'Delete ok!' } });
    expect((await t.rpc(admin, 'srv.get', { Id: dc })).env).toMatchObject({ status: 'empty', code: 404 });
    const map = await ok('srv.servers_map');
    const free = map.groups.find((g: any) => g.name === 'FREE');
    expect(free.types.flatMap((x: any) => x.list.map((s: any) => s.Id))).toContain(child);
    const withMap = await t.rest<any>(admin, 'POST', '/srv/remove_server_by_id', { Id: child, get_map: 1 });
    expect(withMap.body.result.groups).toBeDefined();
    expect(JSON.stringify(withMap.body.result)).not.toContain('rm-child');
    const rpc = await t.rpc<any>(admin, 'srv.remove_server_by_id', { Id: child });
    expect(rpc.env).toMatchObject({ status: 'empty', code: 404 });
    const audit = await ok('audit.getList', { method: 'remove_server_by_id', limit: 50 });
    expect(audit.list.map((a: any) => a.method)).toEqual(expect.arrayContaining(['POST /api/srv/remove_server_by_id', 'srv.remove_server_by_id']));
  });

  test('nginx upstream preview: web servers with the balancer on, max_fails=10 fail_timeout=120s weight=5, ports 443 and 80', async () => {
    await create({ name: 'up-web-1', type: 8, ip_local: '10.1.0.1', balance_web: 1 });
    await create({ name: 'up-web-2', type: 8, ip: '10.1.0.2', balance_web: 1, status: 0 });
    await create({ name: 'up-web-off', type: 8, ip_local: '10.1.0.3', balance_web: 0 });
    await create({ name: 'up-node', type: 9, ip_local: '10.1.0.4', balance_web: 1 });
    const up = await ok('srv.nginxUpstream');
    const names = up.servers.map((s: any) => s.name);
    expect(names).toEqual(expect.arrayContaining(['up-web-1', 'up-web-2']));
    expect(names).not.toContain('up-web-off');
    expect(names).not.toContain('up-node');
    expect(up.text).toContain('upstream web_443 {');
    expect(up.text).toContain('upstream web_80 {');
    expect(up.text).toContain('server 10.1.0.1:443 max_fails=10 fail_timeout=120s weight=5; # up-web-1');
    expect(up.text).toContain('server 10.1.0.1:80 max_fails=10 fail_timeout=120s weight=5; # up-web-1');
    expect(up.text).toContain('server 10.1.0.2:80 max_fails=10 fail_timeout=120s weight=5 down; # up-web-2');
    expect(up.text).not.toContain('10.1.0.3');
  });

  test('roles: a role-10 or role-100 user can neither call the methods nor the routes', async () => {
    for (const role of [10, 100]) {
      const { hash } = await t.session(role);
      for (const m of ['srv.servers_map', 'srv.get', 'srv.getList', 'srv.save_server', 'srv.clone_server', 'srv.remove_server_by_id', 'srv.test_connect_ssh', 'srv.nginxUpstream', 'srv.acceptHostKey']) {
        const r = await t.rpc<any>(hash, m, { Id: 1 });
        expect([m, r.status, (r.env as any).code]).toEqual([m, 403, 403]);
      }
      for (const [verb, path] of [['GET', '/srv/servers_map'], ['GET', '/srv/list'], ['POST', '/srv/save_server'], ['POST', '/srv/clone_srv'], ['POST', '/srv/remove_server_by_id'], ['GET', '/srv/test_connect_ssh?Id=1'], ['POST', '/srv/test_connect_ssh']]) {
        const r = await t.rest(hash, verb, path, verb === 'POST' ? { Id: 1, name: 'x', type: 9 } : undefined);
        expect([path, r.status]).toEqual([path, 403]);
      }
    }
    expect((await ok('srv.getList')).some((s: any) => s.name === 'x')).toBe(false);
  });
});
