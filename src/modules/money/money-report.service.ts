import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  addDays, daysBetween, formatKopecks, MONEY_REPORT_DAYS, MONEY_REPORT_MAX_DAYS, MONEY_REPORT_MAX_DAYS_BY_DAY, MoneyReportArgs,
  type MoneyGroup, type MoneyPeriod, type MoneyReport, type MoneySums, type MoneyTagRow,
} from '../../contracts/money.js';
import { Role } from '../../contracts/roles.js';
import { invalid } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { MoneyAccess } from './money-access.js';
import { kop, type Row } from './money-store.js';

/** Income, expense and their counts, in kopecks. */
interface Acc { income: number; expense: number; n: number }
const zero = (): Acc => ({ income: 0, expense: 0, n: 0 });
const accOf = (r: Row): Acc => ({ income: kop(r.income), expense: kop(r.expense), n: kop(r.n_income) + kop(r.n_expense) });
const sums = (a: Acc): MoneySums => ({ income: formatKopecks(a.income), expense: formatKopecks(a.expense), total: formatKopecks(a.income - a.expense), count: a.n });
const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);
const SUMS_SQL = (t: string) =>
  `SUM(CASE WHEN ${t}.type = 1 THEN ${t}.val ELSE 0 END) AS income, SUM(CASE WHEN ${t}.type = 0 THEN ${t}.val ELSE 0 END) AS expense, ` +
  `SUM(CASE WHEN ${t}.type = 1 THEN 1 ELSE 0 END) AS n_income, SUM(CASE WHEN ${t}.type = 0 THEN 1 ELSE 0 END) AS n_expense`;

/** Today as a UTC day. */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/**
 * The money report (001 §2 /money/report/{bid}; issue 21 "Report"; docs/money.md "Report"): income,
 * expense and total for [from, to] per day or month and per tag, with the box's balance at the end of
 * each period. Without a tag filter it reads the day sums (`money_days`, `money_tag_days`: at most one
 * row per day, or per tag and day), so a year costs the same whatever the number of transactions;
 * with one it reads the matching relay rows (a tag's transactions with their amounts) by the relay's
 * (bid, tag, day) index, and its sums per day for a single tag. A
 * transaction counts once in every total whatever its number of tags; under each of its tags in the
 * tag table (the shares overlap).
 */
@Injectable()
export class MoneyReportService {
  constructor(@InjectDataSource() private readonly db: DataSource, private readonly access: MoneyAccess) {}

  @Rpc('money.getReport', {
    role: Role.user, input: MoneyReportArgs,
    summary: `{bid, from? (${MONEY_REPORT_DAYS} days ago, UTC), to? (today), tags? (transactions with any of them), group? (day, or month past 62 days)}: {from, to, group, tags, totals {income, expense, total, count}, periods [{period, from, to, income, expense, total, count, balance}], tag_rows [{tag ('' untagged), income, expense, total, count, share_income, share_expense}], balance_start, balance_end}`,
  })
  async getReport(a: MoneyReportArgs, ctx: RpcContext): Promise<MoneyReport> {
    await this.access.box(ctx.actor, a.bid);
    const today = todayUtc();
    const to = a.to ?? today;
    const from = a.from ?? addDays(today, -MONEY_REPORT_DAYS);
    if (from > to) throw invalid('from is after to', { from: 'from is after to' });
    const span = daysBetween(from, to) + 1;
    if (span > MONEY_REPORT_MAX_DAYS) throw invalid(`A report covers at most ${MONEY_REPORT_MAX_DAYS} days`, { from: `at most ${MONEY_REPORT_MAX_DAYS} days` });
    const group: MoneyGroup = a.group ?? (span > 62 ? 'month' : 'day');
    if (group === 'day' && span > MONEY_REPORT_MAX_DAYS_BY_DAY) throw invalid(`By day a report covers at most ${MONEY_REPORT_MAX_DAYS_BY_DAY} days: group by month`, { group: 'group by month for this range' });
    const tags = a.tags ?? [];

    const [before] = await this.db.query('SELECT COALESCE(SUM(income), 0) AS income, COALESCE(SUM(expense), 0) AS expense FROM money_days WHERE bid = ? AND day < ?', [a.bid, from]);
    const start = kop(before.income) - kop(before.expense);
    const allDays: Row[] = await this.db.query('SELECT day, income, expense, n_income, n_expense FROM money_days WHERE bid = ? AND day >= ? AND day <= ? ORDER BY day', [a.bid, from, to]);

    let barDays: Row[];
    let tagRows: Row[];
    if (!tags.length) {
      barDays = allDays;
      tagRows = await this.db.query(
        'SELECT tag, SUM(income) AS income, SUM(expense) AS expense, SUM(n_income) AS n_income, SUM(n_expense) AS n_expense FROM money_tag_days WHERE bid = ? AND day >= ? AND day <= ? GROUP BY tag',
        [a.bid, from, to],
      );
    } else {
      // the matching transactions, from the relay alone (its rows carry day, type and amount; the
      // index covers them): each once, though it may carry several of the tags asked for
      const one = tags.length === 1;
      const match = `SELECT ${one ? '' : 'DISTINCT '}r.trid, r.time_set, r.type, r.val FROM money_tag_relay r WHERE r.bid = ? AND r.tag IN (${tags.map(() => '?').join(', ')}) AND r.time_set >= ? AND r.time_set <= ?`;
      const mp = [a.bid, ...tags, from, to];
      barDays = one
        ? await this.db.query('SELECT day, income, expense, n_income, n_expense FROM money_tag_days WHERE bid = ? AND tag = ? AND day >= ? AND day <= ?', [a.bid, tags[0], from, to])
        : await this.db.query(`SELECT x.time_set AS day, ${SUMS_SQL('x')} FROM (${match}) x GROUP BY x.time_set`, mp);
      tagRows = await this.db.query(`SELECT r2.tag AS tag, ${SUMS_SQL('r2')} FROM (${match}) x JOIN money_tag_relay r2 ON r2.trid = x.trid GROUP BY r2.tag`, mp);
    }

    const keyOf = (d: string) => (group === 'day' ? d : d.slice(0, 7));
    const bars = new Map<string, Acc>();
    const totals = zero();
    for (const r of barDays) {
      const k = keyOf(String(r.day));
      const x = accOf(r);
      const cur = bars.get(k) ?? zero();
      bars.set(k, { income: cur.income + x.income, expense: cur.expense + x.expense, n: cur.n + x.n });
      totals.income += x.income;
      totals.expense += x.expense;
      totals.n += x.n;
    }
    const net = new Map<string, number>();
    for (const r of allDays) net.set(keyOf(String(r.day)), (net.get(keyOf(String(r.day))) ?? 0) + kop(r.income) - kop(r.expense));

    const periods: MoneyPeriod[] = [];
    let balance = start;
    for (const p of periodsOf(from, to, group)) {
      balance += net.get(p.period) ?? 0;
      periods.push({ ...p, ...sums(bars.get(p.period) ?? zero()), balance: formatKopecks(balance) });
    }
    const tag_rows: MoneyTagRow[] = tagRows
      .map((r) => ({ tag: String(r.tag), acc: accOf(r) }))
      .sort((x, y) => y.acc.income + y.acc.expense - (x.acc.income + x.acc.expense) || (x.tag < y.tag ? -1 : 1))
      .map(({ tag, acc }) => ({ tag, ...sums(acc), share_income: share(acc.income, totals.income), share_expense: share(acc.expense, totals.expense) }));
    return {
      bid: a.bid, from, to, group, tags, totals: sums(totals), periods, tag_rows,
      balance_start: formatKopecks(start), balance_end: formatKopecks(balance),
    };
  }
}

/** The periods of [from, to]: each day, or each month clipped to the range. */
export function periodsOf(from: string, to: string, group: MoneyGroup): Array<{ period: string; from: string; to: string }> {
  const out: Array<{ period: string; from: string; to: string }> = [];
  if (group === 'day') {
    for (let d = from; d <= to; d = addDays(d, 1)) out.push({ period: d, from: d, to: d });
    return out;
  }
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  for (;;) {
    const first = `${y}-${String(m).padStart(2, '0')}-01`;
    if (first > to) break;
    const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
    const last = addDays(next, -1);
    out.push({ period: first.slice(0, 7), from: first < from ? from : first, to: last > to ? to : last });
    if (m === 12) { y++; m = 1; } else m++;
  }
  return out;
}

