/**
 * Accounts and their bonds (001 §2 "Investments", §3 Account / Bond, §7 invest.User.getAccounts /
 * getPortfolio; issue 22 "Contract"; docs/invest.md "Accounts"): broker accounts (through the answer
 * cache), local accounts (entered by hand) and the fixed sample portfolio, all answered with the same
 * bond shape. `holdings` is what the forecast and the calendar read.
 */
import { Injectable, Logger } from '@nestjs/common';
import {
  INVEST_MSG, INVEST_SAMPLE, INVEST_SAMPLE_ACCOUNT, INVEST_SAMPLE_NAME, InvestPortfolioArgs, localIdOf,
  type InvestAccount, type InvestPortfolio,
} from '../../../contracts/invest.js';
import { NOT_CONFIGURED, type NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import type { Actor } from '../../../core/auth/actor.js';
import { notFound } from '../../../core/errors.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import type { TbankPosition } from '../../../core/outside/tbank.wire.js';
import { bondView, totalsOf, type PositionIn } from '../calc/bond-view.js';
import { dec, Decimal } from '../calc/decimal.js';
import type { Holding } from '../calc/forecast.js';
import { InvestBrokerService } from './broker.service.js';
import { InvestCatalogueService } from './catalogue.service.js';
import { InvestLocalService } from './local.service.js';

/** An account's bonds as held, with what the broker said about each position. */
export interface AccountHoldings {
  kind: 'broker' | 'local' | 'sample';
  accountId: string;
  name: string;
  holdings: Array<Holding & { position: PositionIn }>;
  fetched: string | null;
  stale: boolean;
  error?: string;
  notes: string[];
  other?: Record<string, number>;
}

@Injectable()
export class InvestAccountsService {
  private readonly log = new Logger('InvestAccounts');

  constructor(
    private readonly broker: InvestBrokerService,
    private readonly catalogue: InvestCatalogueService,
    private readonly local: InvestLocalService,
  ) {}

  @Rpc('invest.User.getAccounts', {
    role: Role.user,
    summary: `The broker's accounts (UsersService/GetAccounts, cached 600 s): [{id, name, type, status, opened_date}]; {configured: false} without INVEST_TOKEN`,
  })
  async getAccounts(_a: unknown, ctx: RpcContext): Promise<InvestAccount[] | NotConfigured> {
    if (!this.broker.configured) return NOT_CONFIGURED;
    const r = await this.broker.accounts({ signal: ctx.signal });
    return r.value.map((a) => ({ id: a.id, name: a.name || a.id, type: a.type, status: a.status, opened_date: a.openedDate }));
  }

  @Rpc('invest.User.getPortfolio', {
    role: Role.user, input: InvestPortfolioArgs,
    summary: `{accountId, joinCoupon? (default 1)}: an account's bonds (a broker account id: OperationsService/GetPortfolio cached 600 s; "local:<Id>"; "${INVEST_SAMPLE_ACCOUNT}": the fixed 13 bonds) with catalogue data, coupons and figures: {configured, accountId, kind, name, bonds: [{figi, ticker, name, nominal, lastPrice (% of nominal), price, diff_percent, coupon_percent, ytm, ts_next_coupon_pay, next_coupon, last_coupon, position: {quantity, ...}, coupons: [{fix_date, value, number, currency, date, ...}], ...}], totals, fetched, stale, error?, notes}; a broker account without INVEST_TOKEN: {configured: false}`,
  })
  async getPortfolio(a: InvestPortfolioArgs, ctx: RpcContext): Promise<InvestPortfolio | NotConfigured> {
    const h = await this.holdings(a.accountId, ctx.actor, ctx.signal);
    if ('configured' in h) return h;
    const vctx = await this.catalogue.context();
    const joinCoupon = a.joinCoupon !== 0;
    const bonds = h.holdings.map((x) => bondView({ figi: x.figi, ticker: x.ticker, name: x.name }, x.row, x.coupons, vctx, x.position, { joinCoupon }));
    const missing = bonds.filter((b) => !b.known).length;
    const notes = [...h.notes];
    if (missing) notes.push(`${missing} ${missing === 1 ? 'position is' : 'positions are'} not in the bonds catalogue: shown without data`);
    return {
      configured: true, accountId: h.accountId, kind: h.kind, name: h.name, bonds, totals: totalsOf(bonds, vctx), fetched: h.fetched, stale: h.stale,
      ...(h.error ? { error: h.error } : {}), notes, ...(h.other ? { other_positions: h.other } : {}),
    };
  }

  /** The bonds an account holds with their rows and schedules (the catalogue filled on demand for broker positions). */
  async holdings(accountId: string, actor: Actor, signal?: AbortSignal): Promise<AccountHoldings | NotConfigured> {
    if (accountId === INVEST_SAMPLE_ACCOUNT) return this.sampleHoldings();
    const localId = localIdOf(accountId);
    if (localId !== null) return this.localHoldings(accountId, localId, actor);
    if (/^local:/.test(accountId)) throw notFound(INVEST_MSG.accountNotFound);
    if (!this.broker.configured) return NOT_CONFIGURED;
    return this.brokerHoldings(accountId, signal);
  }

  private async brokerHoldings(accountId: string, signal?: AbortSignal): Promise<AccountHoldings> {
    const cached = await this.broker.portfolio(accountId, { signal });
    const p = cached.value;
    const other: Record<string, number> = {};
    const positions: TbankPosition[] = [];
    for (const pos of p.positions) {
      if (pos.instrumentType.toLowerCase() === 'bond') positions.push(pos);
      else other[pos.instrumentType || 'other'] = (other[pos.instrumentType || 'other'] ?? 0) + 1;
    }
    const figis = positions.map((x) => x.figi).filter(Boolean);
    let rows = await this.catalogue.rowsByFigi(figis);
    const ensured = await this.catalogue.ensure(figis, { signal }, rows);
    if (ensured.read) rows = await this.catalogue.rowsByFigi(figis);
    const notes = ensured.notes;
    const coupons = await this.catalogue.couponsOf(rows.values());
    let name = accountId;
    try {
      const accounts = await this.broker.accounts({ signal });
      name = accounts.value.find((x) => x.id === accountId)?.name || accountId;
    } catch { /* the name is a nicety: the portfolio answers without it */ }
    const holdings = positions.map((x) => {
      const row = rows.get(x.figi) ?? null;
      const nominal = dec(row?.nominal);
      const avgMoney = dec(x.averagePositionPrice?.value);
      const position: PositionIn = {
        quantity: dec(x.quantity) ?? new Decimal(0),
        avgPoints: avgMoney && nominal && nominal.gt(0) ? avgMoney.dividedBy(nominal).times(100) : null,
        currentPriceMoney: dec(x.currentPrice?.value),
        nkd: dec(x.currentNkd?.value),
      };
      return { figi: x.figi, ticker: row?.ticker || x.ticker, name: row?.name || x.ticker || x.figi, quantity: position.quantity, row, coupons: coupons.get(x.figi) ?? [], currentPriceMoney: position.currentPriceMoney, position };
    });
    return {
      kind: 'broker', accountId, name, holdings, fetched: cached.fetched, stale: cached.stale, ...(cached.error ? { error: cached.error } : {}), notes,
      ...(Object.keys(other).length ? { other } : {}),
    };
  }

  private async localHoldings(accountId: string, Id: number, actor: Actor): Promise<AccountHoldings> {
    const acc = await this.local.account(actor, Id);
    const list = await this.local.positionsOf(Id);
    const figis = list.map((p) => p.figi).filter(Boolean);
    let byFigi = await this.catalogue.rowsByFigi(figis);
    const ensured = await this.catalogue.ensure(figis, {}, byFigi);
    if (ensured.read) byFigi = await this.catalogue.rowsByFigi(figis);
    const notes = ensured.notes;
    const byTicker = await this.catalogue.rowsByTicker(list.filter((p) => !p.figi || !byFigi.has(p.figi)).map((p) => p.ticker));
    const resolved = list.map((p) => ({ p, row: (p.figi && byFigi.get(p.figi)) || (p.ticker && byTicker.get(p.ticker.toUpperCase())) || null }));
    const coupons = await this.catalogue.couponsOf(resolved.flatMap((x) => (x.row ? [x.row] : [])));
    const holdings = resolved.map(({ p, row }) => {
      const quantity = new Decimal(p.quantity);
      const position: PositionIn = { quantity, avgPoints: dec(p.price), currentPriceMoney: null, nkd: null };
      return { figi: row?.figi || p.figi, ticker: row?.ticker || p.ticker, name: row?.name || p.ticker || p.figi, quantity, row, coupons: row ? coupons.get(row.figi) ?? [] : [], position };
    });
    return { kind: 'local', accountId, name: acc.name, holdings, fetched: null, stale: false, notes };
  }

  /** The fixed 13 bonds (INVEST_SAMPLE), found in the catalogue by ticker. */
  private async sampleHoldings(): Promise<AccountHoldings> {
    const rows = await this.catalogue.rowsByTicker(INVEST_SAMPLE.map((s) => s.ticker));
    const coupons = await this.catalogue.couponsOf(rows.values());
    const notes: string[] = [];
    if (!this.broker.configured && rows.size === 0) notes.push(INVEST_MSG.notConfigured);
    const holdings = INVEST_SAMPLE.map((s) => {
      const row = rows.get(s.ticker) ?? null;
      const quantity = new Decimal(s.quantity);
      return { figi: row?.figi ?? '', ticker: s.ticker, name: row?.name || s.note, quantity, row, coupons: row ? coupons.get(row.figi) ?? [] : [], position: { quantity, avgPoints: null, currentPriceMoney: null, nkd: null } as PositionIn };
    });
    return { kind: 'sample', accountId: INVEST_SAMPLE_ACCOUNT, name: INVEST_SAMPLE_NAME, holdings, fetched: null, stale: false, notes };
  }

  /**
   * Figis every account holds (broker portfolios, local positions, the sample): what the jobs keep fresh
   * first. `cachedOnly`: the broker's portfolios as the cache holds them, without calling (the price job:
   * it spends only MarketData quota; the 10-minute refresh reads them).
   */
  async heldFigis(opts: { patient?: boolean; cachedOnly?: boolean } = {}): Promise<{ figis: string[]; notes: string[] }> {
    const figis = new Set<string>();
    const notes: string[] = [];
    const rows: Array<{ figi: string; ticker: string }> = await this.catalogue.db.query('SELECT figi, ticker FROM invest_local_positions');
    for (const r of rows) if (r.figi) figis.add(r.figi);
    const byTicker = await this.catalogue.rowsByTicker([...INVEST_SAMPLE.map((s) => s.ticker), ...rows.filter((r) => !r.figi && r.ticker).map((r) => r.ticker)]);
    for (const r of byTicker.values()) figis.add(r.figi);
    if (!this.broker.configured) return { figis: [...figis], notes };
    const addPortfolio = (p: { positions: Array<{ instrumentType: string; figi: string }> }) => {
      for (const pos of p.positions) if (pos.instrumentType.toLowerCase() === 'bond' && pos.figi) figis.add(pos.figi);
    };
    if (opts.cachedOnly) {
      for (const a of (await this.broker.peekAccounts())?.value ?? []) {
        const p = await this.broker.peekPortfolio(a.id);
        if (p) addPortfolio(p.value);
      }
      return { figis: [...figis], notes };
    }
    try {
      const accounts = await this.broker.accounts(opts);
      for (const a of accounts.value) {
        try {
          addPortfolio((await this.broker.portfolio(a.id, opts)).value);
        } catch (err) {
          notes.push(`Portfolio ${a.id}: ${(err as Error).message}`);
        }
      }
    } catch (err) {
      notes.push(`Accounts: ${(err as Error).message}`);
    }
    return { figis: [...figis], notes };
  }
}

