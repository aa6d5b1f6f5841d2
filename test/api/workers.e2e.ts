/**
 * The worker list end to end (001 §2 /worker, §4 Worker, §7 GET /worker/list; issue 19; SQLite, or
 * MariaDB with TEST_DATABASE_URL): every background worker of the console is listed with its status,
 * last run and last error, 20 per page; worker.stop / worker.start really stop and start it (the
 * monitoring collector's job does not call the collector while stopped; the firewall worker and the cron
 * service use their own persisted switches); the switch is shared by every instance and survives a
 * restart; admins only, and audited.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MonitoringCollectJob } from '../../src/jobs/monitoring-collect.job.js';
import { InputStreamRetentionJob } from '../../src/jobs/input-stream-retention.job.js';
import { MonitoringCollector } from '../../src/modules/monitoring/monitoring-collector.service.js';
import { startApp, type TestApp } from '../helpers/app.js';

let first: TestApp;
let t: TestApp;
let admin: string;
let sqliteDir: string | undefined;
let shared: Record<string, string>;

beforeAll(async () => {
  // A database of its own that outlives the first app (the restart test starts another on it).
  if (!process.env.TEST_DATABASE_URL) sqliteDir = mkdtempSync(join(tmpdir(), 'workers-'));
  const env = { CRON_ENABLED: '1', MONITOR_INTERVAL_SECONDS: '3600', ...(sqliteDir ? { DATABASE_URL: `sqlite:${join(sqliteDir, 'w.sqlite')}` } : {}) };
  t = first = await startApp(env);
  const db = t.cfg.database;
  shared = { CRON_ENABLED: '1', MONITOR_INTERVAL_SECONDS: '3600', SECRET_KEY: t.cfg.secretKey, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` };
  admin = (await t.session(1)).hash;
}, 60_000);

afterAll(async () => {
  if (t && t !== first) await t.close().catch(() => undefined);
  await first?.close().catch(() => undefined);
  if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
}, 60_000);

const list = async (app = t, hash = admin) => (await app.ok<{ list: any[]; count: number }>(hash, 'worker.getList', {})).list;
const worker = async (name: string, app = t, hash = admin) => (await list(app, hash)).find((w) => w.name === name);

describe(`workers (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('GET /worker/list: every background worker with status, last run and last error; 20 per page', async () => {
    const r = await t.rest<any>(admin, 'GET', '/worker/list');
    expect(r.status).toBe(200);
    const { list: rows, count } = r.body.result;
    expect(count).toBe(rows.length);
    expect(rows.map((w: any) => w.name)).toEqual(expect.arrayContaining([
      'firewall-worker', 'monitoring-collect', 'cron-service', 'input-stream-retention', 'firewall-retention', 'monitoring-retention',
      'terminal-retention', 'audit-retention', 'session-cleanup', 'ssl-check', 'firewall-traffic',
    ]));
    expect(rows.find((w: any) => w.name === 'monitoring-collect')).toEqual({
      name: 'monitoring-collect', label: 'Monitoring collector', schedule: 'every 3600 s', status: 'ok', last_run: null, last_error: null, scheduling: true,
    });
    // the firewall worker's switch is its own (fw_settings): off until switched on; the cron service is on
    expect(rows.find((w: any) => w.name === 'firewall-worker')).toMatchObject({ status: 'stopped' });
    expect(rows.find((w: any) => w.name === 'cron-service')).toMatchObject({ status: 'ok' });
    expect((await t.rest<any>(admin, 'GET', '/worker/list?page=2')).body.result).toEqual({ list: [], count });
    expect((await t.rest<any>(admin, 'GET', '/worker/list?page=0')).status).toBe(422);
  });

  test('stop really stops the monitoring collector (its job does not run), start runs it again; a run is recorded', async () => {
    const collector = t.app.get(MonitoringCollector);
    const job = t.app.get(MonitoringCollectJob);
    const round = jest.spyOn(collector, 'scheduledRound');
    try {
      expect(await t.ok(admin, 'worker.stop', { name: 'monitoring-collect' })).toMatchObject({ name: 'monitoring-collect', status: 'stopped' });
      expect(await job.tick()).toBeNull();
      expect(round).not.toHaveBeenCalled();
      expect(await worker('monitoring-collect')).toMatchObject({ status: 'stopped', last_run: null });

      expect(await t.ok(admin, 'worker.start', { name: 'monitoring-collect' })).toMatchObject({ status: 'ok' });
      expect(await job.tick()).toEqual([]); // no servers: a round over none
      expect(round).toHaveBeenCalledTimes(1);
      const w = await worker('monitoring-collect');
      expect(w.last_run).not.toBeNull();
      expect(w.last_error).toBeNull();
    } finally {
      round.mockRestore();
    }
  });

  test('a failing run is shown as the last error; the next good run clears it', async () => {
    const collector = t.app.get(MonitoringCollector);
    const failing = jest.spyOn(collector, 'scheduledRound').mockRejectedValueOnce(new Error('database went away'));
    try {
      expect(await t.app.get(MonitoringCollectJob).tick()).toBeNull();
      expect(await worker('monitoring-collect')).toMatchObject({ status: 'ok', last_error: 'database went away' });
      expect(await t.app.get(MonitoringCollectJob).tick()).toEqual([]);
      expect(await worker('monitoring-collect')).toMatchObject({ last_error: null });
    } finally {
      failing.mockRestore();
    }
  });

  test('the firewall worker and the cron service switch through their own persisted switches', async () => {
    expect(await t.ok(admin, 'worker.start', { name: 'firewall-worker' })).toMatchObject({ status: 'ok' });
    expect(await t.ok(admin, 'firewall.getWorkerStatus', {})).toMatchObject({ status: 1 });
    expect(await t.ok(admin, 'worker.stop', { name: 'firewall-worker' })).toMatchObject({ status: 'stopped' });
    expect(await t.ok(admin, 'firewall.getWorkerStatus', {})).toMatchObject({ status: 0 });
    await t.ok(admin, 'firewall.setWorkerStatus', { status: 1 }); // the firewall screens' switch shows here too
    expect(await worker('firewall-worker')).toMatchObject({ status: 'ok' });

    expect(await t.ok(admin, 'worker.stop', { name: 'cron-service' })).toMatchObject({ status: 'stopped' });
    expect(await t.ok(admin, 'cron.getServiceStatus', {})).toMatchObject({ service: 0 });
    expect(await t.ok(admin, 'worker.start', { name: 'cron-service' })).toMatchObject({ status: 'ok' });
    expect(await t.ok(admin, 'cron.getServiceStatus', {})).toMatchObject({ service: 1 });
  });

  test('admins only; unknown names refused; every switch audited with the worker named', async () => {
    for (const role of [10, 100]) {
      const h = (await t.session(role)).hash;
      expect((await t.rest(h, 'GET', '/worker/list')).status).toBe(403);
      expect((await t.rpc(h, 'worker.stop', { name: 'monitoring-collect' })).env).toMatchObject({ code: 403 });
      expect((await t.rpc(h, 'worker.start', { name: 'monitoring-collect' })).env).toMatchObject({ code: 403 });
    }
    expect((await t.rest(null, 'GET', '/worker/list')).status).toBe(401);
    expect(await worker('monitoring-collect')).toMatchObject({ status: 'ok' });
    expect((await t.rpc(admin, 'worker.stop', { name: 'no-such' })).env).toMatchObject({ code: 404, message: 'Worker not found' });
    expect((await t.rpc(admin, 'worker.stop', {})).env).toMatchObject({ code: 422, fields: { name: expect.any(String) } });
    const audit = await t.ok<any>(admin, 'audit.getList', { method: 'worker.stop' });
    expect(audit.list.map((r: any) => r.target)).toEqual(expect.arrayContaining([
      'worker Monitoring collector (#monitoring-collect)', 'worker Firewall worker (#firewall-worker)', 'worker Cron service (#cron-service)',
    ]));
  });

  test('the switch applies on every instance and survives a restart', async () => {
    const second = await startApp(shared);
    try {
      const h2 = (await second.session(1)).hash;
      await t.ok(admin, 'worker.stop', { name: 'input-stream-retention' });
      await t.ok(admin, 'worker.stop', { name: 'monitoring-collect' });
      // the other instance sees it and its jobs do not run
      expect(await worker('input-stream-retention', second, h2)).toMatchObject({ status: 'stopped' });
      const round = jest.spyOn(second.app.get(MonitoringCollector), 'scheduledRound');
      expect(await second.app.get(MonitoringCollectJob).tick()).toBeNull();
      expect(await second.app.get(InputStreamRetentionJob).run()).toBeNull();
      expect(round).not.toHaveBeenCalled();
      round.mockRestore();
      await second.ok(h2, 'worker.start', { name: 'input-stream-retention' });
      expect(await worker('input-stream-retention')).toMatchObject({ status: 'ok' });
    } finally {
      await second.close();
    }
    await t.ok(admin, 'worker.stop', { name: 'cron-service' });
    await t.ok(admin, 'worker.stop', { name: 'firewall-worker' });

    await t.app.close(); // the first app stops; its database stays
    t = await startApp(shared);
    admin = (await t.session(1)).hash;
    const after = await list();
    const status = (name: string) => after.find((w) => w.name === name).status;
    expect([status('monitoring-collect'), status('cron-service'), status('firewall-worker'), status('input-stream-retention')]).toEqual(['stopped', 'stopped', 'stopped', 'ok']);
    expect(await t.ok(admin, 'cron.getServiceStatus', {})).toMatchObject({ service: 0 });
    expect((await after.find((w) => w.name === 'monitoring-collect')).last_run).not.toBeNull(); // the runs recorded before
    const round = jest.spyOn(t.app.get(MonitoringCollector), 'scheduledRound');
    expect(await t.app.get(MonitoringCollectJob).tick()).toBeNull();
    expect(round).not.toHaveBeenCalled();
    round.mockRestore();
  });
});
