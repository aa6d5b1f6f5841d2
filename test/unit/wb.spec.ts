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
import Database from 'better-sqlite3';
import { prng } from '../../src/core/prng.js';
import { CUM_SUMS, DAILY_SUMS, monthRunningTotals, rangeSums, rebuildCumulative } from '../../src/modules/wb/sync/wb-cumulative.js';
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

describe('a range read from running totals', () => {
  test("a card's running totals within a month: a row for every day, days without rows carry the total on", () => {
    const s = (v: number) => Float64Array.from(CUM_SUMS, (_, i) => (i === 0 ? v : 0));
    const out = monthRunningTotals('2024-02', [{ nm_id: 7, day: '2024-02-03', sums: s(2) }, { nm_id: 7, day: '2024-02-10', sums: s(5) }, { nm_id: 7, day: '2024-02-10', sums: s(1) }]);
    const list = out.get(7)!;
    expect(list).toHaveLength(29);
    expect([list[0][0], list[1][0], list[2][0], list[8][0], list[9][0], list[28][0]]).toEqual([0, 0, 2, 2, 8, 8]);
  });

  /** Real SQL (SQLite in memory) against the sums added up day by day, over random ranges and after a partial rebuild. */
  test('any range equals the sum of its days, after a full and after a partial rebuild', async () => {
    const db = new Database(':memory:');
    const cols = (extra: string) => `nm_id INTEGER NOT NULL, ${[...DAILY_SUMS, ...(extra ? [extra] : [])].map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(', ')}`;
    db.exec(`CREATE TABLE wb_daily (day TEXT NOT NULL, ${cols('')}, PRIMARY KEY (day, nm_id)) WITHOUT ROWID`);
    db.exec('CREATE TABLE wb_ad_daily (day TEXT NOT NULL, nm_id INTEGER NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (day, nm_id)) WITHOUT ROWID');
    db.exec(`CREATE TABLE wb_cum_day (day TEXT NOT NULL, ${cols('ad')}, PRIMARY KEY (day, nm_id)) WITHOUT ROWID`);
    db.exec(`CREATE TABLE wb_cum_month (month TEXT NOT NULL, ${cols('ad')}, PRIMARY KEY (month, nm_id)) WITHOUT ROWID`);
    const q = async (sql: string, params: unknown[] = []) => {
      const st = db.prepare(sql);
      return st.reader ? st.all(...params) : (st.run(...params), []);
    };
    const r = prng(11);
    const day = (i: number) => new Date(Date.UTC(2024, 10, 15) + i * 86_400_000).toISOString().slice(0, 10);
    const DAYS = 430;
    const fill = (from: number, to: number) => {
      db.prepare('DELETE FROM wb_daily WHERE day >= ? AND day <= ?').run(day(from), day(to));
      db.prepare('DELETE FROM wb_ad_daily WHERE day >= ? AND day <= ?').run(day(from), day(to));
      const ins = db.prepare(`INSERT INTO wb_daily (day, nm_id, ${DAILY_SUMS.join(', ')}) VALUES (?, ?, ${DAILY_SUMS.map(() => '?').join(', ')})`);
      const ad = db.prepare('INSERT INTO wb_ad_daily (day, nm_id, amount) VALUES (?, ?, ?)');
      for (let d = from; d <= to; d++) {
        for (let nm = 1; nm <= 12; nm++) {
          // card 12 starts late, card 11 stops early, months go by with nothing for card 10
          if ((nm === 12 && d < 200) || (nm === 11 && d > 100) || (nm === 10 && d % 90 < 40)) continue;
          if (r() < 0.3) ins.run(day(d), nm, ...DAILY_SUMS.map(() => Math.floor(r() * 1000) - 100));
          if (r() < 0.1) ad.run(day(d), nm, Math.floor(r() * 500));
        }
      }
    };
    const brute = (from: string, to: string) => {
      const out = new Map<number, number[]>();
      for (const row of db.prepare(`SELECT nm_id, ${DAILY_SUMS.join(', ')}, 0 AS ad FROM wb_daily WHERE day >= ? AND day <= ? UNION ALL SELECT nm_id, ${DAILY_SUMS.map(() => '0').join(', ')}, amount FROM wb_ad_daily WHERE day >= ? AND day <= ?`).all(from, to, from, to) as Array<Record<string, number>>) {
        const s = out.get(row.nm_id) ?? CUM_SUMS.map(() => 0);
        CUM_SUMS.forEach((k, i) => { s[i] += row[k]; });
        out.set(row.nm_id, s);
      }
      for (const [nm, s] of out) if (s.every((v) => v === 0)) out.delete(nm);
      return out;
    };
    const check = async (n: number) => {
      for (let i = 0; i < n; i++) {
        // ranges over the data's edges too: before the first day and after the last
        const a = Math.floor(r() * (DAYS + 60)) - 30;
        const b = a + Math.floor(r() * (DAYS + 60 - a));
        const got = await rangeSums(q, day(a), day(b));
        expect(new Map([...got].map(([nm, s]) => [nm, [...s]]))).toEqual(brute(day(a), day(b)));
      }
    };
    fill(0, DAYS - 1);
    await rebuildCumulative(q, day(0).slice(0, 7), day(DAYS - 1).slice(0, 7));
    await check(60);
    // a later sync rewrites two months in the middle: only they and the month totals after them are rebuilt
    fill(150, 200);
    await rebuildCumulative(q, day(150).slice(0, 7), day(200).slice(0, 7));
    await check(60);
    db.close();
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
