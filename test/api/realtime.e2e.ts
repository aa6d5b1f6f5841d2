/**
 * Realtime across instances: two consoles on one database and one Redis; an event emitted for admins
 * on instance A reaches an admin connected to instance B, and not a role-100 user.
 * One pass: the subject is the socket.io Redis adapter between two instances.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { RealtimeService } from '../../src/core/realtime/realtime.service.js';
import { startApp, type TestApp } from '../helpers/app.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  const shared = { SECRET_KEY: 'k'.repeat(40), REDIS_URL, CRON_ENABLED: '0' };
  a = await startApp(process.env.TEST_DATABASE_URL ? shared : { ...shared, DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'rt-')), 'shared.sqlite')}` });
  // B uses A's database (the file, or the MariaDB database A created).
  const db = a.cfg.database;
  b = await startApp({ ...shared, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` });
});
afterAll(async () => { await b?.close(); await a?.close(); });

const connect = (url: string, hash: string) => new Promise<Socket>((resolve, reject) => {
  const s = io(url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false });
  s.on('connect', () => resolve(s));
  s.on('connect_error', reject);
});

test('an admins-only event from instance A reaches admins on instance B only', async () => {
  const admin = await a.session(1);
  const user = await a.session(100);
  const adminSock = await connect(b.url, admin.hash);
  const userSock = await connect(b.url, user.hash);
  const userGot: unknown[] = [];
  userSock.on('exception', (e) => userGot.push(e));
  const received = new Promise((resolve) => adminSock.on('exception', resolve));
  await new Promise((r) => setTimeout(r, 300)); // let the Redis subscriptions settle
  a.app.get(RealtimeService).emit('exception', { status: 'error', message: 'cross-instance' }, 1);
  await expect(received).resolves.toEqual({ status: 'error', message: 'cross-instance' });
  await new Promise((r) => setTimeout(r, 300));
  expect(userGot).toEqual([]);
  adminSock.close();
  userSock.close();
});
