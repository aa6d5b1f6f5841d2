/**
 * item.getChartBrain (001 §3 item chart data: time, price, price_output, price_brain; §7: offset 5000,
 * step 12; docs/wb.md "The forecast"): a card's price history from the tables with a brain.js
 * forecast beside it, trained in a worker thread (price-brain.ts). A trained answer is kept per card,
 * offset, step and data version (the last sync), so the chart reopens at once; one training per key at a time.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOT_CONFIGURED, type NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import { WB_BRAIN_HORIZON, WB_BRAIN_OFFSET, WB_BRAIN_STEP, WB_MSG, WbBrainInput, wbAddDays, type WbBrain, type WbBrainArgs, type WbBrainPoint } from '../../../contracts/wb.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { WbReportService } from '../report/wb-report.service.js';
import { WbSyncService } from '../sync/wb-sync.service.js';
import { continuous, enoughHistory, runPriceBrain, type PricePoint } from './price-brain.js';

/** Trained answers kept (the least recently used go first). */
const KEEP = 50;
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
const r2 = (v: number) => Math.round(v * 100) / 100;

@Injectable()
export class WbBrainService {
  private readonly kept = new Map<string, Promise<WbBrain>>();

  constructor(@InjectDataSource() private readonly db: DataSource, private readonly sync: WbSyncService, private readonly report: WbReportService) {}

  @Rpc('item.getChartBrain', {
    role: Role.user,
    input: WbBrainInput,
    summary: "{nmID, offset? (5000: days of history read), step? (12: days of input per prediction)}: the card's daily price history with a brain.js forecast of its paid price (trained in a worker thread): {list: [{time, price, price_output, price_brain}], model: {samples, held_out, mae, mape, naive_mae, ...} | null, message?}",
  })
  async getChartBrain(args: WbBrainArgs): Promise<WbBrain | NotConfigured> {
    if (!this.sync.configured) return NOT_CONFIGURED;
    await this.report.cardTitle(args.nmID); // 404 for an unknown card
    const offset = args.offset ?? WB_BRAIN_OFFSET;
    const step = args.step ?? WB_BRAIN_STEP;
    const key = `${args.nmID}:${offset}:${step}:${await this.sync.version()}`;
    let p = this.kept.get(key);
    if (p) {
      this.kept.delete(key);
      this.kept.set(key, p);
      return p;
    }
    p = this.compute(args.nmID, offset, step);
    this.kept.set(key, p);
    p.catch(() => this.kept.delete(key));
    while (this.kept.size > KEEP) this.kept.delete(this.kept.keys().next().value!);
    return p;
  }

  private async compute(nmID: number, offset: number, step: number): Promise<WbBrain> {
    const rows = (await this.db.query(
      'SELECT day, sales, price_sum, sales_sum FROM wb_daily WHERE nm_id = ? AND sales > 0 ORDER BY day DESC LIMIT ?',
      [nmID, offset],
    )) as Array<{ day: string; sales: string | number; price_sum: string | number; sales_sum: string | number }>;
    const points: PricePoint[] = rows.map((r) => {
      const n = Number(r.sales);
      return { day: String(r.day), price: Math.round(Number(r.price_sum) / n) / 100, paid: Math.round(Number(r.sales_sum) / n) / 100 };
    });
    const s = continuous(points);
    const base: WbBrainPoint[] = s.days.map((d, i) => ({ time: dayMs(d), price: s.price[i], price_output: s.paid[i], price_brain: null }));
    if (!enoughHistory(s.values.length, step)) return { configured: true, nmID, offset, step, list: base, model: null, message: WB_MSG.notEnoughHistory };
    const run = await runPriceBrain(s.values, step, WB_BRAIN_HORIZON);
    const list = base.map((p, i) => ({ ...p, price_brain: run.predicted[i] === null ? null : r2(run.predicted[i]!) }));
    const last = s.days[s.days.length - 1];
    run.forecast.forEach((v, h) => list.push({ time: dayMs(wbAddDays(last, h + 1)), price: null, price_output: null, price_brain: r2(v) }));
    return {
      configured: true, nmID, offset, step, list,
      model: { samples: run.samples, held_out: run.held_out, mae: r2(run.mae), mape: r2(run.mape), naive_mae: r2(run.naive_mae), iterations: run.iterations, train_error: run.train_error, duration_ms: run.duration_ms },
    };
  }
}
