/**
 * The checking schedule of search positions (docs/position.md "Checking"), pure so the job, the unit
 * tests and bench/position.ts (a simulated day) share it:
 *
 * - Each query has a slot in its project's period (daily by default): an offset spread evenly over the
 *   period by a hash of its id, so a project's queries (and all projects') are checked across the day,
 *   not at midnight. After a good check the next is the query's slot in the following period.
 * - A failed check is tried again after RETRY_MS (at most the period), its last position kept stale.
 * - Each job tick (a minute) may spend a budget of requests that the service's quotas allow in that
 *   time (per second and per hour), with a margin; a query is started only when its worst case (one
 *   request per page down to its depth) fits in what is left, so a tick never spends more than its
 *   budget. The pacer (src/core/outside/pacer.ts) enforces the same quotas on the wire.
 */
import { POSITION_PAGE_SIZE } from '../../contracts/position.js';

export const TICK_MS = 60_000;
/** Part of the quota the scheduler plans to use (the rest is headroom for "check now" and retries). */
export const BUDGET_SHARE = 0.9;
/** A failed check is tried again after this long (or the project's period, when shorter). */
export const RETRY_MS = 30 * 60_000;
/** How long a claimed query is not taken by another check. */
export const CLAIM_MS = 10 * 60_000;

/** Requests the worst case of one check costs: one per page down to the depth. */
export const pagesFor = (depth: number, pageSize = POSITION_PAGE_SIZE) => Math.max(1, Math.ceil(depth / pageSize));

/** A well-spread offset of a query in its period (Knuth's multiplicative hash of the id). */
export function slotOffset(idQuery: number, periodMs: number): number {
  const h = Math.imul(idQuery >>> 0, 2654435761) >>> 0;
  return Math.floor((h / 2 ** 32) * periodMs);
}

/**
 * The query's next slot at least half a period after `now` (periods aligned on the epoch, i.e. UTC
 * midnight for a day): checked at its slot, the next is exactly one period later; checked off its slot
 * (new, "check now", a retry), it is not checked again within half a period.
 */
export function nextCheckAt(now: number, idQuery: number, periodHours: number): number {
  const period = periodHours * 3_600_000;
  let t = Math.floor(now / period) * period + slotOffset(idQuery, period);
  while (t <= now + period / 2) t += period;
  return t;
}

/** When a failed check is tried again. */
export const retryAt = (now: number, periodHours: number) => now + Math.min(RETRY_MS, periodHours * 3_600_000);

/** Requests a tick of `tickMs` may plan, from the quotas. */
export function tickBudget(limits: { perSecond: number; perHour: number }, tickMs = TICK_MS, share = BUDGET_SHARE): number {
  const bySecond = limits.perSecond * (tickMs / 1000);
  const byHour = limits.perHour * (tickMs / 3_600_000);
  return Math.max(1, Math.floor(Math.min(bySecond, byHour) * share));
}

/** The budget of one tick: a check reserves its worst case first, then gives back what it did not use. */
export class TickBudget {
  private reserved = 0;
  spent = 0;

  constructor(readonly total: number) {}

  /** Reserves `worst` requests when they fit; false when the tick is full. */
  reserve(worst: number): boolean {
    if (this.spent + this.reserved + worst > this.total) return false;
    this.reserved += worst;
    return true;
  }

  /** Settles a reservation: `used` requests were spent. */
  settle(worst: number, used: number): void {
    this.reserved -= worst;
    this.spent += Math.min(used, worst);
  }

  get left(): number {
    return this.total - this.spent - this.reserved;
  }
}

/**
 * Finds the domain in the results: pages 0, 1, ... of `pageSize` results until the depth, the end of
 * the results (a page shorter than pageSize) or a match. Position = page × pageSize + index + 1. Answers
 * the place (null: not in the top `depth`), the URL matched and the requests made.
 */
export async function findInPages(
  fetchPage: (page: number) => Promise<Array<{ url: string }>>,
  match: (url: string) => boolean,
  depth: number,
  pageSize = POSITION_PAGE_SIZE,
): Promise<{ pos: number | null; url: string; requests: number }> {
  const pages = pagesFor(depth, pageSize);
  let requests = 0;
  for (let page = 0; page < pages; page++) {
    const docs = await fetchPage(page);
    requests++;
    for (const [i, d] of docs.entries()) {
      const pos = page * pageSize + i + 1;
      if (pos > depth) break;
      if (match(d.url)) return { pos, url: d.url, requests };
    }
    if (docs.length < pageSize) break;
  }
  return { pos: null, url: '', requests };
}

/** The local day (the process's TZ) of a time, YYYY-MM-DD. */
export function dayOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The day `n` days before `ms`'s day. */
export function dayMinus(ms: number, n: number): string {
  const d = new Date(ms);
  d.setDate(d.getDate() - n);
  return dayOf(d.getTime());
}
