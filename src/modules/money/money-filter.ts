import type { MoneyFilter, MoneyTransaction, MoneyType } from '../../contracts/money.js';
import { formatKopecks } from '../../contracts/money.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { invalid } from '../../core/errors.js';
import { isoOf, type Row } from './money-store.js';

/** A box's transaction filter, normalised (`timeMore` read as `from`, '' type as none). */
export interface TxFilter {
  bid: number;
  from?: string;
  to?: string;
  type?: MoneyType;
  /** Any of these tags. */
  tags?: string[];
  /** And this tag. */
  tag?: string;
  untagged?: boolean;
  q?: string;
}

export function normFilter(a: MoneyFilter): TxFilter {
  const f: TxFilter = { bid: a.bid };
  const from = a.from ?? a.timeMore;
  if (from) f.from = from;
  if (a.to) f.to = a.to;
  if (f.from && f.to && f.from > f.to) throw invalid('from is after to', { from: 'from is after to' });
  if (a.type === 0 || a.type === 1) f.type = a.type;
  if (a.tags?.length) f.tags = a.tags;
  if (a.tag) f.tag = a.tag;
  if (a.untagged) f.untagged = true;
  if (a.q) f.q = a.q;
  return f;
}

/** The WHERE of a filter over `money_transactions t`. */
export function whereOf(f: TxFilter): { sql: string; params: unknown[] } {
  const w = ['t.bid = ?'];
  const p: unknown[] = [f.bid];
  if (f.from) { w.push('t.time_set >= ?'); p.push(f.from); }
  if (f.to) { w.push('t.time_set <= ?'); p.push(f.to); }
  if (f.type !== undefined) { w.push('t.type = ?'); p.push(f.type); }
  if (f.q) { w.push(`t.description ${LIKE_CONTAINS}`); p.push(containsPattern(f.q)); }
  if (f.untagged) w.push("t.tags = ''");
  if (f.tags) {
    const r = ['r.bid = ?', `r.tag IN (${f.tags.map(() => '?').join(', ')})`];
    const rp: unknown[] = [f.bid, ...f.tags];
    if (f.from) { r.push('r.time_set >= ?'); rp.push(f.from); }
    if (f.to) { r.push('r.time_set <= ?'); rp.push(f.to); }
    w.push(`t.trid IN (SELECT r.trid FROM money_tag_relay r WHERE ${r.join(' AND ')})`);
    p.push(...rp);
  }
  if (f.tag) { w.push('EXISTS (SELECT 1 FROM money_tag_relay r2 WHERE r2.trid = t.trid AND r2.tag = ?)'); p.push(f.tag); }
  return { sql: w.join(' AND '), params: p };
}

export const TX_SELECT = 't.trid, t.bid, t.uid, t.type, t.val, t.tags, t.time_set, t.description, t.time_create, t.time_update';

export const txView = (r: Row): MoneyTransaction => ({
  trid: Number(r.trid),
  bid: Number(r.bid),
  uid: Number(r.uid),
  type: Number(r.type) === 1 ? 1 : 0,
  val: formatKopecks(String(r.val)),
  tags: String(r.tags ?? ''),
  time_set: String(r.time_set),
  description: String(r.description ?? ''),
  time_create: isoOf(r.time_create),
  time_update: isoOf(r.time_update),
});
