/**
 * Realtime events of the servers area (issue 7: two operators see each other's changes live): every
 * write on servers (save, status switch, clone, remove, host key pinned / changed / accepted), SSL hosts
 * (add, edit, remove, check, check all) and cluster configs (insert, update, remove) reaches an admin's
 * socket as `srv.changed`, `ssl.changed` or `cfg.configs_changed`, over RPC and REST alike; sockets of
 * role 10 and 100 receive none of them (the methods are admin-only).
 * One pass: the subject is which socket gets which event.
 */
import { io, type Socket } from 'socket.io-client';
import type { ConfigsChangedEvent, SrvChangedEvent, SslChangedEvent } from '../../src/contracts/events.js';
import { RealtimeService } from '../../src/core/realtime/realtime.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';
import { startTlsServer, type TlsPeer } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait.js';

const EVENTS = ['srv.changed', 'ssl.changed', 'cfg.configs_changed'] as const;
type Got = { event: (typeof EVENTS)[number]; payload: SrvChangedEvent | SslChangedEvent | ConfigsChangedEvent };

interface Listener {
  socket: Socket;
  got: Got[];
  /** Every event of this socket, in order (for the sentinel). */
  all: string[];
}

let t: TestApp;
let admin: string;
let tls: TlsPeer;
let sshd: Sshd;
let adminL: Listener;
let contentL: Listener;
let userL: Listener;

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

function listen(hash: string): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const socket = io(t.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false });
    const l: Listener = { socket, got: [], all: [] };
    socket.onAny((event: string, payload: unknown) => {
      l.all.push(event);
      if ((EVENTS as readonly string[]).includes(event)) l.got.push({ event: event as Got['event'], payload: payload as Got['payload'] });
    });
    socket.on('connect', () => resolve(l));
    socket.on('connect_error', reject);
  });
}

/**
 * Runs a write and returns the admin socket's events it caused (waits until `expected` have arrived).
 * `srv.changed` carries `at`, the write's server time: checked here to be a time within the write, then
 * left out so the cases compare what changed.
 */
async function eventsOf(write: () => Promise<unknown>, expected = 1): Promise<Got[]> {
  const from = adminL.got.length;
  const before = Date.now();
  await write();
  await waitFor(`${expected} event(s) on the admin socket`, () => adminL.got.length - from >= expected);
  const after = Date.now();
  return adminL.got.slice(from).map((g) => {
    if (g.event !== 'srv.changed') return g;
    const { at, ...rest } = g.payload as SrvChangedEvent;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    return { ...g, payload: rest } as Got;
  });
}

beforeAll(async () => {
  [tls, sshd] = await Promise.all([startTlsServer({ days: 20 }), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  const content = await t.session(10);
  const user = await t.session(100);
  [adminL, contentL, userL] = await Promise.all([listen(admin), listen(content.hash), listen(user.hash)]);
}, 60_000);

afterAll(async () => {
  for (const l of [adminL, contentL, userL]) l?.socket.close();
  await t?.close();
  await tls?.stop();
  await sshd?.stop();
});

describe(`srv, ssl and config events (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  let parent: number;
  let web: number;

  test('server writes: create, status switch, save, clone, remove (RPC and REST)', async () => {
    let ev = await eventsOf(async () => { parent = (await ok('srv.save_server', { name: 'ev-dc', type: 0 })).Id; });
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'create', Id: parent, name: 'ev-dc' } }]);

    ev = await eventsOf(async () => {
      const r = await t.rest<any>(admin, 'POST', '/srv/save_server', { name: 'ev-web', type: 8, cod: parent });
      expect(r.body.status).toBe('ok');
      web = r.body.result.Id;
    });
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'create', Id: web, name: 'ev-web' } }]);

    ev = await eventsOf(() => ok('srv.save_server', { Id: web, status: 0 }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'status', Id: web, name: 'ev-web', status: 0 } }]);

    ev = await eventsOf(() => ok('srv.save_server', { Id: web, name: 'ev-web-2', ip_local: '10.9.0.1' }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'save', Id: web, name: 'ev-web-2' } }]);

    ev = await eventsOf(() => ok('srv.save_server', { Id: web, balance_web: 1 }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'save', Id: web, name: 'ev-web-2' } }]);

    let clone = 0;
    ev = await eventsOf(async () => { clone = (await ok('srv.clone_server', { clone_by: web })).Id; });
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'clone', Id: clone, name: 'ev-web-2-clone' } }]);

    ev = await eventsOf(() => ok('srv.remove_server_by_id', { Id: clone }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'remove', Id: clone, name: 'ev-web-2-clone' } }]);

    // A refused write sends nothing: the next event is the one of the following write.
    expect((await t.rpc(admin, 'srv.save_server', { Id: web, name: 'ev-dc' })).env.status).not.toBe('ok');
    ev = await eventsOf(() => ok('srv.remove_server_by_id', { Id: parent }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'remove', Id: parent, name: 'ev-dc' } }]);
  });

  test('host keys: pinned on the first connect, changed (pending), accepted', async () => {
    let Id = 0;
    let ev = await eventsOf(async () => { Id = (await ok('srv.save_server', { name: 'ev-ssh', type: 8, ip: '127.0.0.1', sshport: sshd.port, sshlogin: sshd.user, sshpass: sshd.password })).Id; });
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'create', Id, name: 'ev-ssh' } }]);
    ev = await eventsOf(() => ok('srv.test_connect_ssh', { Id }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'hostkey', Id, name: 'ev-ssh' } }]);

    // Connecting again with the pinned key changes nothing: no event (events arrive in order, so a
    // stray one would be the first of the next write's and fail the checks below).
    await ok('srv.test_connect_ssh', { Id });
    await sshd.rotateHostKeys();
    ev = await eventsOf(async () => {
      const r = await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id });
      expect(r.env).toMatchObject({ fields: { reason: 'hostkey' } });
    });
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'hostkey', Id, name: 'ev-ssh' } }]);
    expect((await ok('srv.get', { Id })).host_key_pending).toMatch(/^SHA256:/);

    const pending = (await ok('srv.get', { Id })).host_key_pending;
    ev = await eventsOf(() => ok('srv.acceptHostKey', { Id, fingerprint: pending }));
    expect(ev).toEqual([{ event: 'srv.changed', payload: { action: 'hostkey', Id, name: 'ev-ssh' } }]);
  }, 60_000);

  test('SSL hosts: add, edit, not_check, check now, check all, remove', async () => {
    let Id = 0;
    let ev = await eventsOf(async () => { Id = (await ok('srv.sslUpdateHost', { host: `localhost:${tls.port}` })).Id; });
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'add', Ids: [Id] } }]);

    ev = await eventsOf(() => ok('srv.sslUpdateHost', { Id, not_check: 1 }));
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'edit', Ids: [Id] } }]);
    ev = await eventsOf(() => ok('srv.sslUpdateHost', { Id, not_check: 0 }));
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'edit', Ids: [Id] } }]);

    ev = await eventsOf(async () => expect((await ok('srv.sslCheckHost', { Id })).day_last).toBeGreaterThanOrEqual(19));
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'check', Ids: [Id] } }]);

    // Check all: only the hosts with not_check 0.
    let other = 0;
    ev = await eventsOf(async () => {
      other = (await ok('srv.sslUpdateHost', { host: 'ev-other.example' })).Id;
      await ok('srv.sslUpdateHost', { Id: other, not_check: 1 });
    }, 2);
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'add', Ids: [other] } }, { event: 'ssl.changed', payload: { action: 'edit', Ids: [other] } }]);
    ev = await eventsOf(() => ok('srv.sslCheckAll'));
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'check', Ids: [Id] } }]);

    ev = await eventsOf(() => ok('srv.sslDeleteById', { Id }));
    expect(ev).toEqual([{ event: 'ssl.changed', payload: { action: 'remove', Ids: [Id] } }]);
  });

  test('cluster configs: insert, update, remove', async () => {
    let rows: Array<{ Id: number; type: string; value: string }> = [];
    let ev = await eventsOf(async () => { rows = (await ok('cfg.insertConfigsBatch', [{ type: 'domain', value: 'ev.example' }, { type: 'firewall_used_ip_drop', value: '1' }])).list; });
    expect(ev).toEqual([{ event: 'cfg.configs_changed', payload: { action: 'insert', count: 2 } }]);
    ev = await eventsOf(() => ok('cfg.updateConfigsBatch', [{ ...rows[0], value: 'ev2.example' }]));
    expect(ev).toEqual([{ event: 'cfg.configs_changed', payload: { action: 'update', count: 1 } }]);
    ev = await eventsOf(() => ok('cfg.removeConfigs', rows.map((r) => r.Id)));
    expect(ev).toEqual([{ event: 'cfg.configs_changed', payload: { action: 'remove', count: 2 } }]);
  });

  test('sockets of role 10 and 100 received none of these events', async () => {
    // A sentinel every socket may see, sent after all the writes: a socket's events arrive in order, so
    // once it has the sentinel it has everything sent to it before.
    t.app.get(RealtimeService).emit('exception', { status: 'error', message: 'sentinel' }, 100);
    for (const l of [adminL, contentL, userL]) await waitFor('the sentinel', () => l.all.includes('exception'));
    expect(adminL.all.filter((e) => e === 'srv.changed').length).toBeGreaterThan(0);
    expect(contentL.got).toEqual([]);
    expect(userL.got).toEqual([]);
  });
});
