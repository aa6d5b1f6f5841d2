/**
 * The coupon forecast, the payment calendar and its iCalendar export (001 §2 "Coupon forecast", §5,
 * §9; issue 22; docs/invest.md "Forecast", "Calendar"): the computations are calc/forecast.ts; this
 * reads an account's holdings and answers.
 */
import { Injectable } from '@nestjs/common';
import {
  INVEST_FORECAST_DEFAULT_SIZE, INVEST_COUPON_MIN_PERCENT, InvestCalendarArgs, InvestForecastArgs,
  type InvestCalendar, type InvestForecast,
} from '../../../contracts/invest.js';
import type { NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import type { Actor } from '../../../core/auth/actor.js';
import { invalid } from '../../../core/errors.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { calendar, forecast } from '../calc/forecast.js';
import { toIcs } from '../calc/ics.js';
import { InvestAccountsService } from './accounts.service.js';
import { InvestCatalogueService } from './catalogue.service.js';

@Injectable()
export class InvestForecastService {
  constructor(private readonly accounts: InvestAccountsService, private readonly catalogue: InvestCatalogueService) {}

  @Rpc('invest.Item.getForecast', {
    role: Role.user, input: InvestForecastArgs,
    summary: `{accountId, size?}: coupon income per year and month in rubles from the real coupon schedules (coupon_percent below ${INVEST_COUPON_MIN_PERCENT} left out, years before the current one skipped, floating and amortising marked); size (rubles; the screen's default ${INVEST_FORECAST_DEFAULT_SIZE}) spreads that sum as the account is, without it the quantities held: {configured, accountId, name, size, value_rub, scale, from_year, years: [{year, sum, months: [{month: "YYYY-MM", sum, count}]}], months: [...], total, bonds: [{figi, ticker, quantity, held, coupon_percent, floating, amortization, included, reason?, sum, estimated}], notes}`,
  })
  async getForecast(a: InvestForecastArgs, ctx: RpcContext): Promise<InvestForecast | NotConfigured> {
    const h = await this.accounts.holdings(a.accountId, ctx.actor, ctx.signal);
    if ('configured' in h) return h;
    const f = forecast({ accountId: h.accountId, name: h.name, holdings: h.holdings, size: a.size ?? null, ctx: await this.catalogue.context() });
    return { ...f, notes: [...h.notes, ...f.notes, ...(h.error ? [`${h.error} (the portfolio as read ${h.fetched})`] : [])] };
  }

  @Rpc('invest.Item.getCalendar', {
    role: Role.user, input: InvestCalendarArgs,
    summary: '{accountId, from? "YYYY-MM", to?, size?}: every coupon, maturity and offer of the account\'s bonds month by month (from January of the current year to the last payment by default), with the sums per month in rubles for the chart: {configured, accountId, name, from, to, months: [{month, coupons, maturities, total, events: [{date, kind: coupon|maturity|offer, figi, ticker, name, number, per_bond, currency, quantity, amount, amount_rub, fix_date, floating, amortization, estimated}]}], totals, notes}',
  })
  async getCalendar(a: InvestCalendarArgs, ctx: RpcContext): Promise<InvestCalendar | NotConfigured> {
    if (a.from && a.to && a.to < a.from) throw invalid('to: the last month is before the first', { to: 'to is before from' });
    const h = await this.accounts.holdings(a.accountId, ctx.actor, ctx.signal);
    if ('configured' in h) return h;
    const c = calendar({ accountId: h.accountId, name: h.name, holdings: h.holdings, size: a.size ?? null, ctx: await this.catalogue.context(), from: a.from, to: a.to });
    return { ...c, notes: [...h.notes, ...c.notes] };
  }

  /** The coming payments (coupons and maturities from today on) as an iCalendar file; null when the broker is not configured for a broker account. */
  async ics(accountId: string, size: number | undefined, actor: Actor, signal?: AbortSignal): Promise<{ name: string; body: string } | null> {
    const h = await this.accounts.holdings(accountId, actor, signal);
    if ('configured' in h) return null;
    const vctx = await this.catalogue.context();
    const cal = calendar({ accountId: h.accountId, name: h.name, holdings: h.holdings, size: size ?? null, ctx: vctx, from: vctx.today.slice(0, 7) });
    const file = `bond-payments-${h.accountId.replace(/[^A-Za-z0-9_-]/g, '_')}.ics`;
    return { name: file, body: toIcs(cal, vctx.today) };
  }
}
