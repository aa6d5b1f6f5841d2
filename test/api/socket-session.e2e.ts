/**
 * Sockets follow their session as it is now (issue 7, "Sessions over sockets"): after a logout, a
 * deactivation, a role change to 100 or a password reset, a socket opened with that session can no
 * longer run `cron.setServiceStatus` / `cron.executeTask` (refused, nothing changed, nothing audited
 * as done) and no longer receives admin-room events; the sockets of an ended session are told
 * (`session.ended`) and disconnected; a role change moves the socket between role rooms and tells it
 * the new role (`session.changed`). Another user's socket is unaffected. The per-message check holds
 * on its own (a session changed in the database behind the pushes), and so do the sweep and the
 * expiry timer. Across two instances on Redis: a logout, a deactivation and a role change on
 * instance A reach a socket connected to instance B.
 * One pass: the subject is sockets following their session; the session rows are covered on both databases by the hardening and platform files.
 */
import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { encodeAuthKey, type SessionValues } from '../../src/contracts/auth.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import type { ServerEvents } from '../../src/contracts/events.js';
import { MSG } from '../../src/contracts/messages.js';
import { hashPassword } from '../../src/core/auth/auth.service.js';
import { SessionEntity, UserEntity } from '../../src/core/auth/user.entity.js';
import { RealtimeService } from '../../src/core/realtime/realtime.service.js';
import { SocketSessions } from '../../src/core/realtime/socket-sessions.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

jest.setTimeout(60_000);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

// A local peer the test task calls: any hit means the task ran.
let hits = 0;
const peer = createServer((_req, res) => {
  hits++;
  res.end('ok');
});
let peerUrl = '';

beforeAll(async () => {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
});

/** A client socket that records what it receives and why it was disconnected. */
interface Client {
  s: Socket;
  got: Array<{ event: string; payload: unknown }>;
  disconnected: string | null;
  of<K extends keyof ServerEvents>(event: K): Array<ServerEvents[K]>;
}

function connect(url: string, hash: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false, forceNew: true });
    const c: Client = {
      s, got: [], disconnected: null,
      of: (event) => c.got.filter((g) => g.event === event).map((g) => g.payload as never),
    };
    s.onAny((event: string, payload: unknown) => c.got.push({ event, payload }));
    s.on('disconnect', (reason) => {
      c.got.push({ event: '(disconnect)', payload: reason });
      c.disconnected = reason;
    });
    s.on('connect', () => resolve(c));
    s.on('connect_error', (e) => {
      s.close();
      reject(e);
    });
  });
}

type Answer = { ack: Envelope } | { refused: string } | { closed: string };

/** Sends a message and answers what came back: the handler's envelope, the guard's refusal, or the disconnect. */
function ask(c: Client, event: string, body: unknown = {}): Promise<Answer> {
  return new Promise((resolve) => {
    if (!c.s.connected) return resolve({ closed: c.disconnected ?? 'not connected' });
    const onExc = (e: { message: string }) => done({ refused: e.message });
    const onDisc = (reason: string) => done({ closed: reason });
    const done = (a: Answer) => {
      c.s.off('exception', onExc);
      c.s.off('disconnect', onDisc);
      resolve(a);
    };
    c.s.once('exception', onExc);
    c.s.once('disconnect', onDisc);
    // The guard answers a refusal on the acknowledgement (401/403 envelope) as well as with the 'exception' event.
    c.s.emit(event, body, (ack: Envelope) => {
      const code = (ack as { code?: number }).code;
      done(ack.status === 'error' && (code === 401 || code === 403) ? { refused: (ack as { message: string }).message } : { ack });
    });
  });
}

/** A round trip on the socket: whatever the server sent it before now has arrived. */
const roundTrip = (c: Client) => ask(c, 'session.whoami');

const serverRooms = (t: TestApp, c: Client): string[] => [...(t.app.get(RealtimeService).io!.of('/').sockets.get(c.s.id!)?.rooms ?? [])].filter((r) => r.startsWith('min:')).sort();

/**
 * A user of that role, made in the database (not through registration, which is throttled per
 * address), signed in: a new session each call.
 */
async function userSession(t: TestApp, login: string, role = 1): Promise<SessionValues> {
  const users = t.app.get(DataSource).getRepository(UserEntity);
  if (!(await users.exists({ where: { login } }))) {
    await users.insert({ login, name: `User ${login}`, role, active: 1, password_hash: await hashPassword(`${login}-password-1`), created_at: new Date(), last_login: null });
  }
  return signIn(t, login);
}

/** Signs in once more as an existing user (a second session). */
async function signIn(t: TestApp, login: string): Promise<SessionValues> {
  const r = await t.rest<Envelope<SessionValues>>(null, 'POST', '/user/auth', { key: encodeAuthKey(login, `${login}-password-1`) });
  if (r.body.status !== 'ok') throw new Error(`login ${login}: ${JSON.stringify(r.body)}`);
  return r.body.result;
}

async function auditedBy(t: TestApp, admin: string, login: string): Promise<Array<{ method: string; outcome: string }>> {
  const r = await t.ok<{ list: Array<{ method: string; outcome: string }> }>(admin, 'audit.getList', { login, method: 'cron.', limit: 100 });
  return r.list.map(({ method, outcome }) => ({ method, outcome }));
}

describe(`one instance (${DB})`, () => {
  let t: TestApp;
  let admin: SessionValues;
  let bystander: Client;
  let taskId: number;

  beforeAll(async () => {
    t = await startApp({ CRON_ENABLED: '0' });
    admin = await t.session(1);
    ({ Id: taskId } = await t.ok<{ Id: number }>(admin.hash, 'cfg.saveAppCron', { name: 'probe', cmd: `curl=${peerUrl}/probe`, suspended: 1 }));
    bystander = await connect(t.url, admin.hash);
  });
  afterAll(async () => {
    bystander?.s.close();
    await t?.close();
  });

  /** A fresh admin with an open socket that can do admin work and receives admin-room events. */
  async function armedVictim(login: string) {
    const v = await userSession(t, login);
    const c = await connect(t.url, v.hash);
    expect(await ask(c, 'cron.getServiceStatus')).toEqual({ ack: { status: 'ok', result: { service: 1, scheduling: false } } });
    expect(serverRooms(t, c)).toEqual(['min:1', 'min:10', 'min:100']);
    return { v, c };
  }

  test('on connect a socket is told its current role and name', async () => {
    const { c } = await armedVictim('v-hello');
    await waitFor('the welcome session.changed', () => c.of('session.changed').length > 0);
    expect(c.of('session.changed')).toEqual([{ role: 1, name: 'User v-hello' }]);
    c.s.close();
  });

  /** The victim's socket can no longer act as an admin nor hear the admins' room; nothing was done. */
  async function expectPowerless(c: Client, login: string) {
    const before = hits;
    for (const [event, body] of [['cron.setServiceStatus', { service: 0 }], ['cron.executeTask', { Id: taskId }]] as const) {
      const a = await ask(c, event, body);
      expect('ack' in a).toBe(false);
    }
    // Nothing changed and nothing ran.
    expect(await t.ok(admin.hash, 'cron.getServiceStatus')).toEqual({ service: 1, scheduling: false });
    expect((await t.ok<{ list: unknown[] }>(admin.hash, 'cron.getRuns', { Id: taskId })).list).toEqual([]);
    expect(hits).toBe(before);
    expect(await auditedBy(t, admin.hash, login)).toEqual([]);
    // An admins' event reaches the bystander, not the victim.
    const seen = bystander.of('cron.status').length;
    const victimSeen = c.of('cron.status').length;
    await t.ok(admin.hash, 'cron.setServiceStatus', { service: 1 });
    await waitFor('the bystander to get cron.status', () => bystander.of('cron.status').length > seen);
    if (c.s.connected) await roundTrip(c);
    expect(c.of('cron.status').length).toBe(victimSeen);
  }

  async function expectEnded(c: Client, v: SessionValues, reason: string) {
    await waitFor('the victim socket to be disconnected', () => c.disconnected);
    expect(c.disconnected).toBe('io server disconnect');
    // Told why, before the disconnect.
    const order = c.got.map((g) => g.event);
    expect(order.slice(-2)).toEqual(['session.ended', '(disconnect)']);
    expect(c.of('session.ended')).toEqual([{ reason, message: expect.any(String) }]);
    // The same hash cannot open a new socket.
    await expect(connect(t.url, v.hash)).rejects.toThrow(MSG.sessionRequired);
  }

  test('logout: that session\'s sockets are told and disconnected; the user\'s other session keeps its socket', async () => {
    const { v, c } = await armedVictim('v-logout');
    const other = await connect(t.url, (await signIn(t, 'v-logout')).hash);
    expect((await t.rest(v.hash, 'POST', '/user/logout', {})).status).toBe(200);
    await expectPowerless(c, 'v-logout');
    await expectEnded(c, v, 'logout');
    expect(other.s.connected).toBe(true);
    expect(await ask(other, 'cron.getServiceStatus')).toMatchObject({ ack: { status: 'ok' } });
    expect(bystander.s.connected).toBe(true);
    other.s.close();
  });

  test('deactivation: every socket of the user is told and disconnected', async () => {
    const { v, c } = await armedVictim('v-deact');
    const second = await connect(t.url, (await signIn(t, 'v-deact')).hash);
    await t.ok(admin.hash, 'user.save', { uid: v.uid, active: 0 });
    await expectPowerless(c, 'v-deact');
    await expectEnded(c, v, 'deactivated');
    await waitFor('the second socket to be disconnected', () => second.disconnected);
    expect(second.of('session.ended')).toEqual([{ reason: 'deactivated', message: expect.any(String) }]);
    expect(bystander.s.connected).toBe(true);
  });

  test('password reset: the sockets are told and disconnected', async () => {
    const { v, c } = await armedVictim('v-pass');
    await t.ok(admin.hash, 'user.save', { uid: v.uid, password: 'a-new-password-2' });
    await expectPowerless(c, 'v-pass');
    await expectEnded(c, v, 'password');
    expect(bystander.s.connected).toBe(true);
  });

  test('role change to 100: the socket leaves the admin room, is told its new role and is refused; promoted back it acts again', async () => {
    const { v, c } = await armedVictim('v-role');
    await t.ok(admin.hash, 'user.save', { uid: v.uid, role: 100 });
    // Pushed before the socket sends anything: out of the admins' room, and told.
    expect(serverRooms(t, c)).toEqual(['min:100']);
    await waitFor('session.changed to 100', () => c.of('session.changed').some((e) => e.role === 100));
    expect(c.of('session.changed').at(-1)).toEqual({ role: 100, name: 'User v-role' });
    expect(await ask(c, 'cron.setServiceStatus', { service: 0 })).toEqual({ refused: MSG.forbidden });
    expect(await ask(c, 'cron.executeTask', { Id: taskId })).toEqual({ refused: MSG.forbidden });
    await expectPowerless(c, 'v-role');
    expect(c.s.connected).toBe(true);
    expect(await ask(c, 'session.whoami')).toEqual({ ack: expect.objectContaining({ role: 100 }) });

    await t.ok(admin.hash, 'user.save', { uid: v.uid, role: 1 });
    await waitFor('session.changed back to 1', () => c.of('session.changed').at(-1)?.role === 1);
    expect(serverRooms(t, c)).toEqual(['min:1', 'min:10', 'min:100']);
    const seen = c.of('cron.status').length;
    await t.ok(admin.hash, 'cron.setServiceStatus', { service: 1 });
    await waitFor('the promoted socket to get cron.status again', () => c.of('cron.status').length > seen);
    c.s.close();
  });

  describe('the per-message check stands on its own (the database changed behind the pushes)', () => {
    const sessions = () => t.app.get(DataSource).getRepository(SessionEntity);
    const users = () => t.app.get(DataSource).getRepository(UserEntity);

    test('session row gone, user inactive, session expired: the next message is refused and the socket ended', async () => {
      const cases: Array<[string, string, (v: SessionValues) => Promise<unknown>]> = [
        ['b-gone', 'revoked', (v) => sessions().delete({ uid: v.uid })],
        ['b-inactive', 'deactivated', (v) => users().update({ uid: v.uid }, { active: 0 })],
        ['b-expired', 'expired', (v) => sessions().update({ uid: v.uid }, { expires_at: new Date(Date.now() - 1000) })],
      ];
      for (const [login, reason, change] of cases) {
        const { v, c } = await armedVictim(login);
        await change(v);
        // Refused by ending the socket: told why, then disconnected (no acknowledgement, nothing run).
        expect(await ask(c, 'cron.setServiceStatus', { service: 0 })).toEqual({ closed: 'io server disconnect' });
        expect(c.of('session.ended')).toEqual([{ reason, message: expect.any(String) }]);
        await expectPowerless(c, login);
      }
    });

    test('role lowered in the database: the next admin message is refused and the socket moved and told', async () => {
      const { v, c } = await armedVictim('b-role');
      await users().update({ uid: v.uid }, { role: 100 });
      expect(await ask(c, 'cron.executeTask', { Id: taskId })).toEqual({ refused: MSG.forbidden });
      expect(c.of('session.changed').at(-1)).toEqual({ role: 100, name: 'User b-role' });
      expect(serverRooms(t, c)).toEqual(['min:100']);
      await expectPowerless(c, 'b-role');
      c.s.close();
    });

    test('the sweep ends an idle socket whose session is gone, without any message from it', async () => {
      const { v, c } = await armedVictim('b-sweep');
      await sessions().delete({ uid: v.uid });
      await t.app.get(SocketSessions).sweep();
      await waitFor('the swept socket to be disconnected', () => c.disconnected);
      expect(c.of('session.ended')).toEqual([{ reason: 'revoked', message: expect.any(String) }]);
      expect(bystander.s.connected).toBe(true);
    });

    test('an idle socket is ended when its session expires', async () => {
      const { v, c } = await armedVictim('b-timer');
      await sessions().update({ uid: v.uid }, { expires_at: new Date(Date.now() + 1500) });
      // Any message re-reads the session and re-arms the socket's expiry timer; then the socket stays idle.
      expect(await ask(c, 'cron.getServiceStatus')).toMatchObject({ ack: { status: 'ok' } });
      await waitFor('the expired socket to be disconnected', () => c.disconnected);
      expect(c.of('session.ended')).toEqual([{ reason: 'expired', message: expect.any(String) }]);
    });
  });

  test('the bystander admin was never disturbed', async () => {
    expect(bystander.s.connected).toBe(true);
    expect(bystander.of('session.ended')).toEqual([]);
    expect(bystander.of('session.changed')).toEqual([{ role: 1, name: 'Administrator' }]); // the welcome only
    expect(await ask(bystander, 'cron.getServiceStatus')).toMatchObject({ ack: { status: 'ok' } });
  });
});

describe(`two instances on Redis (${DB})`, () => {
  let a: TestApp;
  let b: TestApp;
  let admin: SessionValues;

  beforeAll(async () => {
    const shared = { SECRET_KEY: 'k'.repeat(40), REDIS_URL, CRON_ENABLED: '0' };
    a = await startApp(process.env.TEST_DATABASE_URL ? shared : { ...shared, DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sock-')), 'shared.sqlite')}` });
    const db = a.cfg.database;
    b = await startApp({ ...shared, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` });
    admin = await a.session(1);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('a role change on A moves and tells the socket on B; a logout and a deactivation on A disconnect sockets on B', async () => {
    const v = await userSession(a, 'x-victim');
    const victim = await connect(b.url, v.hash);
    const bystander = await connect(b.url, admin.hash);
    const emitOnA = () => a.app.get(RealtimeService).emit('cron.status', { reload: true }, 1);
    // The Redis subscriptions are up: an admins' event from A reaches both admins on B.
    await waitFor('fan-out from A to B', () => {
      emitOnA();
      return victim.of('cron.status').length > 0 && bystander.of('cron.status').length > 0;
    });

    await a.ok(admin.hash, 'user.save', { uid: v.uid, role: 100 });
    // Pushed through Redis before the socket sends anything: moved on B, and told.
    await waitFor('the socket on B to leave the admins\' room', () => serverRooms(b, victim).join() === 'min:100');
    await waitFor('session.changed on B', () => victim.of('session.changed').some((e) => e.role === 100));
    const seen = bystander.of('cron.status').length;
    const victimSeen = victim.of('cron.status').length;
    emitOnA();
    await waitFor('the bystander on B to get it', () => bystander.of('cron.status').length > seen);
    await roundTrip(victim);
    expect(victim.of('cron.status').length).toBe(victimSeen);
    expect(await ask(victim, 'cron.setServiceStatus', { service: 0 })).toEqual({ refused: MSG.forbidden });

    await a.ok(admin.hash, 'user.save', { uid: v.uid, role: 1 });
    await waitFor('session.changed back on B', () => victim.of('session.changed').at(-1)?.role === 1);
    expect(serverRooms(b, victim)).toEqual(['min:1', 'min:10', 'min:100']);

    expect((await a.rest(v.hash, 'POST', '/user/logout', {})).status).toBe(200);
    await waitFor('the socket on B to be disconnected', () => victim.disconnected);
    expect(victim.of('session.ended')).toEqual([{ reason: 'logout', message: expect.any(String) }]);
    expect(victim.got.map((g) => g.event).slice(-2)).toEqual(['session.ended', '(disconnect)']);

    // Deactivation on A reaches every session of the user on B.
    const again = await connect(b.url, (await signIn(a, 'x-victim')).hash);
    await a.ok(admin.hash, 'user.save', { uid: v.uid, active: 0 });
    await waitFor('the second socket on B to be disconnected', () => again.disconnected);
    expect(again.of('session.ended')).toEqual([{ reason: 'deactivated', message: expect.any(String) }]);

    expect(bystander.s.connected).toBe(true);
    expect(await ask(bystander, 'cron.getServiceStatus')).toMatchObject({ ack: { status: 'ok' } });
    bystander.s.close();
  });
});
