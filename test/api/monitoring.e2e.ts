/**
 * Monitoring against the real OpenSSH on loopback (test/helpers/sshd.ts) and the real database: a
 * round reads the machine's real /proc/loadavg, a closed port records a gap and the round still ends,
 * the pooled connection is reused, CPU busy share appears from the second round, history survives a
 * restart (a new app on the same SQLite file or MariaDB database); REST rows and RPC answers keep their
 * shapes; seeded years of history never answer more than 2,000 points; roles; bad input; 'update_nginx'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { io, type Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { MONITOR_METRICS, MONITOR_QUALITIES, MONITOR_RANGES, type MonitorMetric } from '../../src/contracts/monitoring.js';
import { MonitoringCollector } from '../../src/modules/monitoring/monitoring-collector.service.js';
import { MonitoringStore, type MinuteRow, type RollupRow } from '../../src/modules/monitoring/monitoring-store.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { freePort, startSshd, type Sshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';
let t: TestApp;
let sshd: Sshd;
let admin: string;
let user: string;
let dataDir: string;
let dbUrl: string | undefined;
let dropDb: (() => Promise<void>) | undefined;
const ids: Record<string, number> = {};

/** The app's own data directory and database, so that a second app can open the same ones (restart). */
async function env(): Promise<Record<string, string>> {
  return { CRON_ENABLED: '0', DATA_DIR: dataDir, MONITOR_SSH_TIMEOUT_MS: '3000', ...(dbUrl ? { DATABASE_URL: dbUrl } : {}) };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mon-test-'));
  if (process.env.TEST_DATABASE_URL) {
    const u = new URL(process.env.TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'));
    const name = `mon_${randomBytes(4).toString('hex')}`;
    const opts = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
    const c = await createConnection(opts);
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await c.end();
    u.pathname = `/${name}`;
    dbUrl = u.toString();
    dropDb = async () => {
      const d = await createConnection(opts);
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
    };
  }
  sshd = await startSshd();
  t = await startApp(await env());
  admin = (await t.session(1)).hash;
  user = (await t.session(100)).hash;
  const save = async (fields: Record<string, unknown>) => (await t.ok<{ Id: number }>(admin, 'srv.save_server', { ip: '127.0.0.1', sshlogin: sshd.user, ...fields })).Id;
  const closed = await freePort();
  ids.good = await save({ name: 'mon-good', type: 9, sshport: sshd.port, sshpass: sshd.password });
  ids.dead = await save({ name: 'mon-dead', type: 6, sshport: closed, sshpass: 'x-password' });
  ids.off = await save({ name: 'mon-off', type: 9, sshport: sshd.port, sshpass: sshd.password, status: 0 });
  ids.nocred = await save({ name: 'mon-nocred', type: 1, sshport: sshd.port });
  ids.history = await save({ name: 'mon-history', type: 5 });
  ids.web = await save({ name: 'mon-web', type: 8, balance_web: 1 });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await sshd?.stop();
  await dropDb?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`monitoring (${DB})`, () => {
  let socket: Socket;
  const events: unknown[] = [];

  test("a round reads the real /proc/loadavg over SSH; a closed port is a gap and the round still ends; 'update_nginx' reaches a default-role user", async () => {
    socket = io(t.url, { transports: ['websocket'], auth: { hash: user }, reconnection: false });
    socket.on('update_nginx', (e: unknown) => events.push(e));
    await new Promise<void>((resolve, reject) => { socket.on('connect', () => resolve()); socket.on('connect_error', reject); });

    const before = loadavg()[0];
    const res = await t.ok<any[]>(admin, 'monitoring.collectNow', {});
    const after = loadavg()[0];
    // only servers with status 1 and SSH credentials are read; the others that are on are answered
    // with the reason they were not tried (issue 18: "Collected 0 servers of 0" said nothing)
    expect(res.filter((r) => r.reason !== 'no_credentials').map((r) => r.name).sort()).toEqual(['mon-dead', 'mon-good']);
    expect(res.filter((r) => r.reason === 'no_credentials').map((r) => [r.name, r.ok, r.error]).sort()).toEqual([
      ['mon-history', false, 'No SSH password or private key is stored for this server'],
      ['mon-nocred', false, 'No SSH password or private key is stored for this server'],
      ['mon-web', false, 'No SSH password or private key is stored for this server'],
    ]);
    expect(res.map((r) => r.name)).not.toContain('mon-off');
    const good = res.find((r) => r.Id === ids.good);
    expect(good).toMatchObject({ ok: true, name: 'mon-good' });
    expect(good.cpu_la).toBeGreaterThanOrEqual(Math.min(before, after) - 0.5);
    expect(good.cpu_la).toBeLessThanOrEqual(Math.max(before, after) + 0.5);
    const dead = res.find((r) => r.Id === ids.dead);
    expect(dead).toMatchObject({ ok: false, error: expect.stringMatching(/refused/i), reason: 'refused' });
    expect(dead.cpu_la).toBeUndefined();

    await waitFor('update_nginx', () => events.length >= 1);
    expect(events[0]).toMatchObject({ servers: 2, ok: 1, at: expect.any(String) });
    socket.close();
    // The round itself writes no audit row (it changes nothing); the admin's call is audited as such.
    expect((await t.ok<any>(admin, 'audit.getList', { method: 'monitoring.collect' })).list.map((r: { method: string }) => r.method)).toEqual(['monitoring.collectNow']);
  });

  test('a scheduled round with zero servers writes no audit row (issue 18: one a minute before)', async () => {
    const bare = await startApp({ CRON_ENABLED: '1', MONITOR_INTERVAL_SECONDS: '3600' });
    try {
      const hash = (await bare.session(1)).hash;
      const c = bare.app.get(MonitoringCollector);
      expect(await c.scheduledRound()).toEqual([]);
      expect(await c.scheduledRound()).toEqual([]);
      const rows = (await bare.ok<any>(hash, 'audit.getList', {})).list.map((r: { method: string }) => r.method);
      expect(rows).toEqual(['user.auth']);
    } finally {
      await bare.close();
    }
  });

  test('the second round reuses the pooled connection and has the CPU busy share; the minute row keeps every metric', async () => {
    const c = t.app.get(MonitoringCollector);
    const reusedBefore = c.stats.reused;
    const res = await t.ok<any[]>(admin, 'monitoring.collectNow', {});
    expect(res.find((r) => r.Id === ids.good)).toMatchObject({ ok: true });
    expect(c.stats.reused).toBeGreaterThan(reusedBefore);
    expect(c.stats.open).toBeGreaterThanOrEqual(1); // kept open for the next round

    const metric = async (m: MonitorMetric) => (await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.good, minutes: 180, metric: m })).points.at(-1);
    const cpu = await metric('cpu_busy_pct');
    expect(cpu[1]).toBeGreaterThanOrEqual(0);
    expect(cpu[1]).toBeLessThanOrEqual(100);
    const cores = await metric('cores');
    expect(cores[1]).toBeGreaterThanOrEqual(1);
    const mem = await metric('mem_used_pct');
    expect(mem[1]).toBeGreaterThan(0);
    expect(mem[1]).toBeLessThan(100);
    const procs = await metric('procs_total');
    expect(procs[1]).toBeGreaterThan(1);
  });

  test('getSeries: minute tier for 3 hours, the gap of the dead server is null; unknown server 404', async () => {
    const g = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.good, minutes: 180 });
    expect(g.tier).toBe('minute');
    expect(g.points.length).toBeGreaterThanOrEqual(1);
    const [ms, avg, min, max] = g.points.at(-1);
    expect(ms % 60_000).toBe(0);
    expect(Math.abs(ms - Date.now())).toBeLessThan(5 * 60_000);
    expect(avg).toEqual(expect.any(Number));
    expect(min).toBe(avg);
    expect(max).toBe(avg);
    const d = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.dead });
    expect(d.points.at(-1).slice(1)).toEqual([null, null, null]);
    const none = await t.rpc<any>(user, 'monitoring.getSeries', { Id: 999_999 });
    expect(none.env).toMatchObject({ code: 404, message: expect.stringMatching(/not found/) });
  });

  test('REST rows: cpu_loading, chart (type, grouped types, not_id, quality), get_balancing; monitor2.getListLoadAVG', async () => {
    const load = await t.rest<any>(user, 'GET', '/monitoring/srv/cpu_loading');
    expect(load.status).toBe(200);
    const items = load.body.result as any[];
    expect(items.find((i) => i.Id === ids.good)).toEqual({ Id: ids.good, name: 'mon-good', type: 9, cpu_la: expect.any(Number) });
    expect(items.find((i) => i.Id === ids.dead)).toEqual({ Id: ids.dead, name: 'mon-dead', type: 6, cpu_la: null });
    expect(items.find((i) => i.Id === ids.off)).toBeUndefined(); // status 0

    const chart = await t.rest<any>(user, 'GET', '/monitoring/srv/chart?type=9&minutes=180');
    expect(chart.status).toBe(200);
    expect(chart.body.result).toHaveLength(1); // mon-off has status 0
    const c = chart.body.result[0];
    expect(c).toMatchObject({ Id: ids.good, name: 'mon-good', type: 9, tier: 'minute', chart: { head: ['time', 'avg', 'min', 'max'] } });
    expect(c.chart.body.at(-1)).toHaveLength(4);

    const grouped = (await t.rest<any>(user, 'GET', '/monitoring/srv/chart')).body.result as any[];
    expect(grouped.map((x) => x.name).sort()).toEqual(['mon-dead', 'mon-good', 'mon-history', 'mon-nocred']); // types 9, 6, 5, 1
    const without = (await t.rest<any>(user, 'GET', `/monitoring/srv/chart?not_id=${ids.good}`)).body.result as any[];
    expect(without.map((x) => x.Id)).not.toContain(ids.good);
    const weeks = (await t.rest<any>(user, 'GET', '/monitoring/srv/chart?type=9&minutes=180&quality=3')).body.result as any[];
    expect(weeks[0].tier).toBe('week');
    expect(weeks[0].chart.body).toHaveLength(1);

    const bal = await t.rest<any>(user, 'GET', '/monitoring/get_balancing');
    expect(bal.status).toBe(200);
    expect(Object.keys(bal.body.result).sort()).toEqual(['Proxy', 'WEBCluster', 'db']);
    expect(bal.body.result.Proxy.data.map((r: any) => r.name)).toEqual(['mon-nocred']);
    expect(bal.body.result.WEBCluster.data).toEqual([
      { Id: ids.web, name: 'mon-web', type: 8, status: 1, balance_web: 1, balance_db: 0, balance_cache: 0, balance_memcache: 0, cpu_la: null },
    ]);
    expect(bal.body.result.db.data.map((r: any) => r.name).sort()).toEqual(['mon-dead', 'mon-history']);

    const avg = await t.ok<any[]>(user, 'monitor2.getListLoadAVG', { type: 9 });
    expect(avg).toEqual([{ Id: ids.good, name: 'mon-good', load: expect.any(Number) }]);
    const all = await t.ok<any[]>(user, 'monitor2.getListLoadAVG', {});
    expect(all.find((a) => a.Id === ids.dead)).toEqual({ Id: ids.dead, name: 'mon-dead', load: null });
  });

  test('seven years of seeded history: every range and quality answers at most 2,000 points from the expected tier', async () => {
    const store = t.app.get(MonitoringStore);
    const now = store.nowMin();
    const hourStart = now - (now % 60);
    const agg = (v: number, n: number) => Object.fromEntries(MONITOR_METRICS.map((m) => [m, { min: v - 0.5, avg: v, max: v + 0.5, n }])) as RollupRow['aggs'];
    // days 7 years back to 2 years back, hours from there to 14 days back, minutes for the last 14 days
    const days: RollupRow[] = [];
    const dayEnd = Math.floor((now - 730 * 1440) / 1440) * 1440;
    for (let ts = dayEnd - 7 * 365 * 1440; ts < dayEnd; ts += 1440) days.push({ server_id: ids.history, ts, aggs: agg(2, 1440) });
    await store.writeRollupRows('day', days);
    const hours: RollupRow[] = [];
    for (let ts = dayEnd; ts < hourStart - 14 * 1440; ts += 60) hours.push({ server_id: ids.history, ts, aggs: agg(3, 60) });
    await store.writeRollupRows('hour', hours);
    const minutes: MinuteRow[] = [];
    for (let ts = hourStart - 14 * 1440; ts <= now; ts++) minutes.push({ server_id: ids.history, ts, ...Object.fromEntries(MONITOR_METRICS.map((m) => [m, ts % 10 === 0 ? null : 4])) } as never);
    await store.writeMinutes(minutes);
    // The rounds above set the watermarks at their minute: history seeded behind them is rolled up by a
    // rebuild (the watermarks forgotten: each tier is made again from its source's first row).
    await t.app.get(DataSource).query('DELETE FROM mon_rollups');
    await store.rollup();
    const counts = await store.counts();
    expect(counts.week).toBeGreaterThanOrEqual(7 * 52 + 100); // 7 + 2 years of weeks

    const expected: Record<number, string> = { 180: 'minute', 720: 'minute', 1440: 'minute', 10080: 'hour', 302400: 'day', 907200: 'day', 1814400: 'day', 3628800: 'week' };
    for (const minutes of MONITOR_RANGES) {
      for (const quality of [undefined, ...MONITOR_QUALITIES]) {
        const r = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.history, minutes, ...(quality === undefined ? {} : { quality }) });
        expect(r.points.length).toBeLessThanOrEqual(2000);
        expect(r.points.length).toBeGreaterThan(0);
        if (quality === undefined) expect(`${minutes}: ${r.tier}`).toBe(`${minutes}: ${expected[minutes]}`);
        const times = r.points.map((p: number[]) => p[0]);
        expect(times).toEqual([...times].sort((a: number, b: number) => a - b));
      }
    }
    const week = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.history, minutes: 3628800 });
    const old = week.points.find((p: any[]) => p[1] !== null);
    expect(old.slice(1)).toEqual([2, 1.5, 2.5]); // a week of the day rows: avg 2, min 1.5, max 2.5
    // the minute tier keeps a read gap as null
    const raw = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.history, minutes: 180, quality: 0 });
    expect(raw.points.some((p: any[]) => p[1] === null)).toBe(true);
    expect(raw.points.some((p: any[]) => p[1] === 4)).toBe(true);
  }, 120_000);

  test('roles: a default-role user reads but cannot collect; without a session 401', async () => {
    const r = await t.rpc<any>(user, 'monitoring.collectNow', {});
    expect(r.status).toBe(403);
    expect((await t.rest<any>(null, 'GET', '/monitoring/srv/cpu_loading')).status).toBe(401);
    expect((await t.rest<any>(null, 'GET', '/monitoring/get_balancing')).status).toBe(401);
    expect((await t.rpc<any>(null, 'monitor2.getListLoadAVG', {})).status).toBe(401);
  });

  test('bad input: 4xx naming the field', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['monitoring.getSeries', { Id: 'x' }, /Id must be a number/],
      ['monitoring.getSeries', { Id: ids.good, minutes: 7 }, /Minutes must be one of/],
      ['monitoring.getSeries', { Id: ids.good, quality: 2 }, /Quality must be one of/],
      ['monitoring.getSeries', { Id: ids.good, metric: 'nope' }, /Metric must be one of/],
      ['monitor2.getListLoadAVG', { type: 'web' }, /Type must be a number/],
      ['monitor2.getListLoadAVG', { minutes: true }, /Minutes/],
    ];
    for (const [m, args, msg] of cases) {
      const r = (await t.rpc<any>(user, m, args)) as { env: any };
      expect(r.env.code).toBeGreaterThanOrEqual(400);
      expect(r.env.code).toBeLessThan(500);
      expect(r.env.message).toMatch(msg);
    }
    for (const q of ['minutes=5', 'quality=2', 'type=x', 'not_id=-1']) {
      const r = await t.rest<any>(user, 'GET', `/monitoring/srv/chart?${q}`);
      expect(`${q}: ${r.status}`).toMatch(/: 4\d\d$/);
    }
  });

  test('a restart (a new app on the same database) keeps the history', async () => {
    const before = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.good });
    const hist = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.history, minutes: 3628800 });
    await t.close();
    t = await startApp(await env());
    user = (await t.session(100, 'mon-after-restart')).hash;
    const after = await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.good });
    expect(after.points.filter((p: any[]) => p[1] !== null).length).toBeGreaterThanOrEqual(1);
    expect(after.points.slice(0, before.points.length)).toEqual(before.points);
    expect((await t.ok<any>(user, 'monitoring.getSeries', { Id: ids.history, minutes: 3628800 })).points.slice(0, 300)).toEqual(hist.points.slice(0, 300));
  }, 60_000);
});
