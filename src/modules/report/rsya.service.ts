/**
 * Partner totals (001 §3 "Partner totals: list of numbers", §6 "Partner totals are fetched only for
 * role 1", §7 yandex.getTotalRsy; docs/report.md "Partner totals"): partner_wo_nds per day from the
 * Yandex partner statistics API, through the answer cache (600 s; the last good answer marked stale
 * with its time when the service fails). Role 1 only, enforced here (the @Rpc role).
 */
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { NOT_CONFIGURED, type NotConfigured } from '../../contracts/outside.js';
import { REPORT_CACHE_TTL_MS, RsyaArgs, type RsyaTotals } from '../../contracts/report.js';
import { Role } from '../../contracts/roles.js';
import { AnswerCache } from '../../core/outside/answer-cache.js';
import { RsyaClient, RSYA_SERVICE } from '../../core/outside/rsya.client.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';

@Injectable()
export class RsyaService {
  constructor(private readonly client: RsyaClient, private readonly cache: AnswerCache) {}

  @Rpc('yandex.getTotalRsy', {
    role: Role.admin, input: RsyaArgs,
    summary: '{date1, date2} (yyyy-MM-dd, at most 366 days): partner totals from the Yandex partner statistics API (partner_wo_nds by day, cached 600 s): {configured, date1, date2, total, list: [numbers], points: [{date, value}], fetched, cached, stale, error?}; {configured: false} without RSYA_TOKEN',
  })
  async totals(a: z.output<typeof RsyaArgs>, ctx: RpcContext): Promise<RsyaTotals | NotConfigured> {
    if (!this.client.configured) return NOT_CONFIGURED;
    const r = await this.cache.read(RSYA_SERVICE, `${a.date1}|${a.date2}`, { ttlMs: REPORT_CACHE_TTL_MS }, () => this.client.partnerByDay(a.date1, a.date2, ctx.signal), { signal: ctx.signal });
    const points = r.value;
    const total = Math.round(points.reduce((s, p) => s + p.value, 0) * 100) / 100;
    return {
      configured: true, date1: a.date1, date2: a.date2, total, list: points.map((p) => p.value), points,
      fetched: r.fetched, cached: r.cached, stale: r.stale, ...(r.error ? { error: r.error } : {}),
    };
  }
}
