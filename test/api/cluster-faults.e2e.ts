/**
 * The fault cases of issue 26 on the cluster harness (test/helpers/cluster.ts: two instances from one
 * build behind Debian's nginx, one MariaDB database, their own Redis behind one TCP proxy per instance),
 * one cluster for the file, the cases in order:
 * 1. crash mid-run: the instance that is inside a slow task's request (700 ms) is SIGKILLed; the other
 *    runs the task again within 6 s (the dead instance's running mark is void once its heartbeat stops)
 *    and records the cut run as `interrupted`;
 * 2. Redis outage (Redis itself killed for ~10 s): saves and `cron.getStatus` answer within their
 *    bounds, an every-second task runs once a second on the database lease (or skips with the true
 *    reason), a task saved meanwhile reaches the other instance once Redis is back, every socket gets
 *    `realtime.resync`, and each instance logs one warning per Redis client group;
 * 3. flapping: instance 0's Redis connections are reset on every attempt for 20 s: calls through it
 *    answer meanwhile; within 30 s of forwarding again its events reach the other instance's sockets and
 *    it claims ticks again, and no tick runs twice meanwhile; SIGTERM while its Redis is being reset
 *    again stops it within 5 s; instance 1 with its Redis connection held silent ('blackhole': bytes
 *    taken, never answered) answers calls within 3 s and stops within 5 s too.
 * (The stale-event case of the issue, an old `srv.changed` arriving after a newer one, is left to the
 * UI's unit of work: it cannot be provoked over the wire; the events' `at` is checked here.)
 *
 * Which instance is inside a request is read from the kernel: the endpoint knows the client port of
 * the request, /proc/net/tcp the socket's inode, /proc/<pid>/fd which instance holds it (the instances'
 * pids are found by their DATA_DIR). Linux only, like the rest of the harness.
 *
 * Runs in the MariaDB pass only (TEST_DATABASE_URL set): the cluster is MariaDB in both passes, so a
 * second run would test the same thing again for another 1.5-2 minutes. Figures measured on the way
 * (takeover delay, longest gap, delivery delay, SIGTERM time) are printed at the end.
 */
import { jest } from '@jest/globals';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Paged } from '../../src/contracts/auth.js';
import type { CronRunView, CronStatus } from '../../src/contracts/cron.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { startCluster, type Cluster } from '../helpers/cluster.js';
import { sleep, waitFor } from '../helpers/wait.js';

jest.setTimeout(90_000);

const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

let c: Cluster;
let hash: string;

interface Hit { at: number; port: number; aborted: boolean; done: boolean }
const hits = new Map<string, Hit[]>();
const hitsOf = (path: string) => {
  let l = hits.get(path);
  if (!l) hits.set(path, (l = []));
  return l;
};
/** The tasks' endpoint: /slow answers after 700 ms, anything else at once; every request is logged with its client port. */
const peer = createServer((req, res) => {
  const path = (req.url ?? '').split('?')[0];
  const h: Hit = { at: Date.now(), port: req.socket.remotePort ?? 0, aborted: false, done: false };
  hitsOf(path).push(h);
  res.on('close', () => {
    if (!res.writableFinished) h.aborted = true;
  });
  setTimeout(() => {
    h.done = true;
    if (!h.aborted) res.end('ok');
  }, path === '/slow' ? 700 : 0);
});
let peerPort = 0;
let peerUrl = '';
const figures: Record<string, unknown> = {};

run('several instances under faults (issue 26)', () => {
  beforeAll(async () => {
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
    peerPort = (peer.address() as AddressInfo).port;
    peerUrl = `http://127.0.0.1:${peerPort}`;
    c = await startCluster();
    hash = (await c.signIn()).hash;
  }, 300_000);
  afterAll(async () => {
    console.log(`cluster-faults figures: ${JSON.stringify(figures)}`);
    await c?.close();
    peer.closeAllConnections();
    await new Promise((r) => peer.close(r));
  });

  // ---------------------------------------------------------------- helpers

  /** The pid of instance i's current process (found by its DATA_DIR), or null. */
  const pidOf = (i: number): number | null => {
    const want = `\0DATA_DIR=${join(c.dir, `instance-${i}`)}\0`;
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        if (`\0${readFileSync(`/proc/${d}/environ`, 'latin1')}\0`.includes(want)) return Number(d);
      } catch { /* gone, or not ours */ }
    }
    return null;
  };
  /** The instance holding the client side of a connection to the endpoint from `clientPort`, or null. */
  const ownerOf = (clientPort: number): number | null => {
    const hex = (p: number) => `:${p.toString(16).toUpperCase().padStart(4, '0')}`;
    let inode: string | null = null;
    for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(f, 'utf8').split('\n').slice(1)) {
        const col = line.trim().split(/\s+/);
        if (col.length > 9 && col[1].endsWith(hex(clientPort)) && col[2].endsWith(hex(peerPort)) && col[9] !== '0') inode = col[9];
      }
    }
    if (!inode) return null;
    for (let i = 0; i < c.instances; i++) {
      const pid = c.alive(i) ? pidOf(i) : null;
      if (!pid) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return i;
        } catch { /* closed meanwhile */ }
      }
    }
    return null;
  };

  const saveTask = async (name: string, path: string, via: number) => {
    const r = await c.rest<Envelope<{ Id: number }>>(hash, 'POST', '/cfg/save_app_cron', { name, second: '*', cmd: `curl=${peerUrl}${path}` }, { via, timeoutMs: 10_000 });
    expect(r.body).toMatchObject({ status: 'ok' });
    return { Id: (r.body as { result: { Id: number } }).result.Id, ms: r.ms };
  };
  const runsOf = async (Id: number, via: number) => (await c.ok<Paged<CronRunView>>(hash, 'cron.getRuns', { Id, limit: 100 }, { via, timeoutMs: 10_000 })).list;
  const hitsBetween = (path: string, from: number, to: number) => hitsOf(path).filter((h) => h.at >= from && h.at <= to).map((h) => h.at).sort((x, y) => x - y);
  const gaps = (times: number[]) => times.slice(1).map((t, k) => t - times[k]);
  /** Warning lines of instance i written after `from` (an index into its lines) that mention Redis. */
  const redisWarnings = (i: number, from: number) => c.logs(i).slice(from).filter((l) => (l.json?.level ?? 0) >= 40 && /redis/i.test(l.text));
  const plainRedisLines = (i: number, from: number) => c.logs(i).slice(from).filter((l) => !l.json && /redis|error handler/i.test(l.text));
  const until = (t: number) => sleep(Math.max(0, t - Date.now()));

  // The every-second task of cases 2 and 3 (saved once both instances are up again after case 1).
  let A = 0;

  // ---------------------------------------------------------------- 1. crash mid-run

  test('SIGKILL of the instance inside a slow run: the task runs again within 6 s elsewhere and the cut run is recorded interrupted', async () => {
    const { Id } = await saveTask('slow tick', '/slow', 0);
    // A request that arrived less than 400 ms ago (300 ms left before it is answered) and whose instance is known.
    const { h, victim } = await waitFor('a /slow request in progress from a known instance', () => {
      const h = hitsOf('/slow').at(-1);
      if (!h || h.done || Date.now() - h.at > 400) return false;
      const victim = ownerOf(h.port);
      return victim === null ? false : { h, victim };
    }, 20_000);
    const survivor = 1 - victim;
    const victimName = c.cronInstance(victim);
    expect(victimName).toEqual(expect.any(String));
    const killAt = Date.now();
    await c.kill(victim, 'SIGKILL');
    try {
      // The request was cut by the kill, not answered: the instance died mid-run.
      await waitFor('the cut request to close', () => h.aborted || h.done, 2_000);
      expect(h).toMatchObject({ aborted: true });

      const next = await waitFor('a /slow request after the kill', () => hitsOf('/slow').find((x) => x.at > killAt), 15_000);
      figures.crashNextHitMs = next.at - killAt;
      expect(next.at - killAt).toBeLessThanOrEqual(6_000);
      expect(ownerOf(next.port) ?? survivor).toBe(survivor);

      const interrupted = await waitFor('the interrupted run in cron.getRuns', async () => (await runsOf(Id, survivor)).find((r) => r.status === 'interrupted'), 10_000);
      expect(interrupted).toMatchObject({ task_id: Id, status: 'interrupted', instance: victimName });
      expect(interrupted.message).toMatch(/^Interrupted/);
    } finally {
      // The next cases need both instances, whatever happened here.
      await c.ok(hash, 'cfg.appCronDelete', { Id }, { via: survivor });
      await c.restart(victim);
    }
    expect(c.cronInstance(victim)).not.toBe(victimName);
  });

  // ---------------------------------------------------------------- 2. Redis outage

  test('Redis down for 10 s: calls answer within their bounds, ticks run once a second, a save made meanwhile reaches the other instance, sockets get realtime.resync, one warning per client group', async () => {
    A = (await saveTask('every second', '/a', 1)).Id;
    await waitFor('the first /a tick', () => hitsOf('/a').length > 0, 10_000);
    const s = [await c.socket(hash, 0), await c.socket(hash, 1)];
    const from = [c.logs(0).length, c.logs(1).length];
    await sleep(2_000);

    await c.killRedis();
    const downAt = Date.now();
    const saved = await saveTask('saved during the outage', '/b', 0);
    const B = saved.Id;
    const bounds: Record<string, number[]> = { save: [saved.ms], status: [] };
    const calls = async () => {
      for (const via of [0, 1]) {
        const st = await c.rpc<CronStatus>(hash, 'cron.getStatus', undefined, { via, timeoutMs: 10_000 });
        expect(st.env).toMatchObject({ status: 'ok' });
        bounds.status.push(st.ms);
        if (via === 0) expect((st.env as { result: CronStatus }).result.tasks.map((t) => t.Id)).toContain(B);
      }
    };
    await calls();
    // Later in the outage (the clients are in their reconnect back-off by now): the same bounds.
    await until(downAt + 5_000);
    const again = await c.rpc(hash, 'cfg.saveAppCron', { Id: B, name: 'saved during the outage (2)' }, { via: 0, timeoutMs: 10_000 });
    expect(again.env).toMatchObject({ status: 'ok' });
    bounds.save.push(again.ms);
    await calls();
    figures.outageCallMs = bounds;
    for (const ms of bounds.save) expect(ms).toBeLessThanOrEqual(3_000);
    for (const ms of bounds.status) expect(ms).toBeLessThanOrEqual(2_000);

    await until(downAt + 10_000);
    await c.startRedis();
    const upAt = Date.now();

    // Events were lost meanwhile: every socket is told to re-read.
    for (const sock of s) await sock.waitFor('realtime.resync', undefined, 20_000);
    figures.resyncMs = s.map((sock) => sock.got.find((g) => g.event === 'realtime.resync')!.at - upAt);
    // B was saved on instance 0 while instance 1 could not hear of it: once Redis is back it runs there too.
    const name1 = c.cronInstance(1);
    await waitFor('a run of the task saved during the outage on instance 1', async () => (await runsOf(B, 1)).some((r) => r.instance === name1 && r.status === 'ok'), 20_000);
    await c.ok(hash, 'cfg.appCronDelete', { Id: B }, { via: 0 });

    // The every-second task during the outage and right after it.
    const end = Date.now();
    const times = hitsBetween('/a', downAt - 1_500, end);
    const g = gaps(times);
    figures.outageLongestGapMs = Math.max(...g);
    figures.outageDuplicates = g.filter((x) => x < 500).length;
    expect(g.filter((x) => x < 500)).toEqual([]);
    const rows = (await runsOf(A, 0)).filter((r) => r.scheduled && Date.parse(r.scheduled) >= downAt - 1_000 && Date.parse(r.scheduled) <= end - 2_000);
    const bySecond = new Map<string, CronRunView[]>();
    for (const r of rows) bySecond.set(r.scheduled!, [...(bySecond.get(r.scheduled!) ?? []), r]);
    for (const [, rs] of bySecond) expect(rs.filter((r) => r.status === 'ok').length).toBeLessThanOrEqual(1);
    const skipped = rows.filter((r) => r.status === 'skipped');
    figures.outageSkipped = skipped.map((r) => r.message);
    for (const r of skipped) expect(r.message).not.toMatch(/Still running/);
    // Every second of the outage has its row: run (at most once) or skipped with its reason.
    const missing: string[] = [];
    for (let t = Math.ceil((downAt + 1_000) / 1000) * 1000; t <= upAt - 1_000; t += 1000) {
      if (!bySecond.has(new Date(t).toISOString())) missing.push(new Date(t).toISOString());
    }
    expect(missing).toEqual([]);
    // Ticks skipped at the start while the instances make sure none still reaches Redis (≤ 4.5 s) make a longer gap.
    expect(Math.max(...g)).toBeLessThanOrEqual(skipped.length ? 6_000 : 3_000);

    // One JSON warning per outage and client group (the socket.io adapter's, the cron coordinator's); no plain-text lines.
    for (const i of [0, 1]) {
      const w = redisWarnings(i, from[i]);
      figures[`outageWarnings${i}`] = w.map((l) => l.json?.msg);
      expect(w.filter((l) => /socket\.io/.test(l.text)).length).toBeLessThanOrEqual(1);
      expect(w.filter((l) => /\(cron\)/.test(l.text)).length).toBeLessThanOrEqual(1);
      expect(w.length).toBeLessThanOrEqual(2);
      expect(w.length).toBeGreaterThanOrEqual(1);
      expect(plainRedisLines(i, from[i]).map((l) => l.text)).toEqual([]);
    }
    for (const sock of s) sock.close();
  });

  // ---------------------------------------------------------------- 3. flapping

  test("instance 0's Redis connections reset for 20 s: calls answer meanwhile; within 30 s of forwarding its events reach instance 1 and it claims ticks; SIGTERM stops it within 5 s (also with its Redis connection held silent)", async () => {
    expect(A).toBeGreaterThan(0);
    const s1 = await c.socket(hash, 1);
    const { Id: S } = await c.ok<{ Id: number }>(hash, 'srv.save_server', { name: 'flap-0', type: 0 }, { via: 0 });
    await s1.waitFor('srv.changed', (e) => e.Id === S);
    const from = c.logs(0).length;
    const p0 = c.proxy(0);

    p0.set('reset');
    const cutAt = Date.now();
    const bounds: Record<string, number[]> = { status: [], save: [] };
    for (const at of [1_000, 8_000, 15_000]) {
      await until(cutAt + at);
      const st = await c.rpc(hash, 'cron.getStatus', undefined, { via: 0, timeoutMs: 10_000 });
      expect(st.env).toMatchObject({ status: 'ok' });
      bounds.status.push(st.ms);
      const sv = await c.rpc(hash, 'cfg.saveAppCron', { Id: A, name: `every second (${at})` }, { via: 0, timeoutMs: 10_000 });
      expect(sv.env).toMatchObject({ status: 'ok' });
      bounds.save.push(sv.ms);
    }
    figures.flapCallMs = bounds;
    for (const ms of [...bounds.status, ...bounds.save]) expect(ms).toBeLessThanOrEqual(3_000);
    await until(cutAt + 20_000);

    p0.set('forward');
    const fwdAt = Date.now();
    // A server saved through instance 0 reaches the socket on instance 1 (saved again each second until one does).
    let delivered: number | null = null;
    for (let k = 1; delivered === null && Date.now() < fwdAt + 30_000; k++) {
      const name = `flap-${k}`;
      await c.ok(hash, 'srv.save_server', { Id: S, name }, { via: 0, timeoutMs: 10_000 });
      const e = await s1.waitFor('srv.changed', (x) => x.Id === S && x.name === name, 1_000).catch(() => null);
      if (e) {
        delivered = Date.now() - fwdAt;
        expect(e.at).toEqual(expect.any(Number));
      }
    }
    figures.flapDeliveredMs = delivered;
    expect(delivered).not.toBeNull();
    expect(delivered!).toBeLessThanOrEqual(30_000);

    // Instance 0 claims ticks again.
    const name0 = c.cronInstance(0);
    await waitFor('a tick run by instance 0 after the flap', async () => (await runsOf(A, 1)).some((r) => r.instance === name0 && r.status === 'ok' && Date.parse(r.started) > fwdAt), Math.max(1_000, fwdAt + 30_000 - Date.now()));
    figures.flapTickClaimedMs = Date.now() - fwdAt;

    const times = hitsBetween('/a', cutAt, Date.now());
    const g = gaps(times);
    figures.flapLongestGapMs = Math.max(...g);
    figures.flapDuplicates = g.filter((x) => x < 500).length;
    // Instance 1 reaches Redis all along and runs the ticks; instance 0, cut off, leaves them to it (no second run on the database lease).
    expect(g.filter((x) => x < 500)).toEqual([]);
    expect(Math.max(...g)).toBeLessThanOrEqual(3_000);
    const w = redisWarnings(0, from);
    figures.flapWarnings0 = w.map((l) => l.json?.msg);
    expect(w.filter((l) => /socket\.io/.test(l.text)).length).toBeLessThanOrEqual(1);
    expect(w.filter((l) => /\(cron\)/.test(l.text)).length).toBeLessThanOrEqual(1);
    expect(plainRedisLines(0, from).map((l) => l.text)).toEqual([]);
    s1.close();

    // SIGTERM while its Redis connections are being reset again.
    p0.set('reset');
    await sleep(2_000);
    const ms = await c.kill(0, 'SIGTERM');
    figures.sigtermMs = ms;
    expect(ms).toBeLessThanOrEqual(5_000);
    p0.set('forward');
    // And instance 1 while its Redis does not answer at all (connections held, commands time out).
    c.proxy(1).set('blackhole');
    await sleep(500);
    const held: number[] = [];
    for (const [method, args] of [['cron.getStatus', undefined], ['cfg.saveAppCron', { Id: A, name: 'every second (held)' }]] as const) {
      const r = await c.rpc(hash, method, args, { via: 1, timeoutMs: 10_000 });
      expect(r.env).toMatchObject({ status: 'ok' });
      held.push(r.ms);
    }
    figures.blackholeCallMs = held;
    for (const ms of held) expect(ms).toBeLessThanOrEqual(3_000);
    await sleep(1_500);
    const ms1 = await c.kill(1, 'SIGTERM');
    figures.sigtermBlackholeMs = ms1;
    expect(ms1).toBeLessThanOrEqual(5_000);
    c.proxy(1).set('forward');
  });
});
