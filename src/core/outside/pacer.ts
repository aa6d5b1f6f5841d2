/**
 * The pacer of outside-service clients (docs/architecture.md "Outside services"): each client declares
 * its service's limits (calls at once, per second, minute, hour, day) and runs every call through
 * `run(lane, fn)`, one lane per token (or per node, per server): calls wait in order until the lane has
 * room in every window. Windows are sliding (the start times of the calls in the last window are
 * kept), so no window ever holds more calls than declared. A call whose wait would pass `maxWaitMs` is
 * refused at once with reason `rate` (a day's quota spent is not waited out on a screen).
 *
 * Per instance: with several instances, quota-spending calls belong in jobs under a lease (DESIGN.md),
 * and screens read the answer cache.
 */
import { createHash } from 'node:crypto';
import { cancelled, OutsideError } from './outside-error.js';

export interface PaceLimits {
  /** Calls running at once. */
  concurrent?: number;
  perSecond?: number;
  perMinute?: number;
  perHour?: number;
  perDay?: number;
  /** Longest wait for a turn before the call is refused (`rate`); default a minute. */
  maxWaitMs?: number;
}

const WINDOWS: Array<[keyof PaceLimits, number]> = [['perSecond', 1000], ['perMinute', 60_000], ['perHour', 3_600_000], ['perDay', 86_400_000]];

/** A lane name for a token that never keeps the token itself (a short digest). */
export const laneOf = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 16);

interface Waiter {
  go: (at: number) => void;
  fail: (e: Error) => void;
}

class Lane {
  active = 0;
  /** Start times of the calls in the longest window, oldest first. */
  readonly starts: number[] = [];
  readonly queue: Waiter[] = [];
  timer: NodeJS.Timeout | null = null;

  constructor(private readonly limits: PaceLimits, private readonly windows: Array<[number, number]>, private readonly longest: number) {}

  /** Milliseconds until every window has room for one more call (0: now). */
  waitMs(now: number): number {
    while (this.starts.length && this.starts[0] <= now - this.longest) this.starts.shift();
    let wait = 0;
    for (const [n, ms] of this.windows) {
      // the calls within (now - ms, now]; the n-th most recent must leave the window first
      let inWindow = 0;
      for (let i = this.starts.length - 1; i >= 0 && this.starts[i] > now - ms; i--) inWindow++;
      if (inWindow >= n) wait = Math.max(wait, this.starts[this.starts.length - n] + ms - now);
    }
    return wait;
  }

  pump = () => {
    this.timer = null;
    while (this.queue.length) {
      if (this.limits.concurrent && this.active >= this.limits.concurrent) return; // release() pumps again
      const now = performance.now();
      const wait = this.waitMs(now);
      if (wait > 0) {
        this.timer = setTimeout(this.pump, wait);
        return;
      }
      this.active++;
      if (this.windows.length) this.starts.push(now);
      this.queue.shift()!.go(now);
    }
  };
}

export class Pacer {
  private readonly lanes = new Map<string, Lane>();
  private readonly windows: Array<[number, number]>;
  private readonly longest: number;

  constructor(readonly service: string, readonly limits: PaceLimits) {
    this.windows = WINDOWS.filter(([k]) => limits[k]).map(([k, ms]) => [limits[k] as number, ms]);
    this.longest = Math.max(0, ...this.windows.map(([, ms]) => ms));
  }

  private lane(name: string): Lane {
    let l = this.lanes.get(name);
    if (!l) this.lanes.set(name, (l = new Lane(this.limits, this.windows, this.longest)));
    return l;
  }

  /**
   * Runs `fn` when the lane has room; the caller's `signal` takes it out of the queue. `fn` gets the
   * moment its turn was given (performance.now(): the pacer's clock is monotonic, a wall-clock step
   * neither bunches calls nor holds them).
   */
  async run<T>(laneName: string, fn: (startedAt: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const lane = this.lane(laneName);
    const maxWait = this.limits.maxWaitMs ?? 60_000;
    // A turn further away than maxWait (the windows are full for that long): refused now, not queued.
    const ahead = lane.waitMs(performance.now());
    if (ahead > maxWait && lane.queue.length === 0) {
      throw new OutsideError(this.service, 'rate', `${this.service}: the declared limit is reached; the next call is possible in ${Math.ceil(ahead / 1000)} s`, { retryAfterMs: ahead, retryable: false });
    }
    const startedAt = await new Promise<number>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const w: Waiter = {
        go: (at) => { done(); resolve(at); },
        fail: (e) => { done(); reject(e); },
      };
      const onAbort = () => { remove(); w.fail(cancelled(this.service)); };
      const remove = () => {
        const i = lane.queue.indexOf(w);
        if (i >= 0) lane.queue.splice(i, 1);
        // nobody waits any more: no timer is left behind (it would hold the process up to a window)
        if (!lane.queue.length && lane.timer) { clearTimeout(lane.timer); lane.timer = null; }
      };
      const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
      if (signal?.aborted) return reject(cancelled(this.service));
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => { remove(); w.fail(new OutsideError(this.service, 'rate', `${this.service}: no turn within ${maxWait / 1000} s (declared limits)`, { retryable: false })); }, maxWait);
      lane.queue.push(w);
      if (!lane.timer) lane.pump();
    });
    try {
      return await fn(startedAt);
    } finally {
      lane.active--;
      if (!lane.timer) lane.pump();
      if (lane.active === 0 && lane.queue.length === 0 && !lane.timer && lane.starts.length === 0) this.lanes.delete(laneName);
    }
  }

  /** Calls running and waiting in a lane (tests, status). */
  load(laneName: string): { active: number; waiting: number } {
    const l = this.lanes.get(laneName);
    return { active: l?.active ?? 0, waiting: l?.queue.length ?? 0 };
  }
}
