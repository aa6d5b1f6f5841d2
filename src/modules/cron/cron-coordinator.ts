import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';

/** A control message between instances (Redis pub/sub). */
export type CronControl =
  | { type: 'reload'; from: string }
  | { type: 'kill'; from: string; Id: number }
  | { type: 'service'; from: string; service: 0 | 1 };

/** Who runs a task right now, as kept in Redis while it runs. */
export interface RunningMark {
  instance: string;
  run: string;
  started: number;
}

type Client = ReturnType<typeof createClient>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Deletes / extends a key only while it still holds our value. */
const DEL_IF_OURS = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const EXTEND_IF_OURS = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

/** How long a tick's claim lives (it only has to outlive the clock skew between instances). */
const TICK_CLAIM_MS = 60_000;
/** A running mark expires unless refreshed: a crashed instance does not block its tasks for long. */
export const RUNNING_MARK_MS = 30_000;

/**
 * Coordination of the cron engine across instances. Without REDIS_URL one instance is assumed and
 * every method answers locally. With it:
 * - each tick of a task is claimed with `SET {ns}:tick:{Id}:{scheduled} NX PX`: one instance runs it;
 * - a running task holds `{ns}:run:{Id}` (refreshed while it runs), so no instance starts it twice;
 * - kill, reload and the service switch are published on `{ns}:ctl` so every instance applies them.
 * `ns` is a random name stored in the database, so instances sharing a database share their locks
 * and separate databases (test runs) never meet on one Redis.
 */
export class CronCoordinator {
  readonly instance = randomUUID().slice(0, 8);
  private readonly log = new Logger('CronLock');
  private client?: Client;
  private sub?: Client;
  private ns = '';

  get distributed(): boolean {
    return !!this.client;
  }

  async start(redisUrl: string | undefined, ns: string, onControl: (m: CronControl) => void): Promise<void> {
    this.ns = `cron:${ns}`;
    if (!redisUrl) return;
    const client: Client = createClient({ url: redisUrl });
    const sub: Client = client.duplicate();
    for (const c of [client, sub]) c.on('error', (err: Error) => this.log.warn(`Redis: ${err.message}`));
    await Promise.all([client.connect(), sub.connect()]);
    await sub.subscribe(`${this.ns}:ctl`, (raw) => {
      try {
        const m = JSON.parse(raw) as CronControl;
        if (m.from !== this.instance) onControl(m);
      } catch (err) {
        this.log.warn(`bad control message: ${(err as Error).message}`);
      }
    });
    this.client = client;
    this.sub = sub;
    this.log.log(`cron ticks are claimed in Redis (${this.ns}, instance ${this.instance})`);
  }

  /** True when this instance runs the tick of `Id` scheduled at `scheduledMs` (always true without Redis). */
  async claimTick(Id: number, scheduledMs: number): Promise<boolean> {
    if (!this.client) return true;
    const r = await this.client.set(`${this.ns}:tick:${Id}:${scheduledMs}`, this.instance, { condition: 'NX', expiration: { type: 'PX', value: TICK_CLAIM_MS } });
    return r === 'OK';
  }

  /** Marks `Id` as running here; false when another instance runs it. */
  async markRunning(Id: number, mark: RunningMark): Promise<boolean> {
    if (!this.client) return true;
    const r = await this.client.set(this.runKey(Id), JSON.stringify(mark), { condition: 'NX', expiration: { type: 'PX', value: RUNNING_MARK_MS } });
    return r === 'OK';
  }

  async refreshRunning(Id: number, mark: RunningMark): Promise<void> {
    if (!this.client) return;
    await this.client.eval(EXTEND_IF_OURS, { keys: [this.runKey(Id)], arguments: [JSON.stringify(mark), String(RUNNING_MARK_MS)] });
  }

  async clearRunning(Id: number, mark: RunningMark): Promise<void> {
    if (!this.client) return;
    await this.client.eval(DEL_IF_OURS, { keys: [this.runKey(Id)], arguments: [JSON.stringify(mark)] });
  }

  /** Tasks running on any instance (Redis only; empty without it). */
  async runningMarks(ids: number[]): Promise<Map<number, RunningMark>> {
    const out = new Map<number, RunningMark>();
    if (!this.client || ids.length === 0) return out;
    const values = await this.client.mGet(ids.map((Id) => this.runKey(Id)));
    values.forEach((v, i) => {
      if (typeof v === 'string') {
        try { out.set(ids[i], JSON.parse(v) as RunningMark); } catch { /* not ours */ }
      }
    });
    return out;
  }

  async publish(m: DistributiveOmit<CronControl, 'from'>): Promise<void> {
    if (!this.client) return;
    await this.client.publish(`${this.ns}:ctl`, JSON.stringify({ ...m, from: this.instance }));
  }

  async close(): Promise<void> {
    const clients = [this.sub, this.client].filter((c): c is Client => !!c);
    this.client = this.sub = undefined;
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  }

  private runKey(Id: number) {
    return `${this.ns}:run:${Id}`;
  }
}
