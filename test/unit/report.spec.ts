/**
 * Report dashboards' pure rules (docs/report.md): the hours/days switch of 001 §4, the reference bounds
 * of 001 §9 (connections 97-366) and REPORT_METRIC_BOUNDS, the captions (type_caption, val_round), the
 * time grid (hours, days, weeks from Monday; offset; the compare period), the number row, the Metrika
 * and partner-statistics answer decoders, and the input schemas.
 */
import { MetrikaByTimeWire, MetrikaDataWire, seriesOfByTime, seriesOfData } from '../../src/core/outside/metrika.wire.js';
import { pointsOf, RsyaStatWire } from '../../src/core/outside/rsya.wire.js';
import {
  boundsFor, captionValue, detailAfterCountDay, parseBounds, REPORT_DEFAULTS, ReportGetArgs, ReportSaveArgs, RsyaArgs, seriesOf, toneOf,
} from '../../src/contracts/report.js';
import { alignDown, cellsOf, DAY, gridOf, HOUR, isRate, place, totalOf, WEEK } from '../../src/modules/report/report-grid.js';
import { metrikaFilter } from '../../src/modules/report/report-build.service.js';

describe('count_day switches the detail (001 §4)', () => {
  test.each([
    [1, 7, 0, 1], // 1 -> more: hours -> days
    [1, 360, 0, 1],
    [7, 1, 1, 0], // back to 1 from days: hours
    [30, 1, 3, 0], // from weeks too (one day by weeks is one point)
    [7, 30, 1, 1], // between larger values: kept
    [30, 90, 3, 3],
    [1, 7, 3, 3], // not hours: kept
    [1, 1, 0, 0],
  ])('%i -> %i with quality %i gives %i', (prev, next, q, want) => {
    expect(detailAfterCountDay(prev, next, q)).toBe(want);
  });
});

describe('reference bounds colour the cells (001 §9)', () => {
  test('connections 97-366 by default; REPORT_METRIC_BOUNDS adds and overrides; inside is in, outside out', () => {
    const b = parseBounds('');
    expect(b).toEqual({ connections: [97, 366] });
    expect(toneOf(97, boundsFor(b, 'connections'))).toBe('in');
    expect(toneOf(366, boundsFor(b, 'connections'))).toBe('in');
    expect(toneOf(96.9, boundsFor(b, 'connections'))).toBe('out');
    expect(toneOf(367, boundsFor(b, 'connections'))).toBe('out');
    expect(toneOf(5, boundsFor(b, 'shows'))).toBeNull();
    const c = parseBounds('visits:100-50, ym:s:bounceRate:0-35.5,connections:1-2');
    expect(c).toEqual({ connections: [1, 2], visits: [50, 100], 'ym:s:bounceRate': [0, 35.5] });
    expect(boundsFor(c, 'ym:s:visits')).toEqual([50, 100]); // by the short name
    expect(boundsFor(c, 'ym:s:bounceRate')).toEqual([0, 35.5]);
    expect(boundsFor(c, 'x', 'Connections')).toEqual([1, 2]); // by the caption
    expect(toneOf(null, [1, 2])).toBeNull();
  });
});

describe('captions', () => {
  test('type_caption 0-5 with val_round', () => {
    expect(captionValue(1234.567, 0, 0)).toBe('1,235');
    expect(captionValue(1234.567, 0, 2)).toBe('1,234.57');
    expect(captionValue(12345, 1, 1)).toBe('12.3k');
    expect(captionValue(12.345, 2, 1)).toBe('12.3%');
    expect(captionValue(99.5, 3, 0)).toBe('100 ₽');
    expect(captionValue(3725, 4, 0)).toBe('1:02:05');
    expect(captionValue(65, 4, 0)).toBe('1:05');
    expect(captionValue(2048, 5, 0)).toBe('2 kb');
    expect(captionValue(3 * 1024 * 1024, 5, 1)).toBe('3 mb');
    expect(captionValue(null, 0, 0)).toBe('–');
  });
});

describe('the time grid', () => {
  const now = Date.UTC(2026, 10, 26, 13, 20); // Thursday 2026-11-26 13:20 UTC

  test('hours: 24 periods ending with the current hour', () => {
    const g = gridOf({ count_day: 1, step: 'hour', offset: 0, now });
    expect(g.n).toBe(24);
    expect(g.to).toBe(Date.UTC(2026, 10, 26, 14));
    expect(g.from).toBe(Date.UTC(2026, 10, 25, 14));
  });

  test('days with an offset, and the compare period shifted back', () => {
    const g = gridOf({ count_day: 7, step: 'day', offset: 2, now });
    expect([g.from, g.to, g.n]).toEqual([Date.UTC(2026, 10, 18), Date.UTC(2026, 10, 25), 7]);
    const c = gridOf({ count_day: 7, step: 'day', offset: 2, now, shiftDays: 7 });
    expect([c.from, c.to, c.n]).toEqual([Date.UTC(2026, 10, 11), Date.UTC(2026, 10, 18), 7]);
  });

  test('weeks start on Monday', () => {
    expect(new Date(alignDown(now, 'week')).getUTCDay()).toBe(1);
    expect(alignDown(now, 'week')).toBe(Date.UTC(2026, 10, 23));
    const g = gridOf({ count_day: 30, step: 'week', offset: 0, now });
    expect(g.to).toBe(Date.UTC(2026, 10, 30));
    expect((g.to - g.from) / WEEK).toBe(g.n);
    expect(g.n).toBe(5);
  });

  test('place sums the points of a period and drops those outside', () => {
    const g = gridOf({ count_day: 1, step: 'hour', offset: 0, now });
    const v = place(g, [[g.from, 1], [g.from + 10, 2], [g.to - 1, 5], [g.to, 99], [g.from - 1, 99], [g.from + HOUR, NaN]]);
    expect(v[0]).toBe(3);
    expect(v[23]).toBe(5);
    expect(v.reduce((s, x) => s + x, 0)).toBe(8);
  });

  test('totals: sums, and means of the periods with data for rates', () => {
    expect(isRate('ctr')).toBe(true);
    expect(isRate('ym:s:bounceRate')).toBe(true);
    expect(isRate('ym:s:avgVisitDurationSeconds')).toBe(true);
    expect(isRate('ym:s:visits')).toBe(false);
    expect(totalOf('shows', [1, 2, 3])).toBe(6);
    expect(totalOf('ctr', [0, 2, 4])).toBe(3);
  });

  test('cells: total, avg, the last complete period, the compare total and change, the tone of the average', () => {
    const g = gridOf({ count_day: 1, step: 'hour', offset: 0, now });
    const values = new Array<number>(24).fill(100);
    values[22] = 130;
    values[23] = 7; // the current hour, still filling
    const cells = cellsOf([
      { name: 'Connections', metric: 'connections', start: g.from, step: HOUR, values },
      { name: 'Connections (-1 d)', metric: 'connections', start: g.from, step: HOUR, values: new Array<number>(24).fill(50), compare: true },
    ], parseBounds(''), g, now);
    expect(cells).toHaveLength(1);
    expect(cells[0]).toMatchObject({ total: 2337, last: 130, compare_total: 1200, bounds: [97, 366], tone: 'in' }); // 97.4 an hour
    expect(cells[0].avg).toBeCloseTo(2337 / 24);
    expect(cells[0].change).toBeCloseTo(((2337 - 1200) / 1200) * 100);
  });
});

describe('Yandex Metrika answers', () => {
  test('/stat/v1/data by date and /bytime with time_intervals; nulls are 0; without intervals the grid is assumed', () => {
    const d = MetrikaDataWire.parse({
      query: {}, data: [
        { dimensions: [{ name: '2026-11-21' }], metrics: [20, 1.5] },
        { dimensions: [{ name: '2026-11-20' }], metrics: [10, null] },
      ], totals: [30, 1.5], total_rows: 2, extra: 'ignored',
    });
    expect(seriesOfData(d, ['ym:s:visits', 'ym:s:pageDepth'])).toEqual([
      { metric: 'ym:s:visits', points: [[Date.UTC(2026, 10, 20), 10], [Date.UTC(2026, 10, 21), 20]] },
      { metric: 'ym:s:pageDepth', points: [[Date.UTC(2026, 10, 20), 0], [Date.UTC(2026, 10, 21), 1.5]] },
    ]);
    const b = MetrikaByTimeWire.parse({
      data: [{ dimensions: [{ name: 'a' }], metrics: [[1, 2]] }, { dimensions: [{ name: 'b' }], metrics: [[10, null]] }],
      time_intervals: [['2026-11-20 00:00:00', '2026-11-20 00:59:59'], ['2026-11-20 01:00:00', '2026-11-20 01:59:59']],
    });
    expect(seriesOfByTime(b, ['ym:s:visits'], 0, HOUR)).toEqual([{ metric: 'ym:s:visits', points: [[Date.UTC(2026, 10, 20, 0), 11], [Date.UTC(2026, 10, 20, 1), 2]] }]);
    const noIntervals = MetrikaByTimeWire.parse({ data: [], totals: [[4, 5, 6]] });
    expect(seriesOfByTime(noIntervals, ['ym:s:users'], 1000, DAY)[0].points).toEqual([[1000, 4], [1000 + DAY, 5], [1000 + 2 * DAY, 6]]);
    expect(MetrikaDataWire.safeParse({ data: 'x' }).success).toBe(false);
  });

  test('the URL filter escapes quotes and backslashes', () => {
    expect(metrikaFilter('')).toBe('');
    expect(metrikaFilter("/a'b\\c")).toBe("ym:s:startURL=@'/a\\'b\\\\c'");
  });
});

describe('Yandex partner statistics answers', () => {
  test('points by date (several measures summed, amounts as numbers or strings); a wrong shape is refused', () => {
    const s = RsyaStatWire.parse({
      result: 'ok', data: {
        points: [
          { dimensions: { date: ['2026-11-02'] }, measures: [{ partner_wo_nds: '10.5' }] },
          { dimensions: { date: ['2026-11-01'] }, measures: [{ partner_wo_nds: 1.25 }, { partner_wo_nds: 2 }] },
        ], periods: [['2026-11-01', '2026-11-02']], totals: {},
      },
    });
    expect(pointsOf(s)).toEqual([{ date: '2026-11-01', value: 3.25 }, { date: '2026-11-02', value: 10.5 }]);
    expect(RsyaStatWire.safeParse({ result: 'error', data: { points: [] } }).success).toBe(false);
    expect(RsyaStatWire.safeParse({ result: 'ok', data: { points: [{ dimensions: { date: [] }, measures: [] }] } }).success).toBe(false);
  });
});

describe('input schemas', () => {
  test('save: defaults untouched, ranges of 001 §9 enforced', () => {
    expect(ReportSaveArgs.parse({ title: ' A ' })).toEqual({ title: 'A' });
    expect(ReportSaveArgs.safeParse({ title: 'A', count_day: 2 }).success).toBe(false);
    expect(ReportSaveArgs.safeParse({ title: 'A', quality: 2 }).success).toBe(false);
    expect(ReportSaveArgs.safeParse({ title: 'A', custom: 14, type_caption: 5, tab_number: 5, type: -1 }).success).toBe(true);
    expect(ReportSaveArgs.safeParse({ title: 'A', custom: 15 }).success).toBe(false);
    expect(ReportSaveArgs.safeParse({ title: 'A', colums: 'a b' }).success).toBe(false);
    expect(ReportSaveArgs.safeParse({ title: 'A', colums: Array.from({ length: 21 }, (_, i) => `m${i}`).join(',') }).success).toBe(false);
    expect(ReportGetArgs.parse({})).toEqual({});
    expect(REPORT_DEFAULTS).toMatchObject({ quality: 0, status: 1, count_day: 1, tab_number: 1 });
  });

  test('seriesOf: names give the captions in order, else the source\'s or Metrika\'s', () => {
    expect(seriesOf({ type: 0, table: 'stream', colums: 'shows, clicks', names: 'Показы' })).toEqual([{ metric: 'shows', name: 'Показы' }, { metric: 'clicks', name: 'Clicks' }]);
    expect(seriesOf({ type: -1, table: '', colums: 'ym:s:visits,ym:s:x', names: '' })).toEqual([{ metric: 'ym:s:visits', name: 'Visits' }, { metric: 'ym:s:x', name: 'ym:s:x' }]);
  });

  test('getTotalRsy dates: real days, in order, at most 366 days', () => {
    expect(RsyaArgs.safeParse({ date1: '2026-01-01', date2: '2026-01-31' }).success).toBe(true);
    expect(RsyaArgs.safeParse({ date1: '2026-02-01', date2: '2026-01-31' }).success).toBe(false);
    expect(RsyaArgs.safeParse({ date1: '2026-02-30', date2: '2026-03-01' }).success).toBe(false);
    expect(RsyaArgs.safeParse({ date1: '2024-01-01', date2: '2026-01-01' }).success).toBe(false);
    expect(RsyaArgs.safeParse({ date1: 20260101, date2: '2026-01-02' }).success).toBe(false);
  });
});
