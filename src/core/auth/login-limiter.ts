import {
  LOGIN_FAILURE_WINDOW_MS, LOGIN_FAILURES_PER_IP, LOGIN_FAILURES_PER_LOGIN, LOGIN_FAILURES_SLOW_LOGIN, REGISTRATION_WINDOW_MS, REGISTRATIONS_PER_IP,
} from '../../contracts/constants.js';

/** Above this many keys the windows are swept of expired entries (memory stays bounded under a spray of addresses). */
const SWEEP_AT = 10_000;

/**
 * Event times per key in a sliding window. In memory: each instance counts its own
 * (docs/operations.md).
 */
export class SlidingWindow {
  private readonly events = new Map<string, number[]>();
  private sweepAt = SWEEP_AT;

  constructor(private readonly windowMs: number) {}

  /** The times of the key's events still inside the window. */
  recent(key: string, now = Date.now()): number[] {
    const all = this.events.get(key);
    if (!all) return [];
    const list = all.filter((t) => now - t < this.windowMs);
    if (list.length) this.events.set(key, list);
    else this.events.delete(key);
    return list;
  }

  count(key: string, now = Date.now()): number {
    return this.recent(key, now).length;
  }

  /** Seconds until the key has fewer than `limit` events in the window (0: already has). */
  waitFor(key: string, limit: number, now = Date.now()): number {
    const list = this.recent(key, now);
    if (list.length < limit) return 0;
    return Math.max(1, Math.ceil((list[list.length - limit] + this.windowMs - now) / 1000));
  }

  add(key: string, now = Date.now()) {
    if (this.events.size >= this.sweepAt) {
      this.sweep(now);
      this.sweepAt = Math.max(SWEEP_AT, this.events.size * 2);
    }
    this.events.set(key, [...this.recent(key, now), now]);
  }

  delete(key: string) {
    this.events.delete(key);
  }

  get size() {
    return this.events.size;
  }

  private sweep(now: number) {
    for (const key of [...this.events.keys()]) this.recent(key, now);
  }
}

/**
 * Failed sign-ins (docs/architecture.md, Security). Counted per login and address together, per
 * address alone, and per login over every address:
 * - a login from one address: LOGIN_FAILURES_PER_LOGIN failures, then that address is refused (429)
 *   for that login until the window passes; the right password from another address still signs in,
 *   so nobody can lock another user (the admin included) out;
 * - an address: LOGIN_FAILURES_PER_IP failures over any logins, then it is refused for every login;
 * - a login from everywhere: past LOGIN_FAILURES_SLOW_LOGIN failures (a guess spread over many
 *   addresses), each address gets one failure for that login per window instead of five. This slows
 *   the guess and never refuses an address that has not failed.
 * A refused attempt is not verified and not counted; a success clears its own (login, address) count only.
 */
export class LoginLimiter {
  private readonly failures: SlidingWindow;

  constructor(
    private readonly perLogin = LOGIN_FAILURES_PER_LOGIN,
    private readonly perIp = LOGIN_FAILURES_PER_IP,
    readonly windowMs = LOGIN_FAILURE_WINDOW_MS,
    private readonly slowLogin = LOGIN_FAILURES_SLOW_LOGIN,
  ) {
    this.failures = new SlidingWindow(windowMs);
  }

  private static keys(ip: string, login: string) {
    const l = login.toLowerCase();
    return { pair: `pair:${l}\n${ip}`, ip: `ip:${ip}`, login: `login:${l}` };
  }

  /** Seconds until this address may try this login again, or 0 when it may now. */
  blockedFor(ip: string, login: string, now = Date.now()): number {
    const k = LoginLimiter.keys(ip, login);
    const slow = this.failures.count(k.login, now) >= this.slowLogin;
    return Math.max(
      this.failures.waitFor(k.pair, slow ? 1 : this.perLogin, now),
      this.failures.waitFor(k.ip, this.perIp, now),
    );
  }

  fail(ip: string, login: string, now = Date.now()) {
    const k = LoginLimiter.keys(ip, login);
    for (const key of [k.pair, k.ip, k.login]) this.failures.add(key, now);
  }

  succeed(ip: string, login: string) {
    this.failures.delete(LoginLimiter.keys(ip, login).pair);
  }
}

/** Registrations per address: REGISTRATIONS_PER_IP in REGISTRATION_WINDOW_MS, then 429 with the wait. */
export class RegistrationLimiter {
  private readonly attempts: SlidingWindow;

  constructor(private readonly perIp = REGISTRATIONS_PER_IP, windowMs = REGISTRATION_WINDOW_MS) {
    this.attempts = new SlidingWindow(windowMs);
  }

  /** Counts an attempt from the address: 0 when allowed, else the seconds to wait (the attempt is then not counted). */
  take(ip: string, now = Date.now()): number {
    const wait = this.attempts.waitFor(ip, this.perIp, now);
    if (wait === 0) this.attempts.add(ip, now);
    return wait;
  }
}
