/**
 * Money end to end (issue 21; 001 §2 "Money", §3, §5, §7 money.*, §8, §9; docs/money.md), on SQLite, or
 * MariaDB with TEST_DATABASE_URL: the contract (boxUpdate -> {bid}, setTransaction -> {trid},
 * getTransactions -> {list, count, balance} with "0.30" after 0.10 + 0.20), exact amounts and their
 * refusals, 50 concurrent inserts, edit/clone/delete, paging by p_ and filters, tags (popular, search
 * excluding the entered ones, related), rules on insert, the report against an oracle computed here
 * from the transactions the test wrote, and every derived table against a recomputation from the
 * transaction rows. Roles and CSV: test/api/money-roles.e2e.ts, test/api/money-csv.e2e.ts.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import type { DataSource } from 'typeorm';
import { prng } from '../../src/core/prng.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { pass } from '../helpers/passes.js';
import { checkDerived, type Tx } from '../helpers/money.js';

let t: TestApp;
let admin: string;
let alice: string;
const db = () => t.app.get<DataSource>(getDataSourceToken());

async function call(hash: string, method: string, args: unknown) {
  const r = await t.rpc<any>(hash, method, args);
  return { code: r.env.status === 'ok' ? 200 : (r.env.code ?? 0), env: r.env as any };
}
const ok = <T = any>(hash: string, method: string, args: unknown) => t.ok<T>(hash, method, args);
const box = async (hash: string, title: string) => (await ok(hash, 'money.boxUpdate', { title, description: `${title} box` })).bid as number;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  alice = (await t.session(100, 'alice')).hash;
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`money (${pass})`, () => {
  test('the contract: boxUpdate {title, description} -> {bid}; setTransaction -> {trid}; 0.10 + 0.20 is "0.30" exactly', async () => {
    const bid = await box(alice, 'Wallet');
    expect(bid).toBeGreaterThan(0);
    const a = await ok(alice, 'money.setTransaction', { bid, type: 1, val: 0.1, tags: 'salary', time_set: '2026-01-05', description: 'a' });
    expect(a).toMatchObject({ trid: expect.any(Number), balance: '0.10' });
    const b = await ok(alice, 'money.setTransaction', { bid, type: 1, val: '0.20', tags: 'salary', time_set: '2026-01-05', description: 'b' });
    expect(b.trid).toBeGreaterThan(a.trid);
    const got = await ok(alice, 'money.getTransactions', { bid });
    expect(got).toMatchObject({ count: 2, balance: '0.30', limit: 20, offset: 0 });
    expect(got.list.map((x: any) => x.val)).toEqual(['0.20', '0.10']);
    // ten times 0.10 is exactly 1.00, and an expense of 0.3 leaves 0.00 (binary floats would give 0.9999999999999999 / 5.551115123125783e-17)
    for (let i = 0; i < 8; i++) await ok(alice, 'money.setTransaction', { bid, type: 1, val: 0.1, time_set: '2026-01-06' });
    expect((await ok(alice, 'money.getTransactions', { bid })).balance).toBe('1.10');
    await ok(alice, 'money.setTransaction', { bid, type: 0, val: 1.1, time_set: '2026-01-07' });
    expect((await ok(alice, 'money.getTransactions', { bid })).balance).toBe('0.00');
    expect((await ok(alice, 'money.getBox', { bid })).balance).toBe('0.00');
    await checkDerived(db(), bid);
  });

  test('input rules: type required (Не указан тип записи), amounts exact with at most 2 decimals, days yyyy-MM-dd, description required', async () => {
    const bid = await box(alice, 'Rules');
    const base = { bid, type: 0, val: '12.50', time_set: '2026-02-01' };
    const refused = async (args: Record<string, unknown>, field: string, msg: RegExp | string) => {
      const r = await call(alice, 'money.setTransaction', args);
      expect(r.code).toBe(422);
      expect(r.env.fields?.[field]).toEqual(typeof msg === 'string' ? msg : expect.stringMatching(msg));
    };
    const { type: _t, ...noType } = base;
    await refused(noType, 'type', 'Не указан тип записи');
    await refused({ ...base, type: '' }, 'type', 'Не указан тип записи');
    await refused({ ...base, type: null }, 'type', 'Не указан тип записи');
    await refused({ ...base, type: 2 }, 'type', /0 \(expense\) or 1 \(income\)/);
    await refused({ ...base, val: '0.105' }, 'val', 'val has more than 2 decimal places');
    await refused({ ...base, val: 0.1 + 0.2 }, 'val', 'val has more than 2 decimal places');
    await refused({ ...base, val: 'NaN' }, 'val', /amount like 12.50/);
    await refused({ ...base, val: '1e3' }, 'val', /amount like 12.50/);
    await refused({ ...base, val: '' }, 'val', 'val is required');
    await refused({ ...base, val: 0 }, 'val', 'val must be more than 0');
    await refused({ ...base, val: '-5' }, 'val', /amount like 12.50/);
    await refused({ ...base, val: '1000000000000.00' }, 'val', /at most 999999999999.99/);
    await refused({ ...base, val: true }, 'val', /number or a decimal string/);
    await refused({ ...base, time_set: '2026-02-30' }, 'time_set', /yyyy-MM-dd/);
    await refused({ ...base, time_set: '01.02.2026' }, 'time_set', /yyyy-MM-dd/);
    // accepted spellings: "12,5" (a comma), "+7", 3 (a number), "0.100" (trailing zeros)
    for (const [val, want] of [['12,5', '12.50'], ['+7', '7.00'], [3, '3.00'], ['0.100', '0.10'], ['999999999999.99', '999999999999.99']] as const) {
      const r = await ok(alice, 'money.setTransaction', { ...base, type: 1, val });
      expect((await ok(alice, 'money.getTransaction', { trid: r.trid })).val).toBe(want);
    }
    expect((await ok(alice, 'money.getTransactions', { bid })).balance).toBe('1000000000022.59');
    // the box: description required
    const nb = await call(alice, 'money.boxUpdate', { title: 'X' });
    expect(nb.code).toBe(422);
    expect(nb.env.fields).toEqual({ description: 'description is required' });
    expect((await call(alice, 'money.boxUpdate', { title: 'X', description: '  ' })).env.fields).toEqual({ description: 'description is required' });
    expect((await call(alice, 'money.boxUpdate', { description: 'd' })).env.fields).toEqual({ title: 'title is required' });
    // nothing of the refused writes reached the tables
    await checkDerived(db(), bid);
  });

  test('50 concurrent inserts into one box: every one counted, the balance exact', async () => {
    const bid = await box(alice, 'Busy');
    const r = prng(5);
    const txs = Array.from({ length: 50 }, (_, i) => ({
      bid, type: i % 3 === 0 ? 0 : 1, val: (Math.floor(r() * 100000) / 100).toFixed(2), tags: i % 2 ? 'a,b' : 'a', time_set: `2026-03-${String(1 + (i % 5)).padStart(2, '0')}`,
    }));
    const res = await Promise.all(txs.map((x) => call(alice, 'money.setTransaction', x)));
    expect(res.map((x) => x.code)).toEqual(txs.map(() => 200));
    expect(new Set(res.map((x) => x.env.result.trid)).size).toBe(50);
    const want = txs.reduce((s, x) => (x.type === 1 ? s.plus(x.val) : s.minus(x.val)), new Decimal(0)).toFixed(2);
    const got = await ok(alice, 'money.getTransactions', { bid, limit: 200 });
    expect(got).toMatchObject({ count: 50, balance: want });
    expect((await ok(alice, 'money.getBox', { bid })).count).toBe(50);
    await checkDerived(db(), bid);
  }, 60_000);

  test('edit, clone and delete keep the balance and the sums', async () => {
    const bid = await box(alice, 'Edits');
    const a = await ok(alice, 'money.setTransaction', { bid, type: 0, val: '10.00', tags: 'food, Cafe', time_set: '2026-04-01', description: 'lunch' });
    expect((await ok(alice, 'money.getTransaction', { trid: a.trid })).tags).toBe('food,cafe');
    const e = await ok(alice, 'money.setTransaction', { bid, trid: a.trid, type: 1, val: '2.50', tags: 'refund', time_set: '2026-04-03', description: 'refund' });
    expect(e).toMatchObject({ trid: a.trid, balance: '2.50' });
    // clone = a new transaction with the same fields
    const src = await ok(alice, 'money.getTransaction', { trid: a.trid });
    const c = await ok(alice, 'money.setTransaction', { bid, type: src.type, val: src.val, tags: src.tags, time_set: src.time_set, description: src.description });
    expect(c.trid).not.toBe(a.trid);
    expect(c.balance).toBe('5.00');
    expect((await ok(alice, 'money.getTagsPopular', { bid })).map((x: any) => [x.tag, x.n])).toEqual([['refund', 2]]);
    const d = await ok(alice, 'money.deleteTransaction', { trid: a.trid });
    expect(d).toMatchObject({ trid: a.trid, balance: '2.50', message: 'Delete ok!' });
    expect((await call(alice, 'money.getTransaction', { trid: a.trid })).code).toBe(404);
    expect((await call(alice, 'money.deleteTransaction', { trid: a.trid })).code).toBe(404);
    // a transaction of another box cannot be edited through this one
    const other = await box(alice, 'Other');
    const r = await call(alice, 'money.setTransaction', { bid: other, trid: c.trid, type: 0, val: 1, time_set: '2026-04-01' });
    expect(r.code).toBe(404);
    await checkDerived(db(), bid);
    await checkDerived(db(), other);
  });

  test('paging: 20 per page by p_ (or limit/offset), newest day first; filters; the count', async () => {
    const bid = await box(alice, 'Pages');
    const r = prng(11);
    const all: Tx[] = [];
    for (let i = 0; i < 57; i++) {
      const x = { type: r() < 0.4 ? 1 : 0, val: (1 + Math.floor(r() * 5000) / 100).toFixed(2), tags: r() < 0.5 ? 'taxi' : r() < 0.5 ? 'food,taxi' : '', time_set: `2026-05-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`, description: r() < 0.3 ? 'Coffee 50% off' : 'x' };
      const res = await ok(alice, 'money.setTransaction', { bid, ...x });
      all.push({ ...x, trid: res.trid } as Tx);
    }
    const order = [...all].sort((p, q) => (p.time_set === q.time_set ? q.trid - p.trid : p.time_set < q.time_set ? 1 : -1));
    const pages = [];
    for (let p = 1; p <= 3; p++) {
      const g = await ok(alice, 'money.getTransactions', { bid, p_: p });
      expect(g.count).toBe(57);
      pages.push(...g.list.map((x: any) => x.trid));
    }
    expect(pages).toEqual(order.map((x) => x.trid));
    expect((await ok(alice, 'money.getTransactions', { bid, p_: 4 })).list).toEqual([]);
    const off = await ok(alice, 'money.getTransactions', { bid, limit: 7, offset: 13 });
    expect(off.list.map((x: any) => x.trid)).toEqual(order.slice(13, 20).map((x) => x.trid));
    // the page's day sums are the day's (whole box)
    const first = await ok(alice, 'money.getTransactions', { bid });
    const day0 = first.list[0].time_set;
    const inc = all.filter((x) => x.time_set === day0 && x.type === 1).reduce((s, x) => s.plus(x.val), new Decimal(0)).toFixed(2);
    expect(first.days.find((d: any) => d.day === day0).income).toBe(inc);
    const check = async (args: Record<string, unknown>, pick: (x: Tx) => boolean) => {
      const want = order.filter(pick);
      const g = await ok(alice, 'money.getTransactions', { bid, limit: 200, ...args });
      expect({ args, count: g.count, list: g.list.map((x: any) => x.trid) }).toEqual({ args, count: want.length, list: want.map((x) => x.trid) });
      if (want.length > 5) {
        const p2 = await ok(alice, 'money.getTransactions', { bid, limit: 5, p_: 2, ...args });
        expect(p2.list.map((x: any) => x.trid)).toEqual(want.slice(5, 10).map((x) => x.trid));
      }
    };
    await check({ type: 1 }, (x) => x.type === 1);
    await check({ type: 0, from: '2026-05-10', to: '2026-05-20' }, (x) => x.type === 0 && x.time_set >= '2026-05-10' && x.time_set <= '2026-05-20');
    await check({ timeMore: '2026-05-15' }, (x) => x.time_set >= '2026-05-15');
    await check({ tags: 'food' }, (x) => x.tags.split(',').includes('food'));
    await check({ tags: ['food', 'taxi'], type: 1 }, (x) => x.tags !== '' && x.type === 1);
    await check({ tags: 'taxi', tag: 'food' }, (x) => x.tags.split(',').includes('food'));
    await check({ untagged: 1 }, (x) => x.tags === '');
    await check({ untagged: 1, type: 1, from: '2026-05-05' }, (x) => x.tags === '' && x.type === 1 && x.time_set >= '2026-05-05');
    await check({ tag: 'taxi', type: 0 }, (x) => x.tags.split(',').includes('taxi') && x.type === 0);
    await check({ tags: 'food', from: '2026-05-03', to: '2026-05-25', type: 1 }, (x) => x.tags.split(',').includes('food') && x.type === 1 && x.time_set >= '2026-05-03' && x.time_set <= '2026-05-25');
    await check({ q: '50%' }, (x) => x.description.includes('50%'));
    // 001 §7 REST row "transactions with select, bid, tags, timeMore, limit"
    const sel = await ok(alice, 'money.getTransactions', { bid, select: 'trid, val', tags: 'food', timeMore: '2026-05-10', limit: 3 });
    expect(sel.list).toEqual(order.filter((x) => x.tags.split(',').includes('food') && x.time_set >= '2026-05-10').slice(0, 3).map((x) => ({ trid: x.trid, val: x.val })));
    expect((await call(alice, 'money.getTransactions', { bid, select: 'trid,password' })).env.fields.select).toMatch(/unknown column 'password'/);
    expect((await call(alice, 'money.getTransactions', { bid, from: '2026-05-10', to: '2026-05-01' })).code).toBe(422);
    expect((await call(alice, 'money.getTransactions', { bid, limit: 201 })).code).toBe(422);
  }, 60_000);

  test('tags: popular by use, search (limit 200) without the tags entered, related tags; rules tag new transactions', async () => {
    const bid = await box(alice, 'Tags');
    const add = (tags: string, description = '') => ok(alice, 'money.setTransaction', { bid, type: 0, val: 1, tags, time_set: '2026-06-01', description });
    await add('food,market');
    await add('food,cafe');
    await add('food,cafe,friends');
    await add('fuel,car');
    expect((await ok(alice, 'money.getTagsPopular', { bid })).slice(0, 2)).toEqual([{ tag: 'food', n: 3 }, { tag: 'cafe', n: 2 }]);
    expect((await ok(alice, 'money.searchTags', { bid, q: 'f' })).map((x: any) => x.tag)).toEqual(['food', 'friends', 'fuel', 'cafe']);
    expect((await ok(alice, 'money.searchTags', { bid, q: 'F', exclude: 'food, fuel' })).map((x: any) => x.tag)).toEqual(['friends', 'cafe']);
    expect((await ok(alice, 'money.getTagsByTagsRelay', { bid, tags: 'food' })).map((x: any) => [x.tag, x.n])).toEqual([['cafe', 2], ['friends', 1], ['market', 1]]);
    expect((await ok(alice, 'money.getTagsByTagsRelay', { bid, tags: ['food'], exclude: ['cafe'] })).map((x: any) => x.tag)).toEqual(['friends', 'market']);
    // tags are compared exactly on both databases (MariaDB's default collation would take these for one)
    await add('ёж,еж,Ёж');
    expect((await ok(alice, 'money.searchTags', { bid, q: 'Ж' })).map((x: any) => x.tag).sort()).toEqual(['еж', 'ёж']);
    // the limit of 200
    const many = await box(alice, 'Many tags');
    for (let i = 0; i < 11; i++) await ok(alice, 'money.importCsv', { bid: many, csv: Array.from({ length: 20 }, (_, j) => `2026-06-01,expense,1,t${String(i * 20 + j).padStart(3, '0')}`).join('\n') });
    expect(await ok(alice, 'money.searchTags', { bid: many, q: 't' })).toHaveLength(200);
    expect(await ok(alice, 'money.getTagsPopular', { bid: many })).toHaveLength(200);
    expect((await call(alice, 'money.searchTags', { bid: many, q: 't', limit: 201 })).code).toBe(422);

    // rules: description contains X (any case) -> tags, on insert (not on edit)
    const rules = await ok(alice, 'money.setRules', { bid, rules: [{ contains: 'Shell', tags: 'fuel, car' }, { contains: 'coffee', tags: 'cafe' }] });
    expect(rules.map((r: any) => [r.contains, r.tags])).toEqual([['Shell', 'fuel,car'], ['coffee', 'cafe']]);
    expect((await ok(alice, 'money.getRules', { bid })).length).toBe(2);
    const x = await add('trip', 'SHELL station, coffee');
    expect((await ok(alice, 'money.getTransaction', { trid: x.trid })).tags).toBe('trip,fuel,car,cafe');
    await ok(alice, 'money.setTransaction', { bid, trid: x.trid, type: 0, val: 1, tags: 'trip', time_set: '2026-06-01', description: 'shell' });
    expect((await ok(alice, 'money.getTransaction', { trid: x.trid })).tags).toBe('trip');
    expect((await call(alice, 'money.setRules', { bid, rules: [{ contains: '', tags: 'x' }] })).code).toBe(422);
    expect((await call(alice, 'money.setRules', { bid, rules: [{ contains: 'x', tags: '' }] })).code).toBe(422);
    await ok(alice, 'money.setRules', { bid, rules: [] });
    expect(await ok(alice, 'money.getRules', { bid })).toEqual([]);
    await checkDerived(db(), bid);
    await checkDerived(db(), many);
  }, 60_000);

  test('the report against an oracle: totals once per transaction, per day and month, per tag with shares, the balance line', async () => {
    const bid = await box(alice, 'Report');
    const r = prng(21);
    const TAGS = ['food', 'rent', 'salary', 'fun', 'car'];
    const all: Tx[] = [];
    const rows: string[] = [];
    for (let i = 0; i < 400; i++) {
      const tags = TAGS.filter(() => r() < 0.3);
      const x = { type: r() < 0.35 ? 1 : 0, val: (0.01 + Math.floor(r() * 200000) / 100).toFixed(2), tags: tags.join(','), time_set: `2025-${String(9 + Math.floor(r() * 4)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`, description: '' } as Tx;
      all.push(x);
      rows.push([x.time_set, x.type, x.val, `"${x.tags}"`].join(','));
    }
    await ok(alice, 'money.importCsv', { bid, csv: rows.join('\n') });
    const sum = (xs: Tx[], type: number) => xs.filter((x) => x.type === type).reduce((s, x) => s.plus(x.val), new Decimal(0));
    const net = (xs: Tx[]) => sum(xs, 1).minus(sum(xs, 0));
    const oracle = (from: string, to: string, group: 'day' | 'month', filter: string[]) => {
      const inRange = all.filter((x) => x.time_set >= from && x.time_set <= to);
      const sel = filter.length ? inRange.filter((x) => x.tags.split(',').some((g) => filter.includes(g))) : inRange;
      const key = (d: string) => (group === 'day' ? d : d.slice(0, 7));
      const periods = new Map<string, { sel: Tx[]; all: Tx[] }>();
      const keys: string[] = [];
      for (let d = from; d <= to; d = new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) if (!keys.includes(key(d))) keys.push(key(d));
      let bal = net(all.filter((x) => x.time_set < from));
      const out = keys.map((k) => {
        bal = bal.plus(net(inRange.filter((x) => key(x.time_set) === k)));
        const s = sel.filter((x) => key(x.time_set) === k);
        void periods;
        return { period: k, income: sum(s, 1).toFixed(2), expense: sum(s, 0).toFixed(2), total: net(s).toFixed(2), count: s.length, balance: bal.toFixed(2) };
      });
      const tagsIn = [...new Set(sel.flatMap((x) => (x.tags ? x.tags.split(',') : [''])))];
      const tagRows = tagsIn.map((g) => {
        const s = sel.filter((x) => (g === '' ? x.tags === '' : x.tags.split(',').includes(g)));
        const share = (p: Decimal, w: Decimal) => (w.gt(0) ? Math.round(p.div(w).times(1000).toNumber()) / 10 : 0);
        return { tag: g, income: sum(s, 1).toFixed(2), expense: sum(s, 0).toFixed(2), total: net(s).toFixed(2), count: s.length, share_income: share(sum(s, 1), sum(sel, 1)), share_expense: share(sum(s, 0), sum(sel, 0)) };
      }).sort((p, q) => new Decimal(q.income).plus(q.expense).comparedTo(new Decimal(p.income).plus(p.expense)) || (p.tag < q.tag ? -1 : 1));
      return { totals: { income: sum(sel, 1).toFixed(2), expense: sum(sel, 0).toFixed(2), total: net(sel).toFixed(2), count: sel.length }, periods: out, tag_rows: tagRows, balance_start: net(all.filter((x) => x.time_set < from)).toFixed(2), balance_end: bal.toFixed(2) };
    };
    for (const [from, to, group, filter] of [
      ['2025-10-01', '2025-10-31', 'day', []],
      ['2025-09-15', '2025-12-10', 'month', []],
      ['2025-10-01', '2025-11-15', 'day', ['food']],
      ['2025-09-01', '2025-12-31', 'month', ['food', 'fun']],
    ] as const) {
      const rep = await ok(alice, 'money.getReport', { bid, from, to, group, tags: [...filter] });
      const want = oracle(from, to, group, [...filter]);
      expect({ from, group, filter, totals: rep.totals, balance_start: rep.balance_start, balance_end: rep.balance_end }).toEqual({ from, group, filter, totals: want.totals, balance_start: want.balance_start, balance_end: want.balance_end });
      expect(rep.periods.map(({ from: _f, to: _t, ...p }: any) => p)).toEqual(want.periods);
      expect(rep.tag_rows).toEqual(want.tag_rows);
      // a transaction with several tags counts once in the total: the tag rows add up to more
      if (!filter.length) {
        const tagSum = rep.tag_rows.reduce((s: Decimal, x: any) => s.plus(x.expense), new Decimal(0));
        expect(tagSum.gt(rep.totals.expense)).toBe(true);
      }
      // the transactions behind a bar are the bar's count
      const bar = rep.periods.find((p: any) => p.count > 0);
      const behind = await ok(alice, 'money.getTransactions', { bid, from: bar.from, to: bar.to, tags: [...filter], limit: 200 });
      expect(behind.count).toBe(bar.count);
    }
    // default range: 30 days ago to today (UTC); the group follows the span
    const today = new Date().toISOString().slice(0, 10);
    const def = await ok(alice, 'money.getReport', { bid });
    expect(def).toMatchObject({ to: today, from: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10), group: 'day' });
    expect(def.periods).toHaveLength(31);
    expect((await call(alice, 'money.getReport', { bid, from: '2020-01-01', to: '2025-01-01', group: 'day' })).code).toBe(422);
    expect((await call(alice, 'money.getReport', { bid, from: '2025-02-01', to: '2025-01-01' })).code).toBe(422);
    await checkDerived(db(), bid);
  }, 90_000);

  test('deleting a box removes everything of it', async () => {
    const bid = await box(alice, 'Gone');
    await ok(alice, 'money.setTransaction', { bid, type: 0, val: 5, tags: 'x,y', time_set: '2026-01-01' });
    await ok(alice, 'money.setRules', { bid, rules: [{ contains: 'a', tags: 'b' }] });
    expect(await ok(alice, 'money.boxDelete', { bid })).toMatchObject({ bid, removed: 1, message: 'Delete ok!' });
    for (const table of ['money_boxes', 'money_transactions', 'money_tag_relay', 'money_box_tags', 'money_days', 'money_tag_days', 'money_rules', 'money_box_users']) {
      const [{ n }] = await db().query(`SELECT COUNT(*) AS n FROM ${table} WHERE bid = ?`, [bid]);
      expect([table, Number(n)]).toEqual([table, 0]);
    }
    expect((await call(alice, 'money.getBox', { bid })).code).toBe(404);
  });
});
