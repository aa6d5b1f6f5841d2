/**
 * The cluster harness works (test/helpers/cluster.ts, issue 26): two instances from one build behind
 * Debian's nginx, one MariaDB database, their own Redis behind one TCP proxy per instance. Calls through
 * nginx alternate between the instances (told by nginx's X-Upstream header, which the harness adds:
 * nothing in src/ names the instance that answered); `srv.changed` for a server saved through instance 0
 * reaches sockets on instance 1 and through nginx (WebSocket upgrade); a task every second saved with
 * `POST /api/cfg/save_app_cron` runs once per second across both, and `cron.getRuns` names the instance
 * of each run; a proxy switched to 'reset' resets open and new connections, 'blackhole' holds them, and
 * 'forward' passes bytes again. The fault cases themselves are other files.
 *
 * Always on MariaDB (a fresh database on TEST_DATABASE_URL's server): the harness does not offer SQLite
 * (see its header), so it runs in the MariaDB pass of the API suite only (test/helpers/passes.ts; a
 * single-file run needs TEST_DATABASE_URL). The whole file took 20-27 s on the shared 2-core machine with dist/ built;
 * the first run after a change under src/ builds first (`npm run build:server`, another 25-45 s).
 */
import { jest } from '@jest/globals';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Paged } from '../../src/contracts/auth.js';
import type { CronRunView } from '../../src/contracts/cron.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { startCluster, type Cluster } from '../helpers/cluster.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { onlyIn } from '../helpers/passes.js';

jest.setTimeout(60_000);

let c: Cluster;
let hash: string;
const hits: number[] = [];
const peer = createServer((req, res) => {
  if (req.url === '/tick') hits.push(Date.now());
  res.end('ok');
});
let peerUrl = '';

beforeAll(async () => {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  c = await startCluster();
  hash = (await c.signIn()).hash;
}, 300_000);
afterAll(async () => {
  await c?.close();
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
});

onlyIn('mariadb')('calls through nginx alternate between the two instances', async () => {
  const via: Array<number | null> = [];
  for (let k = 0; k < 20; k++) {
    const r = await c.rpc(hash, 'cron.getServiceStatus');
    expect(r.env).toMatchObject({ status: 'ok' });
    via.push(r.via);
  }
  expect(via.filter((v) => v === 0)).toHaveLength(10);
  expect(via.filter((v) => v === 1)).toHaveLength(10);
  for (let k = 1; k < via.length; k++) expect(via[k]).not.toBe(via[k - 1]);
  // A call straight to an instance says so; the session made through nginx holds on both.
  expect((await c.rpc(hash, 'cron.getServiceStatus', undefined, { via: 1 })).via).toBe(1);
  expect((await c.rest(null, 'GET', '/health')).status).toBe(200);
});

onlyIn('mariadb')('a server saved through instance 0 reaches a socket on instance 1 and one through nginx as srv.changed', async () => {
  const s1 = await c.socket(hash, 1);
  const sn = await c.socket(hash, 'nginx');
  const { Id } = await c.ok<{ Id: number }>(hash, 'srv.save_server', { name: 'cluster-smoke', type: 0 }, { via: 0 });
  await s1.waitFor('srv.changed', (e) => e.Id === Id);
  await sn.waitFor('srv.changed', (e) => e.Id === Id);
  s1.close();
  sn.close();
});

onlyIn('mariadb')('a task every second runs once a second across both instances; cron.getRuns names the instance', async () => {
  expect(c.cronInstance(0)).toEqual(expect.any(String));
  expect(c.cronInstance(1)).toEqual(expect.any(String));
  expect(c.cronInstance(0)).not.toBe(c.cronInstance(1));
  const saved = await c.rest<Envelope<{ Id: number }>>(hash, 'POST', '/cfg/save_app_cron', { name: 'cluster tick', second: '*', cmd: `curl=${peerUrl}/tick` });
  expect(saved.body).toMatchObject({ status: 'ok' });
  const { Id } = (saved.body as { result: { Id: number } }).result;
  await waitFor('the first tick', () => hits.length > 0, 5_000);
  await sleep(5_000);
  expect((await c.rest(hash, 'POST', '/cfg/save_app_cron', { Id, suspended: 1 })).status).toBe(200);
  await sleep(1_500); // the last run ends and both instances write their history batch
  const runs = (await c.ok<Paged<CronRunView>>(hash, 'cron.getRuns', { Id, limit: 100 })).list;
  const times = [...hits].sort((x, y) => x - y);
  expect(times.length).toBeGreaterThanOrEqual(4);
  for (let k = 1; k < times.length; k++) expect(times[k] - times[k - 1]).toBeGreaterThan(500);
  expect(runs.map((r) => r.status)).toEqual(times.map(() => 'ok'));
  expect(new Set(runs.map((r) => r.scheduled)).size).toBe(runs.length);
  for (const r of runs) expect([0, 1]).toContain(c.indexOfCronInstance(r.instance));
  await c.ok(hash, 'cfg.appCronDelete', { Id });
});

/** Connects through the proxy, sends PING and answers what came back within `ms`: the reply, 'reset', 'closed' or 'nothing'. */
function ping(port: number, ms = 1000, during?: () => void): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    const done = (v: string) => { clearTimeout(timer); s.destroy(); resolve(v); };
    const timer = setTimeout(() => done(got || 'nothing'), ms);
    s.once('connect', () => { s.write('PING\r\n'); during?.(); });
    s.on('data', (d) => { got += d.toString(); if (got.endsWith('\r\n')) done(got.trim()); });
    s.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNRESET' ? 'reset' : String(e.code)));
    s.once('close', () => done(got || 'closed'));
  });
}

onlyIn('mariadb')("one instance's Redis proxy switches to reset, blackhole and back to forward; the other's is untouched", async () => {
  const p0 = c.proxy(0);
  const p1 = c.proxy(1);
  expect(await ping(p0.port)).toBe('+PONG');
  expect(p0.open()).toBeGreaterThan(0); // instance 0's Redis clients
  expect(p1.open()).toBeGreaterThan(0);

  const before = p0.stats().resets;
  const wasOpen = p0.open();
  p0.set('reset');
  expect(p0.open()).toBe(0);
  expect(await ping(p0.port)).toBe('reset');
  expect(p0.stats().resets).toBeGreaterThanOrEqual(before + wasOpen + 1);
  expect(p1.stats().resets).toBe(0);
  expect(p1.open()).toBeGreaterThan(0);
  expect(await ping(p1.port)).toBe('+PONG');

  p0.set('blackhole');
  expect(await ping(p0.port, 800)).toBe('nothing');
  // Bytes sent while held arrive once the proxy forwards again.
  expect(await ping(p0.port, 3000, () => setTimeout(() => p0.set('forward'), 500))).toBe('+PONG');
  expect(p0.mode).toBe('forward');
  expect(await ping(p0.port)).toBe('+PONG');
});

onlyIn('mariadb')('an instance is killed and restarted on its port; Redis is killed and started again on its port', async () => {
  const before = c.cronInstance(1);
  expect(await c.kill(1, 'SIGKILL')).toEqual(expect.any(Number));
  expect(c.alive(1)).toBe(false);
  await expect(fetch(`${c.instanceUrl(1)}/api/health`)).rejects.toThrow();
  await c.restart(1);
  expect(c.alive(1)).toBe(true);
  expect(c.cronInstance(1)).not.toBe(before);
  expect(c.indexOfCronInstance(before!)).toBe(1);
  expect((await c.rpc(hash, 'cron.getServiceStatus', undefined, { via: 1 })).env).toMatchObject({ status: 'ok' });
  expect(c.logs(1).some((l) => l.gen === 1 && l.json?.msg)).toBe(true);

  await c.killRedis();
  expect(await ping(c.redisPort)).not.toBe('+PONG');
  await c.startRedis();
  expect(await ping(c.redisPort)).toBe('+PONG');
});
