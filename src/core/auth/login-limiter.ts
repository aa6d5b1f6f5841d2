import { LOGIN_FAILURE_WINDOW_MS, LOGIN_FAILURES_PER_IP, LOGIN_FAILURES_PER_LOGIN } from '../../contracts/constants.js';

/**
 * Counts failed sign-ins per address and per login in a sliding window; past the limit further
 * attempts are refused (429) until the window passes. In memory: each instance counts its own.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly perLogin = LOGIN_FAILURES_PER_LOGIN,
    private readonly perIp = LOGIN_FAILURES_PER_IP,
    private readonly windowMs = LOGIN_FAILURE_WINDOW_MS,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until another attempt is allowed, or 0 when allowed now. */
  blockedFor(ip: string, login: string, now = Date.now()): number {
    const checks: Array<[string, number]> = [[`ip:${ip}`, this.perIp], [`login:${login.toLowerCase()}`, this.perLogin]];
    let wait = 0;
    for (const [key, limit] of checks) {
      const list = this.recent(key, now);
      if (list.length >= limit) wait = Math.max(wait, Math.ceil((list[list.length - limit] + this.windowMs - now) / 1000));
    }
    return wait;
  }

  fail(ip: string, login: string, now = Date.now()) {
    for (const key of [`ip:${ip}`, `login:${login.toLowerCase()}`]) this.failures.set(key, [...this.recent(key, now), now]);
  }

  succeed(login: string) {
    this.failures.delete(`login:${login.toLowerCase()}`);
  }
}
