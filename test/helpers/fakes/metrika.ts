/**
 * Yandex Metrika's Reporting API on loopback (EXTERNAL-APIS.md "Yandex Metrika Reporting API"; the
 * Metrika API documentation, stat/openapi "data" and "bytime"), over test/helpers/fake-http.ts:
 *
 * - `GET /stat/v1/data?ids=&metrics=a,b&dimensions=ym:s:date&date1=&date2=` -> `{query, data: [{dimensions:
 *   [{name: 'YYYY-MM-DD'}], metrics: [n, ...]}], total_rows, sampled, totals: [n, ...]}`;
 * - `GET /stat/v1/data/bytime?...&group=hour|day|week` -> `{query, data: [{dimensions: [], metrics: [[n per
 *   interval], ...]}], time_intervals: [[from, to], ...], totals: [[...]]}`;
 * - `Authorization: OAuth <token>` required, else 403 `{errors: [{error_type: 'invalid_token', message}], code, message}`.
 *
 * Values are `PER_HOUR[metric] × hours in the interval` (a day of visits is 240), so tests know every figure.
 */
import { startFakeHttp, type FakeHttp, type FakeRequest, type FakeReply } from '../fake-http.js';

export const METRIKA_DATA = 'GET /stat/v1/data';
export const METRIKA_BYTIME = 'GET /stat/v1/data/bytime';
export const METRIKA_TOKEN = 'metrika-oauth-token-5c1f';
export const PER_HOUR: Record<string, number> = { 'ym:s:visits': 10, 'ym:s:pageviews': 30, 'ym:s:users': 7 };

const DAY = 86_400_000;
const HOUR = 3_600_000;
const fmt = (t: number, withTime: boolean) => {
  const iso = new Date(t).toISOString();
  return withTime ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(0, 10);
};

function guard(req: FakeRequest): FakeReply | null {
  if (req.headers.authorization !== `OAuth ${METRIKA_TOKEN}`) {
    return { status: 403, body: { errors: [{ error_type: 'invalid_token', message: 'Invalid oauth_token' }], code: 403, message: 'Invalid oauth_token' } };
  }
  for (const k of ['ids', 'metrics', 'date1', 'date2']) {
    if (!req.query.get(k)) return { status: 400, body: { errors: [{ error_type: 'invalid_parameter', message: `Required parameter ${k}` }], code: 400, message: `Required parameter ${k}` } };
  }
  return null;
}

const metricsOf = (req: FakeRequest) => req.query.get('metrics')!.split(',');
const range = (req: FakeRequest) => [Date.parse(`${req.query.get('date1')}T00:00:00Z`), Date.parse(`${req.query.get('date2')}T00:00:00Z`) + DAY] as const;

export function dataReply(req: FakeRequest): FakeReply {
  const bad = guard(req);
  if (bad) return bad;
  const metrics = metricsOf(req);
  const [from, to] = range(req);
  const rows = [];
  for (let t = from; t < to; t += DAY) rows.push({ dimensions: [{ name: fmt(t, false) }], metrics: metrics.map((m) => (PER_HOUR[m] ?? 1) * 24) });
  return {
    body: {
      query: { ids: [Number(req.query.get('ids'))], metrics, dimensions: [req.query.get('dimensions')], date1: req.query.get('date1'), date2: req.query.get('date2') },
      data: rows, total_rows: rows.length, sampled: false, sample_share: 1,
      totals: metrics.map((m) => (PER_HOUR[m] ?? 1) * 24 * rows.length), min: [], max: [], data_lag: 0,
    },
  };
}

export function byTimeReply(req: FakeRequest): FakeReply {
  const bad = guard(req);
  if (bad) return bad;
  const metrics = metricsOf(req);
  const [from, to] = range(req);
  const group = req.query.get('group') ?? 'day';
  const starts: number[] = [];
  if (group === 'hour') for (let t = from; t < to; t += HOUR) starts.push(t);
  else if (group === 'week') {
    starts.push(from);
    // the next Monday on
    let t = from + DAY;
    while (new Date(t).getUTCDay() !== 1) t += DAY;
    for (; t < to; t += 7 * DAY) starts.push(t);
  } else for (let t = from; t < to; t += DAY) starts.push(t);
  const intervals = starts.map((s, i) => [s, i + 1 < starts.length ? starts[i + 1] : to]);
  const points = (m: string) => intervals.map(([a, b]) => ((PER_HOUR[m] ?? 1) * (b - a)) / HOUR);
  return {
    body: {
      query: { ids: [Number(req.query.get('ids'))], metrics, group, date1: req.query.get('date1'), date2: req.query.get('date2') },
      data: [{ dimensions: [], metrics: metrics.map(points) }],
      time_intervals: intervals.map(([a, b]) => [fmt(a, true), fmt(b - 1000, true)]),
      totals: metrics.map(points), total_rows: 1, sampled: false,
    },
  };
}

export async function startFakeMetrika(): Promise<FakeHttp> {
  return startFakeHttp({ [METRIKA_DATA]: dataReply, [METRIKA_BYTIME]: byTimeReply });
}
