/**
 * Money test helpers (test/api/money*.e2e.ts, bench/money.ts): the derived tables of a box recomputed
 * from its transaction rows and compared with what the writes kept (docs/money.md "Writes").
 */
import { expect } from '@jest/globals';
import type { DataSource } from 'typeorm';

/** A transaction as a test wrote it (val a decimal string). */
export interface Tx { trid: number; type: number; val: string; tags: string; time_set: string; description: string }

const n = (v: unknown) => Number(v ?? 0);

/** Every derived row of the box equals its recomputation from money_transactions. */
export async function checkDerived(db: DataSource, bid: number) {
  const txs: Array<Record<string, unknown>> = await db.query('SELECT trid, type, val, tags, time_set FROM money_transactions WHERE bid = ?', [bid]);
  let balance = 0;
  const days = new Map<string, number[]>();
  const tagDays = new Map<string, number[]>();
  const boxTags = new Map<string, number>();
  const relay: string[] = [];
  const add = (m: Map<string, number[]>, k: string, type: number, val: number) => {
    const s = m.get(k) ?? [0, 0, 0, 0];
    if (type === 1) { s[0] += val; s[2] += 1; } else { s[1] += val; s[3] += 1; }
    m.set(k, s);
  };
  for (const t of txs) {
    const type = n(t.type);
    const val = n(t.val);
    balance += type === 1 ? val : -val;
    add(days, String(t.time_set), type, val);
    const tags = String(t.tags) === '' ? [] : String(t.tags).split(',');
    for (const g of tags.length ? tags : ['']) add(tagDays, `${g}|${String(t.time_set)}`, type, val);
    for (const g of tags) {
      boxTags.set(g, (boxTags.get(g) ?? 0) + 1);
      relay.push(`${n(t.trid)}|${g}|${String(t.time_set)}|${type}|${val}`);
    }
  }
  const [b] = await db.query('SELECT balance, tx_count FROM money_boxes WHERE bid = ?', [bid]);
  expect({ bid, balance: n(b.balance), count: n(b.tx_count) }).toEqual({ bid, balance, count: txs.length });
  const rows = async (sql: string) => (await db.query(sql, [bid])) as Array<Record<string, unknown>>;
  const gotDays = (await rows('SELECT day, income, expense, n_income, n_expense FROM money_days WHERE bid = ?')).map((r) => `${String(r.day)}:${n(r.income)},${n(r.expense)},${n(r.n_income)},${n(r.n_expense)}`).sort();
  expect(gotDays).toEqual([...days].map(([k, s]) => `${k}:${s.join(',')}`).sort());
  const gotTagDays = (await rows('SELECT tag, day, income, expense, n_income, n_expense FROM money_tag_days WHERE bid = ?')).map((r) => `${String(r.tag)}|${String(r.day)}:${n(r.income)},${n(r.expense)},${n(r.n_income)},${n(r.n_expense)}`).sort();
  expect(gotTagDays).toEqual([...tagDays].map(([k, s]) => `${k}:${s.join(',')}`).sort());
  const gotTags = (await rows('SELECT tag, n FROM money_box_tags WHERE bid = ?')).map((r) => `${String(r.tag)}:${n(r.n)}`).sort();
  expect(gotTags).toEqual([...boxTags].map(([k, c]) => `${k}:${c}`).sort());
  const gotRelay = (await rows('SELECT trid, tag, time_set, type, val FROM money_tag_relay WHERE bid = ?')).map((r) => `${n(r.trid)}|${String(r.tag)}|${String(r.time_set)}|${n(r.type)}|${n(r.val)}`).sort();
  expect(gotRelay).toEqual(relay.sort());
}
