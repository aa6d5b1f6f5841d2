/**
 * Marketplace pieces without the app (docs/wb.md): the wire decoders of the seller APIs' answers
 * (rubles to whole kopecks, times to UTC days, the funnel's stocks object, a malformed row refused),
 * the input schemas' range checks, the column sort values, and the price forecast: the daily series
 * (gaps carried forward), the held-out split, and a network trained in a worker thread that beats
 * "tomorrow = today" on a weekly price pattern it has to learn.
 */
import { WbItemChartInput, WbRangeInput, WbSyncInput, wbSortValue, type WbReportItem } from '../../src/contracts/wb.js';
import { CardsWire, FinanceRowWire, FinanceWire, FunnelWire, kop, UpdWire } from '../../src/core/outside/wb.wire.js';
import { BRAIN_MIN_HELD_OUT, continuous, enoughHistory, runPriceBrain, split } from '../../src/modules/wb/brain/price-brain.js';
import { splitRange } from '../../src/modules/wb/report/wb-report.service.js';
import { financeRow } from '../../src/modules/wb/sync/wb-sync.service.js';

describe('wire decoders', () => {
  test('rubles become whole kopecks (no float drift), absent and null are 0', () => {
    expect(kop.parse(0.1 + 0.2)).toBe(30);
    expect(kop.parse(1234.565)).toBe(123457);
    expect(kop.parse(-45.5)).toBe(-4550);
    expect(kop.parse('12.34')).toBe(1234);
    expect(kop.parse(null)).toBe(0);
    expect(kop.parse(undefined)).toBe(0);
    expect(kop.safeParse('12,34').success).toBe(false);
  });

  test('a finance row: days from the service\'s times (no zone: UTC), returns and storage rows, the day it counts on', () => {
    const sale = FinanceRowWire.parse({ rrd_id: 5, nm_id: 300001, doc_type_name: 'Продажа', quantity: 2, retail_price: 600, retail_amount: 1020.5, ppvz_for_pay: 816.4, delivery_rub: 0, sale_dt: '2025-03-04T23:30:00', order_dt: '2025-03-01T10:00:00+03:00', rr_dt: '2025-03-05', extra_field: 'kept unseen' });
    expect(sale).toMatchObject({ rrd_id: 5, quantity: 2, retail_amount: 102050, ppvz_for_pay: 81640, sale_dt: '2025-03-04', order_dt: '2025-03-01', rr_dt: '2025-03-05', storage_fee: 0, penalty: 0 });
    expect(financeRow(sale, '2025-01-01')).toMatchObject({ day: '2025-03-04', rr_day: '2025-03-05', order_day: '2025-03-01' });
    const storage = FinanceRowWire.parse({ rrd_id: 6, nm_id: 300001, supplier_oper_name: 'Хранение', storage_fee: 3.17, sale_dt: '', order_dt: '', rr_dt: '2025-03-05T00:00:00Z' });
    expect(financeRow(storage, '2025-01-01')).toMatchObject({ day: '2025-03-05', sale_day: null, order_day: null, storage_fee: 317 });
    expect(FinanceWire.parse(null)).toEqual([]);
    expect(FinanceWire.safeParse([{ nm_id: 1 }]).success).toBe(false); // no rrd_id: not a row
    expect(FinanceRowWire.safeParse({ rrd_id: 1, sale_dt: 'yesterday' }).success).toBe(false);
  });

  test('cards, funnel and ad spend', () => {
    const page = CardsWire.parse({ cards: [{ nmID: 1, title: 'A', photos: [{ big: 'https://x/1.webp' }] }], cursor: { updatedAt: '2025-01-01T00:00:00Z', nmID: 1, total: 1 } });
    expect(page.cards[0]).toMatchObject({ nmID: 1, title: 'A', vendorCode: '', brand: '' });
    expect(CardsWire.safeParse({ cards: [], cursor: {} }).success).toBe(false);
    const f = FunnelWire.parse({ data: { products: [{ product: { nmId: 7, title: 'T', stocks: { wb: 10, mp: 2, balanceSum: 5000 } }, statistic: { selected: { openCount: 5, cartCount: 2, orderCount: 1, orderSum: 99.9, buyoutCount: 1, buyoutSum: 99.9, cancelCount: 0, avgOrdersCountPerDay: 0.03 } } }] } });
    expect(f.data.products[0].product.stocks).toBe(12);
    expect(f.data.products[0].statistic.selected).toMatchObject({ openCount: 5, orderSum: 9990, buyoutSum: 9990, avgOrdersCountPerDay: 0.03 });
    expect(UpdWire.parse([{ updNum: 0, updTime: '2025-03-01T03:00:00+03:00', updSum: 101.5, advertId: 7001, campName: 'x', advertType: 8, advertStatus: 9 }])[0]).toMatchObject({ updSum: 10150, advertId: 7001 });
  });
});

describe('input schemas', () => {
  test('days, order and length of a range', () => {
    expect(WbRangeInput.safeParse({ dateFrom: '2025-01-01', dateTo: '2025-01-31' }).success).toBe(true);
    const rev = WbRangeInput.safeParse({ dateFrom: '2025-02-01', dateTo: '2025-01-31' });
    expect(rev.success ? null : rev.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['dateTo', 'dateTo must not be before dateFrom']]);
    const long = WbSyncInput.safeParse({ dateFrom: '2024-01-01', dateTo: '2025-01-31' });
    expect(long.success ? null : long.error.issues[0].message).toBe('the range spans at most 366 days');
    expect(WbSyncInput.safeParse({ dateFrom: '2024-01-01', dateTo: '2024-12-31', force: '1' })).toMatchObject({ success: true, data: { force: 1 } });
    expect(WbItemChartInput.safeParse({ nmID: '0', dateFrom: '2025-01-01', dateTo: '2025-01-01' }).success).toBe(false);
    expect(WbRangeInput.parse({ dateFrom: '2025-01-01', dateTo: '2025-01-02', extra: 1 })).toEqual({ dateFrom: '2025-01-01', dateTo: '2025-01-02' }); // unknown keys dropped, as everywhere
  });

  test('sort values: funnel columns without a funnel sort below every real value', () => {
    const row = { nmID: 5, ordersCount: null, sell: { count: 3, retail_amount: 10, retail_price: 1 }, return: { count: 0, retail_amount: 0, retail_price: 0 }, delivery: { amount: 2, count_delivury: 4 }, ad: 1.5 } as unknown as WbReportItem;
    expect(wbSortValue(row, 'orders')).toBe(-1);
    expect(wbSortValue(row, 'sales')).toBe(3);
    expect(wbSortValue(row, 'ad_spend')).toBe(1.5);
    expect(wbSortValue(row, 'logistics_count')).toBe(4);
  });
});

describe('a range read as whole months and edge days', () => {
  test('months in the middle, days at the edges; a range inside a month is days only', () => {
    expect(splitRange('2026-09-28', '2026-11-26')).toEqual({ months: ['2026-10', '2026-10'], days: [['2026-09-28', '2026-09-30'], ['2026-11-01', '2026-11-26']] });
    expect(splitRange('2026-01-01', '2026-12-31')).toEqual({ months: ['2026-01', '2026-12'], days: [] });
    expect(splitRange('2024-02-01', '2024-02-29')).toEqual({ months: ['2024-02', '2024-02'], days: [] });
    expect(splitRange('2026-11-20', '2026-11-26')).toEqual({ months: null, days: [['2026-11-20', '2026-11-26']] });
    expect(splitRange('2026-01-31', '2026-03-01')).toEqual({ months: ['2026-02', '2026-02'], days: [['2026-01-31', '2026-01-31'], ['2026-03-01', '2026-03-01']] });
    expect(splitRange('2026-01-02', '2026-02-27')).toEqual({ months: null, days: [['2026-01-02', '2026-02-27']] });
  });
});

describe('the price forecast', () => {
  const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);

  test('the series: one value a day, a day without a sale carries the last price', () => {
    const s = continuous([{ day: day(3), price: 12, paid: 10 }, { day: day(0), price: 11, paid: 9 }, { day: day(1), price: null, paid: null }]);
    expect(s.days).toEqual([day(0), day(1), day(2), day(3)]);
    expect(s.values).toEqual([9, 9, 9, 10]);
    expect(s.paid).toEqual([9, null, null, 10]);
    expect(continuous([]).values).toEqual([]);
  });

  test('the held-out split: at least 7 samples, 20 % of a long series; too short is not enough', () => {
    expect(split(40, 12)).toEqual({ samples: 28, heldOut: BRAIN_MIN_HELD_OUT });
    expect(split(112, 12)).toEqual({ samples: 100, heldOut: 20 });
    expect(enoughHistory(12 + 7 + 14, 12)).toBe(true);
    expect(enoughHistory(12 + 7 + 13, 12)).toBe(false);
  });

  test('trained in a worker thread, it learns a weekly pattern better than "tomorrow = today" on held-out days', async () => {
    const week = [500, 520, 540, 560, 540, 520, 500];
    const values = Array.from({ length: 120 }, (_, i) => week[i % 7] + (i % 30) * 0.5);
    const r = await runPriceBrain(values, 12, 7);
    expect(r.samples).toBe(108);
    expect(r.held_out).toBe(22);
    expect(r.predicted.slice(0, 12).every((v) => v === null)).toBe(true);
    expect(r.predicted.slice(12).every((v) => typeof v === 'number')).toBe(true);
    expect(r.forecast).toHaveLength(7);
    expect(r.naive_mae).toBeGreaterThan(15);
    expect(r.mae).toBeLessThan(r.naive_mae);
    expect(r.mape).toBeLessThan(4);
    for (const v of r.forecast) { expect(v).toBeGreaterThan(470); expect(v).toBeLessThan(600); }
  }, 60_000);

  test('too short a history is refused; a cancelled training stops', async () => {
    await expect(runPriceBrain([1, 2, 3], 12, 7)).rejects.toThrow('Not enough price history for a forecast');
    const ac = new AbortController();
    const p = runPriceBrain(Array.from({ length: 200 }, (_, i) => 100 + (i % 7)), 12, 7, { iterations: 1_000_000, errorThresh: 1e-12, signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    await expect(p).rejects.toThrow('Training cancelled');
  }, 60_000);
});
