/**
 * The investment pattern channel (001 §7 "Also an investment pattern channel"; issue 22; docs/invest.md
 * "Live updates"): an open investment page subscribes (`invest.subscribe {figis?, all?}`) and receives
 * `invest.update {sid, prices, coupons, at}` when the jobs refresh prices or coupon schedules of the
 * bonds it shows, so it follows without a reload.
 *
 * Each subscription is a LiveChannel (src/core/realtime/live-channels.ts: role-checked on every send,
 * ended by a role change, a disconnect or `invest.unsubscribe`). The database is the bus: the jobs run
 * on one instance (under a lease) and write `ts_update_price` / `ts_change_coupon` on the rows that
 * changed; every instance with open subscriptions reads the rows past its watermark every
 * LIVE_POLL_MS (one indexed query, only while someone listens) and pushes them to its own sockets.
 * The instance that refreshed pushes at once (`kick`). So it works on one instance, on several, with
 * Redis or without.
 */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io';
import type { InvestSubscribeAnswer, InvestSubscribeArgs, InvestUpdateEvent } from '../../../contracts/invest.js';
import { Role } from '../../../contracts/roles.js';
import { tooMany } from '../../../core/errors.js';
import { LiveChannels, type LiveChannel } from '../../../core/realtime/live-channels.js';
import { dec, HUNDRED, num, numOrNull } from '../calc/decimal.js';
import { InvestCatalogueService } from './catalogue.service.js';

/** How often an instance with subscribers looks for refreshed rows. */
export const LIVE_POLL_MS = 5_000;
/** Subscriptions per socket at most (a page holds one; a few tabs' worth of pages). */
const MAX_PER_SOCKET = 8;
/** Rows one poll pushes at most (the rest with the next). */
const MAX_ROWS = 5_000;
/**
 * Rows are read from this far behind the watermark, and those already pushed (figi and time) skipped:
 * a write committed after a poll with a time at or below what that poll saw (two writes of one
 * millisecond, an instance whose clock is behind) is still pushed once.
 */
const SLACK_MS = 60_000;

interface Sub {
  sid: string;
  channel: LiveChannel;
  /** null: every bond (the screener). */
  figis: Set<string> | null;
}

type Row = Record<string, unknown>;
const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

@Injectable()
export class InvestLiveService implements OnModuleDestroy {
  private readonly log = new Logger('InvestLive');
  private readonly subs = new Map<string, Sub>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private again = false;
  /** The newest ts_update_price / ts_change_coupon this instance has pushed (null: not read yet). */
  private mark: { price: number; coupon: number } | null = null;
  /** What was pushed within the slack: figi -> the row time pushed. */
  private readonly sentPrice = new Map<string, number>();
  private readonly sentCoupon = new Map<string, number>();

  constructor(private readonly channels: LiveChannels, private readonly catalogue: InvestCatalogueService) {}

  /** Opens a subscription on this socket; answers its sid. */
  async subscribe(socket: Socket, args: InvestSubscribeArgs): Promise<InvestSubscribeAnswer> {
    const mine = [...this.subs.values()].filter((s) => s.channel.socket === socket);
    if (mine.length >= MAX_PER_SOCKET) throw tooMany(`At most ${MAX_PER_SOCKET} investment pages follow updates at once on one connection`);
    if (!this.mark) this.mark = await this.currentMark();
    const sid = randomUUID();
    const channel = this.channels.open(socket, { kind: 'invest', minRole: Role.user, onEnd: () => this.drop(sid) });
    this.subs.set(sid, { sid, channel, figis: args.all || !args.figis ? null : new Set(args.figis) });
    this.timer ??= setInterval(() => this.kick(), LIVE_POLL_MS).unref();
    return { sid };
  }

  /** Ends a subscription of this socket (a page closed). */
  unsubscribe(socket: Socket, sid: string): { stopped: boolean } {
    const s = this.subs.get(sid);
    if (!s || s.channel.socket !== socket) return { stopped: false };
    s.channel.end();
    return { stopped: true };
  }

  private drop(sid: string) {
    this.subs.delete(sid);
    if (!this.subs.size && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.mark = null; // read afresh by the next subscription: nothing old is replayed
      this.sentPrice.clear();
      this.sentCoupon.clear();
    }
  }

  /** Open subscriptions on this instance (tests, status). */
  get count(): number {
    return this.subs.size;
  }

  /** Looks for refreshed rows now (after a refresh on this instance, and on the timer). */
  kick(): Promise<void> {
    if (!this.subs.size) return Promise.resolve();
    if (this.polling) {
      this.again = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.again = false;
        try {
          await this.poll();
        } catch (err) {
          this.log.warn(`poll: ${(err as Error).message}`);
        }
      } while (this.again && this.subs.size);
    })().finally(() => { this.polling = null; });
    return this.polling;
  }

  private async currentMark(): Promise<{ price: number; coupon: number }> {
    const [r] = (await this.catalogue.db.query('SELECT MAX(ts_update_price) AS p, MAX(ts_change_coupon) AS c FROM invest_bonds')) as Row[];
    const mark = { price: n(r?.p) ?? 0, coupon: n(r?.c) ?? 0 };
    // what is already there counts as pushed: a new page reads it with its first call
    const recent = (await this.catalogue.db.query('SELECT figi, ts_update_price, ts_change_coupon FROM invest_bonds WHERE ts_update_price > ? OR ts_change_coupon > ?', [mark.price - SLACK_MS, mark.coupon - SLACK_MS])) as Row[];
    for (const x of recent) {
      if (n(x.ts_update_price)) this.sentPrice.set(String(x.figi), n(x.ts_update_price)!);
      if (n(x.ts_change_coupon)) this.sentCoupon.set(String(x.figi), n(x.ts_change_coupon)!);
    }
    return mark;
  }

  private async poll(): Promise<void> {
    if (!this.mark) this.mark = await this.currentMark();
    const { price, coupon } = this.mark;
    const rows = (await this.catalogue.db.query(
      `SELECT figi, nominal, last_price, coupon_percent, ytm, ts_update_price, ts_change_coupon FROM invest_bonds
       WHERE ts_update_price > ? OR ts_change_coupon > ? ORDER BY figi LIMIT ${MAX_ROWS}`,
      [price - SLACK_MS, coupon - SLACK_MS],
    )) as Row[];
    if (!rows.length) return;
    const isNew = (sent: Map<string, number>, figi: string, ts: number, mark: number) => ts > mark || (ts > mark - SLACK_MS && (sent.get(figi) ?? -1) < ts);
    let maxPrice = price;
    let maxCoupon = coupon;
    const prices: InvestUpdateEvent['prices'] = [];
    const coupons: string[] = [];
    for (const r of rows) {
      const figi = String(r.figi);
      const tp = n(r.ts_update_price) ?? 0;
      const tc = n(r.ts_change_coupon) ?? 0;
      if (isNew(this.sentPrice, figi, tp, price) && tp > 0) {
        this.sentPrice.set(figi, tp);
        const points = dec(r.last_price as string | null);
        const nominal = dec(r.nominal as string | null);
        prices.push({
          figi,
          lastPrice: numOrNull(points),
          price: points && nominal ? num(points.dividedBy(HUNDRED).times(nominal), 2) : null,
          diff_percent: points ? num(points.minus(HUNDRED), 4) : null,
          ytm: n(r.ytm),
          coupon_percent: n(r.coupon_percent),
          ts_update_price: tp,
        });
        maxPrice = Math.max(maxPrice, tp);
      }
      if (isNew(this.sentCoupon, figi, tc, coupon) && tc > 0) {
        this.sentCoupon.set(figi, tc);
        coupons.push(figi);
        maxCoupon = Math.max(maxCoupon, tc);
      }
    }
    this.mark = { price: maxPrice, coupon: maxCoupon };
    for (const [sent, mark] of [[this.sentPrice, maxPrice], [this.sentCoupon, maxCoupon]] as const) {
      for (const [figi, ts] of sent) if (ts <= mark - SLACK_MS) sent.delete(figi);
    }
    const at = Date.now();
    for (const s of [...this.subs.values()]) {
      const p = s.figis ? prices.filter((x) => s.figis!.has(x.figi)) : prices;
      const c = s.figis ? coupons.filter((x) => s.figis!.has(x)) : coupons;
      if (!p.length && !c.length) continue;
      const channel = s.channel;
      channel.emit('invest.update', { sid: s.sid, prices: p, coupons: c, at });
    }
  }

  onModuleDestroy() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const s of [...this.subs.values()]) s.channel.end();
  }
}
