/**
 * The neural score's feature counters on the real app and database (src/modules/firewall/
 * feature-rollup.service.ts, ip-features.ts): log lines stored the worker's way (parser, store), then the
 * traffic job (FirewallTrafficJob.run, CRON_ENABLED on) fills fw_ip_feature_minutes up to its watermark;
 * the app's features (FirewallTrainService.features, what getNeyronData and marks read) equal featuresOf
 * on the stored rows before the job, after it, and with new lines after it; retention (the store's
 * removeBefore) and the next job run prune the counters of removed minutes.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { FEATURE_NAMES, type FeatureVector } from '../../src/contracts/firewall-train.js';
import { classifyRequest, DEFAULT_BOOK_URL_PATTERN } from '../../src/contracts/firewall.js';
import { FirewallTrafficJob } from '../../src/jobs/firewall-traffic.job.js';
import { AccessLogStore } from '../../src/modules/firewall/worker/access-log.store.js';
import { LogCursorEntity } from '../../src/modules/firewall/firewall.entities.js';
import { FirewallTrainService } from '../../src/modules/firewall/train/firewall-train.service.js';
import { FEATURE_ROLLUP_SETTING, featuresOf, type FeatureRow } from '../../src/modules/firewall/train/ip-features.js';
import { initialParseState, parseChunk } from '../../src/modules/firewall/worker/log-parser.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { SchedulerRegistry } from '@nestjs/schedule';

jest.setTimeout(120_000);

let t: TestApp;
let ds: DataSource;
let logStore: AccessLogStore;
let train: FirewallTrainService;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '1' });
  // The test runs the job itself (runJob): the every-minute schedule would roll up between a store and its check
  // whenever the test crosses a minute (seen in CI).
  for (const job of t.app.get(SchedulerRegistry).getCronJobs().values()) void job.stop();
  ds = t.app.get<DataSource>(getDataSourceToken());
  logStore = t.app.get(AccessLogStore);
  train = t.app.get(FirewallTrainService);
  await ds.getRepository(LogCursorEntity).insert({ proxy_id: 1, path: '/var/log/nginx/access.log', inode: '42', pos: 0, lines: 0, bad_lines: 0 });
}, 120_000);
afterAll(async () => { await t?.close(); }, 30_000);

interface Stored extends FeatureRow { ip: string; proxy_host: string }
const stored: Stored[] = [];
let pos = 0;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const timeLocal = (s: number) => {
  const d = new Date(s * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
};
const line = (e: Stored) =>
  `${e.ip} - - [${timeLocal(e.stime)}] "${e.method} ${e.url} HTTP/1.1" ${e.code} 512 "${e.ref || '-'}" "${e.agent || '-'}" "-" "${e.proxy_host}" 0.001 ${e.request_time}\n`;

/** Stores entries as the worker does: log lines parsed and committed by the store. */
async function store(list: Stored[]) {
  const chunk = Buffer.from(list.map(line).join(''));
  const { batch, state } = parseChunk(chunk, initialParseState(pos));
  expect([batch.length, batch.bad]).toEqual([list.length, 0]);
  await logStore.commit({ proxy_id: 1, proxy_addr: '10.9.0.1' }, batch, { inode: '42', pos }, { inode: '42', pos: state.offset, path: '/var/log/nginx/access.log' }, 0, null);
  pos = state.offset;
  stored.push(...list);
}

const PEOPLE = ['203.0.113.10', '203.0.113.11', '203.0.113.12'];
const BOTS = ['192.0.2.31', '192.0.2.32'];
const HOST = 'books.test';
let rnd = 7;
const next = () => (rnd = (rnd * 1103515245 + 12345) % 2147483648) / 2147483648;
function traffic(from: number, to: number): Stored[] {
  const out: Stored[] = [];
  for (const ip of PEOPLE) for (let s = from; s < to; s += 40 + Math.floor(next() * 80)) {
    const book = 1 + Math.floor(next() * 5);
    out.push({ ip, proxy_host: HOST, stime: s, method: 'GET', url: `/book/${book}/page/${Math.floor(next() * 9)}`, code: 200, ref: `https://${HOST}/`, agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', request_time: 0.05, tag: 'page' });
    out.push({ ip, proxy_host: HOST, stime: s, method: 'GET', url: '/static/app.css', code: 200, ref: `https://${HOST}/`, agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', request_time: 0.01, tag: 'page' });
  }
  for (const ip of BOTS) for (let s = from; s < to; s += 1 + Math.floor(next() * 4)) {
    out.push({ ip, proxy_host: HOST, stime: s, method: next() < 0.2 ? 'HEAD' : 'GET', url: `/book/${Math.floor(next() * 500)}/page/1`, code: next() < 0.1 ? 404 : 200, ref: '', agent: next() < 0.5 ? 'curl/8.5.0' : 'python-requests/2.31.0', request_time: 0.2, tag: 'page' });
  }
  // another host: must not count
  out.push({ ip: BOTS[0], proxy_host: 'news.test', stime: to - 1, method: 'GET', url: '/x', code: 500, ref: '', agent: 'curl/8.5.0', request_time: 0.1, tag: 'page' });
  return out.sort((a, b) => a.stime - b.stime).map((e) => ({ ...e, tag: classifyRequest(e.url, e.agent ?? '') }));
}

const pattern = new RegExp(DEFAULT_BOOK_URL_PATTERN);
const expectFeatures = async () => {
  const now = Math.floor(Date.now() / 1000);
  const got = await train.features(HOST);
  const after = Math.floor(Date.now() / 1000);
  for (const ip of [...PEOPLE, ...BOTS]) {
    const rows = stored.filter((e) => e.ip === ip && e.proxy_host === HOST);
    const a = got.get(ip)!;
    expect(a).toBeDefined();
    // the service read the clock itself: equal to featuresOf at the second before or after
    const b = featuresOf(rows, { bookPattern: pattern, now });
    const c = featuresOf(rows, { bookPattern: pattern, now: after });
    const close = (x: FeatureVector, y: FeatureVector) => FEATURE_NAMES.every((k) => Math.abs(x[k] - y[k]) < 1e-6);
    expect([ip, close(a, b) || close(a, c)]).toEqual([ip, true]);
  }
};
const counterRows = async () => Number(((await ds.query('SELECT COUNT(*) AS c FROM fw_ip_feature_minutes')) as Array<{ c: unknown }>)[0].c);
const watermark = async () => Number(((await ds.query('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_ROLLUP_SETTING])) as Array<{ value: string }>)[0]?.value ?? 0);
const maxId = async () => Number(((await ds.query('SELECT MAX(Id) AS m FROM fw_access_log')) as Array<{ m: unknown }>)[0].m);
/** The job's run; on MariaDB Ids settle a minute first: a run, then one a minute "later" (Date.now moved on). */
async function runJob() {
  const job = t.app.get(FirewallTrafficJob);
  await job.run();
  const real = Date.now.bind(Date);
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => real() + 61_000);
  try {
    await job.run();
  } finally {
    spy.mockRestore();
  }
}

test('the job counts the stored lines into fw_ip_feature_minutes; the features equal featuresOf before, after, and with new lines after it', async () => {
  const now = Math.floor(Date.now() / 1000);
  await store(traffic(now - 3 * 3600, now - 2 * 3600)); // old: retention removes these below
  const edge = Math.floor((now - 120) / 60) * 60; // the raw tail below starts on a minute's edge (a minute split between rollups overcounts its distinct columns)
  await store(traffic(now - 1800, edge));
  expect(await counterRows()).toBe(0);
  await expectFeatures(); // all raw

  await runJob();
  expect(await watermark()).toBe(await maxId());
  // one row per (host, minute, address) of the stored lines
  const keys = new Set(stored.map((e) => `${e.proxy_host}|${Math.floor(e.stime / 60)}|${e.ip}`));
  expect(await counterRows()).toBe(keys.size);
  await expectFeatures(); // counters only

  await store(traffic(edge, Math.floor(Date.now() / 1000))); // the raw tail
  expect(await watermark()).toBeLessThan(await maxId());
  await expectFeatures();
});

test('retention removes old lines; the next job run prunes their minutes, the features still equal featuresOf', async () => {
  const now = Math.floor(Date.now() / 1000);
  const cutoff = Math.floor((now - 2.5 * 3600) / 60) * 60;
  const removed = await logStore.removeBefore(cutoff);
  expect(removed.entries).toBe(stored.filter((e) => e.stime < cutoff).length);
  stored.splice(0, stored.length, ...stored.filter((e) => e.stime >= cutoff));
  await runJob();
  const minutes = ((await ds.query('SELECT MIN(minute) AS m FROM fw_ip_feature_minutes')) as Array<{ m: unknown }>)[0].m;
  expect(Number(minutes)).toBe(Math.min(...stored.map((e) => Math.floor(e.stime / 60))));
  const keys = new Set(stored.map((e) => `${e.proxy_host}|${Math.floor(e.stime / 60)}|${e.ip}`));
  expect(await counterRows()).toBe(keys.size);
  expect(await watermark()).toBe(await maxId());
  await expectFeatures();
});
