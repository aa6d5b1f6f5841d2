/**
 * The broker's reads a screen shows (accounts, a portfolio), through the answer cache (table
 * outside_cache): 600 s fresh (001 §9), in the database so a restart or a second instance does not
 * refetch; one call per key at a time; a failed refresh answers the last good data marked stale with
 * its time and the error. The call is shared, so one caller going away does not cancel it for the
 * others (the caller's signal only stops its own wait). Keys carry the token's digest (never the token): another token reads anew.
 */
import { Injectable } from '@nestjs/common';
import { INVEST_CACHE_TTL_S } from '../../../contracts/invest.js';
import { AnswerCache, type Cached } from '../../../core/outside/answer-cache.js';
import { TBANK_SERVICE, TbankClient, type TbankCallOptions } from '../../../core/outside/tbank.client.js';
import type { TbankAccount, TbankPortfolio } from '../../../core/outside/tbank.wire.js';

export const INVEST_CACHE_POLICY = { ttlMs: INVEST_CACHE_TTL_S * 1000, maxEntries: 1000 };

@Injectable()
export class InvestBrokerService {
  constructor(private readonly client: TbankClient, private readonly cache: AnswerCache) {}

  get configured(): boolean {
    return this.client.configured;
  }

  private key(what: string): string {
    return `${this.client.lane}:${what}`;
  }

  accounts(opts: TbankCallOptions = {}): Promise<Cached<TbankAccount[]>> {
    return this.cache.read(TBANK_SERVICE, this.key('accounts'), INVEST_CACHE_POLICY, () => this.client.getAccounts({ patient: opts.patient }), { signal: opts.signal });
  }

  /** What the cache holds, fresh or not, without calling the broker (null: nothing yet). */
  peekAccounts(): Promise<Cached<TbankAccount[]> | null> {
    return this.cache.peek(TBANK_SERVICE, this.key('accounts'));
  }

  peekPortfolio(accountId: string): Promise<Cached<TbankPortfolio> | null> {
    return this.cache.peek(TBANK_SERVICE, this.key(`portfolio:${accountId}`));
  }

  portfolio(accountId: string, opts: TbankCallOptions = {}): Promise<Cached<TbankPortfolio>> {
    return this.cache.read(TBANK_SERVICE, this.key(`portfolio:${accountId}`), INVEST_CACHE_POLICY, () => this.client.getPortfolio(accountId, { patient: opts.patient }), { signal: opts.signal });
  }
}
