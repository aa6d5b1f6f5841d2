/**
 * The Yandex partner (ad network) statistics API on loopback (EXTERNAL-APIS.md "Yandex Partner (ad
 * network) statistics API"), over test/helpers/fake-http.ts:
 * `GET /api/statistics2/get.json?lang=ru&period=D1&period=D2&field=partner_wo_nds&dimension_field=date|day`
 * with `Authorization: OAuth <token>` -> `{result: 'ok', data: {points: [{dimensions: {date: [d]},
 * measures: [{partner_wo_nds}]}], periods: [[D1, D2]], totals: {2: [{partner_wo_nds}]}}}`; a bad token
 * answers 401 `{errors: [{id: 'UNAUTHORIZED', message}]}`, a missing parameter 400 `{errors: [...]}`.
 *
 * partner_wo_nds of a day is `rsyaValue(date)` = 100 + the day of month + 0.25 (tests compute the sums).
 */
import { startFakeHttp, type FakeHttp, type FakeRequest, type FakeReply } from '../fake-http.js';

export const RSYA_ROUTE = 'GET /api/statistics2/get.json';
export const RSYA_TOKEN = 'rsya-oauth-token-9e2d';
const DAY = 86_400_000;

export const rsyaValue = (date: string) => 100 + Number(date.slice(8, 10)) + 0.25;

export function rsyaReply(req: FakeRequest): FakeReply {
  if (req.headers.authorization !== `OAuth ${RSYA_TOKEN}`) return { status: 401, body: { errors: [{ id: 'UNAUTHORIZED', message: 'Invalid OAuth token' }] } };
  const periods = req.query.getAll('period');
  if (req.query.get('lang') !== 'ru' || periods.length !== 2 || req.query.get('field') !== 'partner_wo_nds' || req.query.get('dimension_field') !== 'date|day') {
    return { status: 400, body: { errors: [{ id: 'BAD_REQUEST', message: 'Bad parameters' }] } };
  }
  const points = [];
  for (let t = Date.parse(`${periods[0]}T00:00:00Z`); t <= Date.parse(`${periods[1]}T00:00:00Z`); t += DAY) {
    const date = new Date(t).toISOString().slice(0, 10);
    points.push({ dimensions: { date: [date] }, measures: [{ partner_wo_nds: rsyaValue(date) }] });
  }
  const sum = points.reduce((s, p) => s + p.measures[0].partner_wo_nds, 0);
  return { body: { result: 'ok', data: { points, periods: [[periods[0], periods[1]]], totals: { 2: [{ partner_wo_nds: sum }] }, currencies: [{ id: 2, code: 'RUB' }] } } };
}

export async function startFakeRsya(): Promise<FakeHttp> {
  return startFakeHttp({ [RSYA_ROUTE]: rsyaReply });
}
