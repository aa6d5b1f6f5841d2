/**
 * The screener, the closing bonds and bond reads (001 §2 "Screener", §7 invest.Item.getBondsFilter /
 * getBondsNextClose, getBonds; §9 15 per page, default sort coupon_percent, currency all, riskLevel all;
 * issue 22; docs/invest.md "Screener"): pages of the catalogue the job keeps. Sorted by the figures the
 * job stores (coupon_percent, ytm, next_coupon_date), nulls last; bonds past maturity are left out.
 */
import { Injectable } from '@nestjs/common';
import {
  INVEST_GET_BONDS_LIMIT, INVEST_NEXT_CLOSE_DAYS, INVEST_SCREENER_PAGE, INVEST_SORT_ORDER, InvestBondsFilterArgs, InvestGetBondsArgs, InvestNextCloseArgs,
  INVEST_DEFAULT_SORT, type InvestBond, type InvestBondsPage, type InvestSort,
} from '../../../contracts/invest.js';
import { NOT_CONFIGURED, type NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { bondView } from '../calc/bond-view.js';
import { addDays } from '../calc/decimal.js';
import type { InvestBondEntity } from '../invest.entities.js';
import { InvestCatalogueService, normaliseBond } from './catalogue.service.js';

/** The SQL of a sort key (`today` fills `?` for close_date). */
const CLOSE_DATE = "(CASE WHEN call_date IS NOT NULL AND call_date >= ? AND (maturity_date IS NULL OR call_date < maturity_date) THEN call_date ELSE maturity_date END)";
const SORT_SQL: Record<InvestSort, string> = {
  coupon_percent: 'coupon_percent',
  ytm: 'ytm',
  maturity: 'maturity_date',
  next_coupon: 'next_coupon_date',
  price: '(last_price + 0)',
  name: 'name',
  close_date: CLOSE_DATE,
};

type Filter = { sql: string[]; params: unknown[] };

@Injectable()
export class InvestScreenerService {
  constructor(private readonly catalogue: InvestCatalogueService) {}

  private base(a: InvestBondsFilterArgs, today: string): Filter {
    const f: Filter = { sql: ['in_catalogue = 1', '(maturity_date IS NULL OR maturity_date >= ?)'], params: [today] };
    if (a.currency && a.currency !== 'all') { f.sql.push('currency = ?'); f.params.push(a.currency); }
    if (a.riskLevel !== undefined && a.riskLevel !== 'all') { f.sql.push('risk_level = ?'); f.params.push(a.riskLevel); }
    return f;
  }

  private async page(a: InvestBondsFilterArgs, f: Filter, defaultSort: InvestSort, today: string, extra: Partial<InvestBondsPage> = {}): Promise<InvestBondsPage> {
    const sort = a.sort ?? defaultSort;
    const order = a.order ?? INVEST_SORT_ORDER[sort];
    const limit = a.limit ?? INVEST_SCREENER_PAGE;
    const page = a.p_ ?? 1;
    const where = f.sql.join(' AND ');
    const key = SORT_SQL[sort];
    const keyParams = sort === 'close_date' ? [today] : [];
    const db = this.catalogue.db;
    const [{ n }] = (await db.query(`SELECT COUNT(*) AS n FROM invest_bonds WHERE ${where}`, f.params)) as Array<{ n: number | string }>;
    const rows = (await db.query(
      `SELECT * FROM invest_bonds WHERE ${where} ORDER BY (${key} IS NULL), ${key} ${order === 'asc' ? 'ASC' : 'DESC'}, ticker ASC, figi ASC LIMIT ? OFFSET ?`,
      [...f.params, ...keyParams, ...keyParams, limit, (page - 1) * limit],
    )) as InvestBondEntity[];
    const list = await this.views(rows.map(normaliseBond), false, today);
    if (sort === 'close_date' || extra.days !== undefined) for (const b of list) Object.assign(b, closeOf(b, today));
    const stats = await this.catalogue.stats();
    return { configured: true, list, count: Number(n), page, limit, sort, order, ts_catalogue: stats.catalogueTs, ...extra };
  }

  private async views(rows: InvestBondEntity[], joinCoupon: boolean, today: string): Promise<InvestBond[]> {
    const coupons = await this.catalogue.couponsOf(rows);
    const ctx = { today, rates: await this.catalogue.rates() };
    return rows.map((r) => bondView({ figi: r.figi, ticker: r.ticker }, r, coupons.get(r.figi) ?? [], ctx, null, { stored: true, joinCoupon }));
  }

  @Rpc('invest.Item.getBondsFilter', {
    role: Role.user, input: InvestBondsFilterArgs,
    summary: `{sort? (${INVEST_DEFAULT_SORT} | ytm | maturity | next_coupon | price | name | close_date), order? (asc|desc; each sort has its natural order), riskLevel? (all|0|1|2|3), currency? (all|rub|usd|eur), p_?, limit? (${INVEST_SCREENER_PAGE})}: a page of the bonds catalogue (not matured): {configured, list: [bond as in getPortfolio, no position], count, page, limit, sort, order, ts_catalogue}; {configured: false} without INVEST_TOKEN`,
  })
  async getBondsFilter(a: InvestBondsFilterArgs = {}): Promise<InvestBondsPage | NotConfigured> {
    if (!this.catalogue.client.configured) return NOT_CONFIGURED;
    const today = this.catalogue.today();
    return this.page(a, this.base(a, today), INVEST_DEFAULT_SORT, today);
  }

  @Rpc('invest.Item.getBondsNextClose', {
    role: Role.user, input: InvestNextCloseArgs,
    summary: `{days? (${INVEST_NEXT_CLOSE_DAYS}), sort? (close_date), order?, riskLevel?, currency?, p_?, limit?}: bonds whose maturity or offer falls within the next days, the screener's layout, each with close_date and close_kind (maturity|offer): {configured, list, count, page, limit, sort, order, ts_catalogue, days}`,
  })
  async getBondsNextClose(a: InvestNextCloseArgs = {}): Promise<InvestBondsPage | NotConfigured> {
    if (!this.catalogue.client.configured) return NOT_CONFIGURED;
    const today = this.catalogue.today();
    const days = a.days ?? INVEST_NEXT_CLOSE_DAYS;
    const end = addDays(today, days);
    const f = this.base(a, today);
    f.sql.push('((maturity_date >= ? AND maturity_date <= ?) OR (call_date >= ? AND call_date <= ?))');
    f.params.push(today, end, today, end);
    return this.page(a, f, 'close_date', today, { days });
  }

  @Rpc('invest.Item.getBonds', {
    role: Role.user, input: InvestGetBondsArgs,
    summary: `{ticker? (comma list or list), limit? (${INVEST_GET_BONDS_LIMIT}), isDisting? (one row per ticker), joinCoupon?}: bonds of the catalogue by ticker (all by ticker without a list): [bond as in getPortfolio, no position]`,
  })
  async getBonds(a: InvestGetBondsArgs = {}): Promise<InvestBond[]> {
    const limit = a.limit ?? INVEST_GET_BONDS_LIMIT;
    const today = this.catalogue.today();
    const params: unknown[] = [];
    let where = '1 = 1';
    if (a.ticker?.length) {
      where = `ticker IN (${a.ticker.map(() => '?').join(', ')})`;
      params.push(...a.ticker);
    }
    let rows = ((await this.catalogue.db.query(
      `SELECT * FROM invest_bonds WHERE ${where} ORDER BY ticker ASC, in_catalogue DESC, ts_update_info DESC, figi ASC LIMIT ?`,
      [...params, a.isDisting ? limit * 4 : limit],
    )) as InvestBondEntity[]).map(normaliseBond);
    if (a.isDisting) {
      const seen = new Set<string>();
      rows = rows.filter((r) => !seen.has(r.ticker) && seen.add(r.ticker)).slice(0, limit);
    }
    return this.views(rows, a.joinCoupon === 1, today);
  }
}

/** The nearer of offer and maturity from today. */
function closeOf(b: InvestBond, today: string): { close_date: string | null; close_kind: 'maturity' | 'offer' | null } {
  const call = b.data.callDate && b.data.callDate >= today ? b.data.callDate : null;
  const mat = b.data.maturityDate;
  if (call && (!mat || call < mat)) return { close_date: call, close_kind: 'offer' };
  return mat ? { close_date: mat, close_kind: 'maturity' } : { close_date: null, close_kind: null };
}
