/**
 * Report dashboards end to end (issue 23 "Report dashboards"; docs/report.md) on the real app and the
 * suite's database, against local servers speaking Yandex Metrika's Reporting API
 * (test/helpers/fakes/metrika.ts) and the Yandex partner statistics API (test/helpers/fakes/rsya.ts):
 *
 * - /report/save (new reports start with the defaults; every field; clear 422s), /report/get (the
 *   filter with its defaults quality 0, status 1, count_day 1; by Id), /report/remove (deleteId; charts
 *   merged into it stand alone again), /report/clear_stats (clearId), /report/get_type_metrics; writes
 *   role 10 and stronger;
 * - report.builItemsChart.get for type 0 or more from the console's statistics (input stream hours and
 *   days, views data, banner counters) with the previous period (compare_offset), totals, marge and the
 *   reference bounds colouring the cells;
 * - type -1 through Yandex Metrika: /stat/v1/data by day, /stat/v1/data/bytime by hour and week, the
 *   OAuth header, the 600 s cache (a second draw sends nothing), a 429 and a 5xx retried, a malformed
 *   answer, no retry on 401, the last good answer shown stale with its error;
 * - yandex.getTotalRsy {date1, date2}: the sum of partner_wo_nds for role 1, refused for role 10, the
 *   request's shape, cache, 429, 5xx, malformed, an errors body, stale;
 * - `{configured: false}` without tokens; no token in any answer, audit row, cache row or log line.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ReportBuild, ReportChart, RsyaTotals } from '../../src/contracts/report.js';
import { JsonLogger } from '../../src/core/logger.js';
import { MetrikaClient } from '../../src/core/outside/metrika.client.js';
import { RsyaClient } from '../../src/core/outside/rsya.client.js';
import { startApp, type TestApp } from '../helpers/app.js';
import type { FakeHttp } from '../helpers/fake-http.js';
import { METRIKA_BYTIME, METRIKA_DATA, METRIKA_TOKEN, startFakeMetrika } from '../helpers/fakes/metrika.js';
import { RSYA_ROUTE, RSYA_TOKEN, rsyaValue, startFakeRsya } from '../helpers/fakes/rsya.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T = 60_000;

let t: TestApp;
let metrika: FakeHttp;
let rsya: FakeHttp;
let admin: string;
let content: string;
let user: string;
const logLines: string[] = [];
const answers: string[] = [];

const db = () => t.app.get<DataSource>(getDataSourceToken());
const rest = async <R = any>(hash: string | null, method: string, path: string, body?: unknown) => {
  const r = await t.rest<any>(hash, method, path, body);
  answers.push(JSON.stringify(r.body));
  return r as { status: number; body: { status: string; result: R; message?: string; fields?: Record<string, string> } };
};
const save = async (fields: Record<string, unknown>): Promise<ReportChart> => {
  const r = await rest<{ Id: number; report: ReportChart }>(content, 'POST', '/report/save', fields);
  if (r.body.status !== 'ok') throw new Error(`save ${JSON.stringify(fields)} -> ${JSON.stringify(r.body)}`);
  return r.body.result.report;
};
const build = async (Id: number) => {
  const r = await t.rpc<ReportBuild>(user, 'report.builItemsChart.get', { Id });
  answers.push(JSON.stringify(r.env));
  return r;
};
const built = async (Id: number): Promise<ReportBuild> => {
  const r = await build(Id);
  if (r.env.status !== 'ok') throw new Error(`build ${Id} -> ${JSON.stringify(r.env)}`);
  return r.env.result;
};
const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  metrika = await startFakeMetrika();
  rsya = await startFakeRsya();
  const logger = new JsonLogger('debug', { write: (s: string) => void logLines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
  t = await startApp({
    CRON_ENABLED: '0', METRIKA_URL: metrika.url, METRIKA_TOKEN, RSYA_URL: rsya.url, RSYA_TOKEN, REPORT_METRIC_BOUNDS: 'shows:10-20, clicks:0-1',
  }, { logger });
  const fast = { tries: 3, baseMs: 10, maxMs: 20, maxRetryAfterMs: 5_000 };
  t.app.get(MetrikaClient).retry = fast;
  t.app.get(RsyaClient).retry = fast;
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
}, T);

afterAll(async () => {
  await t?.close();
  await metrika?.close();
  await rsya?.close();
});

describe('report charts: /report/save, get, remove, clear_stats, get_type_metrics', () => {
  test('a new report starts with the defaults; the filter defaults to quality 0, status 1, count_day 1; edits change what is sent', async () => {
    const r = await save({ title: 'Defaults' });
    expect(r).toMatchObject({ title: 'Defaults', sort_number: 0, tab_number: 1, status: 1, type: 0, custom: 0, table: 'stream', quality: 0, colums: 'shows,clicks', count_day: 1, offset: 0, marge_to: 0, type_caption: 0, val_round: 0, metrika_ids: '', metrika_chart_type: 0, metrika_match_url: '', compare_offset: 0, data: null, total: 0, marge: 0, data_range_end: null });
    const week = await save({ title: 'Week', count_day: 7, quality: 1, tab_number: 5, sort_number: 3, names: 'Показы,Клики', type_caption: 1, val_round: 2, custom: 14, type: 2 });
    const g = await rest<{ list: ReportChart[]; filter: Record<string, number> }>(user, 'GET', '/report/get');
    expect(g.body.result.filter).toEqual({ quality: 0, status: 1, count_day: 1 });
    const ids = g.body.result.list.map((x) => x.Id);
    expect(ids).toContain(r.Id);
    expect(ids).not.toContain(week.Id);
    const g7 = await rest<{ list: ReportChart[] }>(user, 'GET', '/report/get?quality=1&count_day=7&status=1&tab_number=5');
    expect(g7.body.result.list.map((x) => x.Id)).toEqual([week.Id]);
    expect(g7.body.result.list[0]).toMatchObject({ names: 'Показы,Клики', type_caption: 1, val_round: 2, custom: 14, type: 2, sort_number: 3 });
    // an edit keeps what it does not send
    const edited = await save({ Id: week.Id, title: 'Week 2', status: 0 });
    expect(edited).toMatchObject({ title: 'Week 2', status: 0, count_day: 7, names: 'Показы,Клики' });
    const one = await rest<ReportChart>(user, 'GET', `/report/get?Id=${week.Id}`);
    expect(one.body.result.title).toBe('Week 2');
    // order by sort_number within a tab
    const a = await save({ title: 'Sort b', sort_number: 2, tab_number: 3 });
    const b = await save({ title: 'Sort a', sort_number: 1, tab_number: 3 });
    const tab3 = await rest<{ list: ReportChart[] }>(user, 'GET', '/report/get?tab_number=3');
    expect(tab3.body.result.list.map((x) => x.Id)).toEqual([b.Id, a.Id]);
  });

  test('bad input answers a clear 422; writes need role 10; unknown ids 404', async () => {
    const bad = async (body: unknown, field: string, text: RegExp) => {
      const r = await rest(content, 'POST', '/report/save', body);
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(text);
      if (field) expect(Object.keys(r.body.fields ?? {})).toContain(field);
      expect(JSON.stringify(r.body)).not.toMatch(/at \w+ \(|node_modules/);
    };
    await bad({}, 'title', /title is required/);
    await bad({ title: 'x', count_day: 5 }, 'count_day', /count_day/);
    await bad({ title: 'x', quality: 2 }, 'quality', /quality/);
    await bad({ title: 'x', tab_number: 6 }, 'tab_number', /tab_number/);
    await bad({ title: 'x', custom: 15 }, 'custom', /custom is at most 14/);
    await bad({ title: 'x', type_caption: 6 }, 'type_caption', /type_caption is at most 5/);
    await bad({ title: 'x', type: -1 }, 'metrika_ids', /metrika_ids is required/);
    await bad({ title: 'x', type: -1, metrika_ids: '1', colums: 'shows' }, 'colums', /not a Metrika metric/);
    await bad({ title: 'x', colums: 'visits' }, 'colums', /not a column of stream/);
    await bad({ title: 'x', table: 'users' }, 'table', /table must be one of/);
    await bad({ title: 'x', metrika_ids: 'abc' }, 'metrika_ids', /comma list of counter ids/);
    await bad({ title: 'x', marge_to: 999999 }, 'marge_to', /not found/);
    expect((await rest(user, 'POST', '/report/save', { title: 'x' })).status).toBe(403);
    expect((await rest(user, 'POST', '/report/remove', { deleteId: 1 })).status).toBe(403);
    expect((await rest(user, 'POST', '/report/clear_stats', { clearId: 1 })).status).toBe(403);
    expect((await rest(content, 'POST', '/report/remove', { deleteId: 999999 })).status).toBe(404);
    expect((await rest(content, 'POST', '/report/remove', {})).status).toBe(422);
    expect((await rest(user, 'GET', '/report/get?count_day=2')).status).toBe(422);
  });

  test('remove (deleteId) and clear_stats (clearId); get_type_metrics lists the sources and bounds', async () => {
    const host = await save({ title: 'Host' });
    const merged = await save({ title: 'Merged', marge_to: host.Id, colums: 'clicks' });
    await built(host.Id);
    let again = (await rest<ReportChart>(user, 'GET', `/report/get?Id=${host.Id}`)).body.result;
    expect(again.data?.length).toBeGreaterThan(0);
    expect(again.data_range_end).toBeGreaterThan(Date.now() - HOUR);
    const cleared = await rest(content, 'POST', '/report/clear_stats', { clearId: host.Id });
    expect(cleared.body).toEqual({ status: 'ok', result: { message: 'Clear ok!' } });
    again = (await rest<ReportChart>(user, 'GET', `/report/get?Id=${host.Id}`)).body.result;
    expect(again).toMatchObject({ data: null, total: 0, marge: 0, data_range_end: null });
    const removed = await rest(content, 'POST', '/report/remove', { deleteId: host.Id });
    expect(removed.body).toEqual({ status: 'ok', result: { message: 'Delete ok!' } });
    expect((await rest(user, 'GET', `/report/get?Id=${host.Id}`)).status).toBe(404);
    expect((await rest<ReportChart>(user, 'GET', `/report/get?Id=${merged.Id}`)).body.result.marge_to).toBe(0);
    const audit = await db().query("SELECT target FROM audit_log WHERE method LIKE '%report/remove%' AND outcome = 'ok'");
    expect(audit.map((x: any) => x.target)).toContain(`report Host (#${host.Id})`);

    const tm = (await rest<any>(user, 'GET', '/report/get_type_metrics')).body.result;
    expect(tm.sources.map((s: any) => s.table)).toEqual(['stream', 'views', 'banners']);
    expect(tm.bounds).toEqual({ connections: [97, 366], shows: [10, 20], clicks: [0, 1] });
    expect(tm.count_day).toEqual([1, 7, 30, 90, 180, 360]);
    expect(tm.quality).toEqual([{ id: 0, name: 'hours' }, { id: 1, name: 'days' }, { id: 3, name: 'weeks' }]);
    expect(tm.tabs[0]).toEqual({ id: 1, name: 'Reading' });
    expect(tm.tabs[4]).toEqual({ id: 5, name: 'Misc' });
    expect(tm.metrika.configured).toBe(true);
  });
});

describe('type 0 or more: the console\'s own statistics', () => {
  let H: number; // epoch hour
  let D: number; // epoch day

  beforeAll(async () => {
    // seeded and drawn in the same hour: close to an hour's end, wait for the next one
    const left = HOUR - (Date.now() % HOUR);
    if (left < 20_000) await new Promise((r) => setTimeout(r, left + 500));
    H = Math.floor(Date.now() / HOUR);
    D = Math.floor(Date.now() / DAY);
    const q = (sql: string, p: unknown[]) => db().query(sql, p);
    const ins = 'INSERT INTO stream_hours (Id_cat, Id_book, ts, shows, clicks, pos_sum, pos_n) VALUES (?, ?, ?, ?, ?, ?, ?)';
    await q(ins, [1, 11, H, 6, 1, 12, 2]);
    await q(ins, [1, 12, H, 4, 1, 4, 1]);
    await q(ins, [2, 13, H - 1, 20, 5, 30, 3]);
    await q(ins, [2, 14, H - 30, 99, 9, 0, 0]); // outside a one-day range
    const insD = 'INSERT INTO stream_days (Id_cat, Id_book, ts, shows, clicks, pos_sum, pos_n) VALUES (?, ?, ?, ?, ?, ?, ?)';
    await q(insD, [1, 11, D, 100, 10, 0, 0]);
    await q(insD, [1, 12, D - 1, 50, 5, 0, 0]);
    await q(insD, [1, 12, D - 8, 70, 7, 0, 0]); // the compare period (7 days back)
    await q('INSERT INTO banner_days (Idb, ts, views, clicks) VALUES (?, ?, ?, ?)', [1, D, 300, 3]);
    await q('INSERT INTO banner_days (Idb, ts, views, clicks) VALUES (?, ?, ?, ?)', [2, D - 2, 100, 2]);
  }, T);

  test('input stream by hours: 24 hourly values from stream_hours, ctr and pos per hour, cells coloured by the bounds', async () => {
    const r = await save({ title: 'Stream hours', colums: 'shows,clicks,ctr,pos' });
    const b = await built(r.Id);
    expect(b.step).toBe('hour');
    expect(b.to).toBe((H + 1) * HOUR);
    expect(b.from).toBe((H - 23) * HOUR);
    const [shows, clicks, ctr, pos] = b.series;
    expect(shows.values).toHaveLength(24);
    expect(shows.values.slice(-2)).toEqual([20, 10]);
    expect(sum(shows.values)).toBe(30);
    expect(clicks.values.slice(-2)).toEqual([5, 2]);
    expect(ctr.values[23]).toBeCloseTo(20);
    expect(pos.values[23]).toBeCloseTo(16 / 3);
    expect(b.total).toBe(30);
    expect(b.source).toMatch(/stream_hours/);
    const cs = b.cells.find((c) => c.metric === 'shows')!;
    expect(cs).toMatchObject({ total: 30, bounds: [10, 20], tone: 'out', last: 20 });
    expect(cs.avg).toBeCloseTo(30 / 24);
    expect(b.cells.find((c) => c.metric === 'clicks')).toMatchObject({ total: 7, bounds: [0, 1], tone: 'in' });
    expect(b.cells.find((c) => c.metric === 'ctr')!.bounds).toBeNull();
  });

  test('input stream by days with the previous period beside it (compare_offset): total and marge kept on the report', async () => {
    const r = await save({ title: 'Stream days', quality: 1, count_day: 7, compare_offset: 7, colums: 'shows', names: 'Показы' });
    const b = await built(r.Id);
    expect(b.step).toBe('day');
    expect(b.series.map((s) => [s.name, !!s.compare])).toEqual([['Показы', false], ['Показы (-7 d)', true]]);
    expect(b.series[0].values).toEqual([0, 0, 0, 0, 0, 50, 100]);
    expect(b.series[1].values).toEqual([0, 0, 0, 0, 0, 70, 0]);
    expect(b.total).toBe(150);
    expect(b.marge).toBeCloseTo(((150 - 70) / 70) * 100, 1);
    expect(b.cells[0]).toMatchObject({ total: 150, compare_total: 70 });
    const kept = (await rest<ReportChart>(user, 'GET', `/report/get?Id=${r.Id}`)).body.result;
    expect(kept.total).toBe(150);
    expect(kept.marge).toBeCloseTo(114.29, 2);
    expect(kept.data?.[0].values).toEqual([0, 0, 0, 0, 0, 50, 100]);
    expect(kept.data_range_end).toBe((D + 1) * DAY);
  });

  test('views data (books shown and their shows) and banner counters (days only: hours are drawn by days)', async () => {
    const v = await built((await save({ title: 'Views', table: 'views', colums: 'object,count' })).Id);
    expect(v.series[0].values.slice(-2)).toEqual([1, 2]); // one book in the hour before, two this hour
    expect(v.series[1].values.slice(-2)).toEqual([20, 10]);
    const bn = await built((await save({ title: 'Banners', table: 'banners', colums: 'views,clicks,ctr', count_day: 7 })).Id);
    expect(bn.step).toBe('day');
    expect(bn.notes.join(' ')).toMatch(/kept per day/);
    expect(bn.series[0].values.slice(-3)).toEqual([100, 0, 300]);
    expect(bn.series[2].values[6]).toBeCloseTo(1);
    const w = await built((await save({ title: 'Weeks', quality: 3, count_day: 30, colums: 'shows' })).Id);
    expect(w.step).toBe('week');
    expect(new Date(w.from).getUTCDay()).toBe(1); // weeks start on Monday
    expect(sum(w.series[0].values)).toBe(220);
  });
});

describe('type -1: Yandex Metrika', () => {
  test('days through /stat/v1/data, hours and weeks through /stat/v1/data/bytime; the token only in the OAuth header; a second draw is a cache hit', async () => {
    metrika.reset();
    const r = await save({ title: 'Visits', type: -1, metrika_ids: '12345', colums: 'ym:s:visits,ym:s:pageviews', quality: 1, count_day: 7, metrika_match_url: "/books/it's" });
    const b = await built(r.Id);
    expect(b).toMatchObject({ configured: true, stale: false, cached: false, step: 'day' });
    expect(b.series[0].values).toEqual(new Array(7).fill(240));
    expect(b.series[1].values).toEqual(new Array(7).fill(720));
    expect(b.total).toBe(1680);
    const [req] = metrika.to(METRIKA_DATA);
    expect(req.headers.authorization).toBe(`OAuth ${METRIKA_TOKEN}`);
    expect(Object.fromEntries(req.query)).toMatchObject({ ids: '12345', metrics: 'ym:s:visits,ym:s:pageviews', dimensions: 'ym:s:date', date1: day(b.from), date2: day(b.to - 1), filters: "ym:s:startURL=@'/books/it\\'s'" });
    expect(req.url).not.toContain(METRIKA_TOKEN);
    const again = await built(r.Id);
    expect(again.cached).toBe(true);
    expect(metrika.requests).toHaveLength(1);

    const h = await built((await save({ title: 'Visits by hour', type: -1, metrika_ids: '12345', colums: 'ym:s:visits' })).Id);
    expect(h.step).toBe('hour');
    expect(h.series[0].values).toEqual(new Array(24).fill(10));
    expect(metrika.to(METRIKA_BYTIME)[0].query.get('group')).toBe('hour');

    const w = await built((await save({ title: 'Visits by week', type: -1, metrika_ids: '12345', colums: 'ym:s:visits', quality: 3, count_day: 30, compare_offset: 28 })).Id);
    expect(w.step).toBe('week');
    expect(w.series[0].values.every((v) => v === 1680)).toBe(true);
    expect(w.series[1].compare).toBe(true);
    expect(w.marge).toBe(0);
    expect(metrika.to(METRIKA_BYTIME).slice(1).map((x) => x.query.get('group'))).toEqual(['week', 'week']);
  }, T);

  test('a 429 and a 5xx are tried again; 401 is not; a malformed answer is a clear error', async () => {
    const fresh = async (title: string) => (await save({ title, type: -1, metrika_ids: '777', colums: 'ym:s:users', quality: 1, count_day: 7 })).Id;
    metrika.reset();
    metrika.script(METRIKA_DATA, { status: 429, retryAfter: 0, body: { errors: [{ error_type: 'quota_requests_by_ip', message: 'Quota exceeded' }], code: 429 } });
    const a = await built(await fresh('m429'));
    expect(a.series[0].values[0]).toBe(168);
    expect(metrika.to(METRIKA_DATA)).toHaveLength(2);

    const id5 = await fresh('m503');
    await rest(content, 'POST', '/report/clear_stats', { clearId: id5 }); // its key is the same as m429's: forget it
    metrika.reset();
    metrika.script(METRIKA_DATA, { status: 503, body: 'busy' });
    expect((await built(id5)).series[0].values[0]).toBe(168);
    expect(metrika.to(METRIKA_DATA)).toHaveLength(2);

    const bad = (await save({ title: 'm401', type: -1, metrika_ids: '401', colums: 'ym:s:users', quality: 1, count_day: 7 })).Id;
    metrika.reset();
    metrika.script(METRIKA_DATA, { status: 401, body: { errors: [{ error_type: 'invalid_token', message: 'Invalid oauth_token' }], code: 401, message: 'Invalid oauth_token' } });
    const e401 = await build(bad);
    expect(e401.env).toMatchObject({ status: 'http', code: 502 });
    expect((e401.env as any).message).toBe('Yandex Metrika answered 401 to /stat/v1/data: invalid_token: Invalid oauth_token');
    expect(metrika.requests).toHaveLength(1);

    const mal = (await save({ title: 'malformed', type: -1, metrika_ids: '500', colums: 'ym:s:users', quality: 1, count_day: 7 })).Id;
    metrika.reset();
    metrika.script(METRIKA_DATA, { status: 200, body: { data: [{ dimensions: 'x', metrics: [1] }] } });
    const em = await build(mal);
    expect(em.env).toMatchObject({ status: 'http', code: 502 });
    expect((em.env as any).message).toMatch(/^Yandex Metrika: unexpected answer \(data\.0\.dimensions: /);
  }, T);

  test('a failure after the cache expired shows the last good answer, stale with its time and the error', async () => {
    const id = (await save({ title: 'stale', type: -1, metrika_ids: '999', colums: 'ym:s:visits', quality: 1, count_day: 7 })).Id;
    const good = await built(id);
    await db().query("UPDATE outside_cache SET expires_at = ? WHERE service = 'metrika'", [Date.now() - 1]);
    metrika.reset();
    metrika.script(METRIKA_DATA, { status: 500, body: 'down' }, { status: 500, body: 'down' }, { status: 500, body: 'down' });
    const s = await built(id);
    expect(s.stale).toBe(true);
    expect(s.error).toBe('Yandex Metrika answered 500 to /stat/v1/data: down');
    expect(s.fetched).toBeTruthy();
    expect(s.series[0].values).toEqual(good.series[0].values);
    expect(metrika.requests).toHaveLength(3);
  }, T);
});

describe('partner totals: yandex.getTotalRsy', () => {
  const d2 = day(Date.now());
  const d1 = day(Date.now() - 4 * DAY);
  const oracle = (a: string, b: string) => {
    let s = 0;
    for (let x = Date.parse(a); x <= Date.parse(b); x += DAY) s += rsyaValue(day(x));
    return Math.round(s * 100) / 100;
  };

  test('answers the sum of partner_wo_nds for role 1; refused for role 10 and 100; the request\'s shape; a cache hit', async () => {
    rsya.reset();
    const r = await t.ok<RsyaTotals>(admin, 'yandex.getTotalRsy', { date1: d1, date2: d2 });
    answers.push(JSON.stringify(r));
    expect(r.total).toBe(oracle(d1, d2));
    expect(r.list).toHaveLength(5);
    expect(r.points[0]).toEqual({ date: d1, value: rsyaValue(d1) });
    expect(r).toMatchObject({ configured: true, stale: false, cached: false, date1: d1, date2: d2 });
    const [req] = rsya.to(RSYA_ROUTE);
    expect(req.headers.authorization).toBe(`OAuth ${RSYA_TOKEN}`);
    expect(req.query.getAll('period')).toEqual([d1, d2]);
    expect(Object.fromEntries([...req.query].filter(([k]) => k !== 'period'))).toEqual({ lang: 'ru', field: 'partner_wo_nds', dimension_field: 'date|day' });
    for (const h of [content, user]) {
      const x = await t.rpc(h, 'yandex.getTotalRsy', { date1: d1, date2: d2 });
      expect(x.status).toBe(403);
      expect(x.env).toMatchObject({ code: 403 });
    }
    expect((await t.ok<RsyaTotals>(admin, 'yandex.getTotalRsy', { date1: d1, date2: d2 })).cached).toBe(true);
    expect(rsya.requests).toHaveLength(1);
    const badRange = await t.rpc(admin, 'yandex.getTotalRsy', { date1: d2, date2: d1 });
    expect(badRange.env).toMatchObject({ status: 'rules', message: 'date2: date2 must not be before date1' });
    expect((await t.rpc(admin, 'yandex.getTotalRsy', { date1: '2026-02-30', date2: d2 })).env).toMatchObject({ status: 'rules' });
  });

  test('429 and 5xx tried again, a malformed answer and an errors body are clear errors, a later failure shows stale data', async () => {
    const range = (back: number) => ({ date1: day(Date.now() - back * DAY), date2: d2 });
    rsya.reset();
    rsya.script(RSYA_ROUTE, { status: 429, retryAfter: 0, body: { errors: [{ id: 'TOO_MANY', message: 'slow down' }] } }, { status: 502, body: 'bad gateway' });
    expect((await t.ok<RsyaTotals>(admin, 'yandex.getTotalRsy', range(10))).total).toBe(oracle(range(10).date1, d2));
    expect(rsya.requests).toHaveLength(3);

    rsya.reset();
    rsya.script(RSYA_ROUTE, { status: 200, body: { result: 'ok', data: { points: [{ dimensions: { date: ['x'] }, measures: [] }] } } });
    const m = await t.rpc(admin, 'yandex.getTotalRsy', range(11));
    expect(m.env).toMatchObject({ status: 'http', code: 502 });
    expect((m.env as any).message).toMatch(/^Yandex partner statistics: unexpected answer \(data\.points\.0\.dimensions\.date\.0: must be a date\)/);

    rsya.script(RSYA_ROUTE, { status: 200, body: { result: 'error', errors: [{ id: 'INVALID_PERIOD', message: 'Period is too long' }] } });
    const e = await t.rpc(admin, 'yandex.getTotalRsy', range(12));
    expect((e.env as any).message).toBe('Yandex partner statistics answered 200: INVALID_PERIOD Period is too long');

    rsya.reset();
    rsya.script(RSYA_ROUTE, { status: 401, body: { errors: [{ id: 'UNAUTHORIZED', message: 'Invalid OAuth token' }] } });
    expect((await t.rpc(admin, 'yandex.getTotalRsy', range(13))).env).toMatchObject({ status: 'http', message: 'Yandex partner statistics answered 401: UNAUTHORIZED Invalid OAuth token' });
    expect(rsya.requests).toHaveLength(1);

    await db().query("UPDATE outside_cache SET expires_at = ? WHERE service = 'rsya'", [Date.now() - 1]);
    rsya.reset();
    rsya.script(RSYA_ROUTE, { status: 500, body: 'x' }, { status: 500, body: 'x' }, { status: 500, body: 'x' });
    const s = await t.ok<RsyaTotals>(admin, 'yandex.getTotalRsy', range(10));
    expect(s).toMatchObject({ stale: true, cached: true, error: 'Yandex partner statistics answered 500: x', total: oracle(range(10).date1, d2) });
  }, T);
});

describe('without tokens and secrets', () => {
  test('{configured: false} without METRIKA_TOKEN and RSYA_TOKEN', async () => {
    const bare = await startApp({ CRON_ENABLED: '0' });
    try {
      const h = (await bare.session(1)).hash;
      expect(await bare.ok(h, 'yandex.getTotalRsy', { date1: '2026-01-01', date2: '2026-01-02' })).toEqual({ configured: false });
      const s = await bare.rest<any>(h, 'POST', '/report/save', { title: 'M', type: -1, metrika_ids: '1', colums: 'ym:s:visits' });
      const b = await bare.ok<ReportBuild>(h, 'report.builItemsChart.get', { Id: s.body.result.Id });
      expect(b).toMatchObject({ configured: false, series: [], error: 'Yandex Metrika is not configured (METRIKA_TOKEN)' });
      expect((await bare.rest<any>(h, 'GET', '/report/get_type_metrics')).body.result.metrika.configured).toBe(false);
    } finally {
      await bare.close();
    }
  }, T);

  test('no token in any answer, audit row, cache row or log line', async () => {
    for (const tok of [METRIKA_TOKEN, RSYA_TOKEN]) {
      expect(answers.join('\n')).not.toContain(tok);
      expect(logLines.join('\n')).not.toContain(tok);
      for (const table of ['audit_log', 'outside_cache', 'report_charts']) expect(JSON.stringify(await db().query(`SELECT * FROM ${table}`))).not.toContain(tok);
      const services = await t.ok(admin, 'outside.getServices');
      expect(JSON.stringify(services)).not.toContain(tok);
    }
    expect(logLines.some((l) => l.includes('metrika'))).toBe(true);
  });
});
