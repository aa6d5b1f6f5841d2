import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { closeRedis, connectRedis, createRedisClient, type RedisClient } from '../../core/redis/redis-client.js';
import { RedisWatch } from '../../core/redis/redis-watch.js';

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
  /** The tick it runs (epoch ms), null for a run now: an interrupted run is recorded with it. */
  scheduled: number | null;
}

/** What `markRunning` found: ours now (perhaps taken over from an instance that stopped), or held by a live instance. */
export type MarkResult = { ok: true; interrupted?: RunningMark } | { ok: false; holder: RunningMark | null };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Deletes / extends a key only while it still holds our value. */
const DEL_IF_OURS = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const EXTEND_IF_OURS = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
/**
 * Takes the running mark of a task unless a live instance holds it. KEYS[1] the mark; ARGV: our mark,
 * the alive-key prefix, the mark's TTL, our instance. Answers {1} taken, {0, mark} held by a live
 * instance, {2, mark} taken over from an instance whose heartbeat stopped (its run was interrupted),
 * {3, mark} a stale mark of our own (a clear that never reached Redis).
 */
const TAKE_MARK = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, m = pcall(cjson.decode, cur)
  if ok and type(m) == 'table' and m.instance then
    if m.instance ~= ARGV[4] and redis.call('EXISTS', ARGV[2] .. m.instance) == 1 then return {0, cur} end
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
    if m.instance == ARGV[4] then return {3, cur} end
    return {2, cur}
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return {1, ''}`;

/** How long a tick's claim lives (it only has to outlive the clock skew between instances). */
const TICK_CLAIM_MS = 60_000;
/** Each instance beats this often... */
export const HEARTBEAT_MS = 1000;
/** ...and counts as stopped (its running marks void) once no beat arrived for this long. */
export const ALIVE_MS = 3000;
/** A running mark's own TTL, refreshed while the run goes on: only a bound for marks nobody looks at again. */
export const RUNNING_MARK_MS = 3_600_000;
const MARK_REFRESH_MS = 600_000;

/**
 * Coordination of the cron engine across instances. Without REDIS_URL one instance is assumed and
 * every method answers locally. With it (docs/cron.md "Several instances"):
 * - each tick of a task is claimed with `SET {ns}:tick:{Id}:{scheduled} NX PX`: one instance runs it;
 * - each instance beats `{ns}:alive:{instance}` every second (PX 3 s);
 * - a running task holds `{ns}:run:{Id}` = {instance, run, started}; a mark whose instance stopped
 *   beating is void: the next tick takes it over and the engine records the old run as interrupted;
 * - kill, reload and the service switch are published on `{ns}:ctl` so every instance applies them; a
 *   publish that failed (Redis down) is replaced by a reload sent once Redis is back, and an instance
 *   whose subscriber was away reloads itself (it may have missed one).
 * Every command fails at once while Redis is down, or after REDIS_COMMAND_TIMEOUT_MS (core/redis/redis-client.ts):
 * the engine then leaves the tick to an instance that reaches Redis, or (when none does) decides it
 * with the database lease (cron-engine.ts). `ns` is a random name
 * stored in the database, so instances sharing a database share their locks and separate databases
 * (test runs) never meet on one Redis.
 */
export class CronCoordinator {
  readonly instance = randomUUID().slice(0, 8);
  private readonly log = new Logger('CronLock');
  private client?: RedisClient;
  private sub?: RedisClient;
  private watch?: RedisWatch;
  private beat?: ReturnType<typeof setInterval>;
  private ns = '';
  private reloadOwed = false;
  private subWasDown = false;
  private onBeat?: () => void;

  get distributed(): boolean {
    return !!this.client;
  }

  /** Redis answers now (the last command or beat did not fail). */
  get reachable(): boolean {
    return !!this.client?.isReady;
  }

  /**
   * Connects (waiting at most a couple of seconds: without Redis the instance starts and keeps trying).
   * `onControl` gets the other instances' messages; `onResync` is called when the subscriber is back
   * after an outage (messages may have been missed); `onBeat` after each heartbeat Redis took (this
   * instance reaches Redis: the engine says so in the database, see CronEngine.beacon).
   */
  async start(redisUrl: string | undefined, ns: string, onControl: (m: CronControl) => void, onResync: () => void, onBeat?: () => void): Promise<void> {
    this.onBeat = onBeat;
    this.ns = `cron:${ns}`;
    if (!redisUrl) return;
    const client = createRedisClient(redisUrl);
    const sub = createRedisClient(redisUrl, { subscriber: true });
    this.watch = new RedisWatch('cron');
    this.watch.watch(client, sub);
    client.on('ready', () => {
      if (this.reloadOwed) void this.publish({ type: 'reload' });
      if (this.beat) void this.heartbeat(); // say at once that this instance reaches Redis again
    });
    sub.on('error', () => { this.subWasDown = true; });
    sub.on('ready', () => {
      if (!this.subWasDown) return;
      this.subWasDown = false;
      onResync();
    });
    this.client = client;
    this.sub = sub;
    // Queued until connected (the subscriber keeps its offline queue), then renewed on every reconnect.
    void sub.subscribe(`${this.ns}:ctl`, (raw) => {
      try {
        const m = JSON.parse(raw) as CronControl;
        if (m.from !== this.instance) onControl(m);
      } catch (err) {
        this.log.warn(`bad control message: ${(err as Error).message}`);
      }
    }).catch((err: Error) => this.log.warn(`subscribe: ${err.message}`));
    await connectRedis(client, sub);
    this.beat = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    this.beat.unref();
    await this.heartbeat();
    this.log.log(`cron ticks are claimed in Redis (${this.ns}, instance ${this.instance})`);
  }

  private async heartbeat() {
    const ok = await this.client?.set(this.aliveKey(this.instance), String(Date.now()), { expiration: { type: 'PX', value: ALIVE_MS } }).then(() => true, () => false);
    if (ok) this.onBeat?.();
  }

  /** True when this instance runs the tick of `Id` scheduled at `scheduledMs` (always true without Redis). Throws when Redis does not answer. */
  async claimTick(Id: number, scheduledMs: number): Promise<boolean> {
    if (!this.client) return true;
    const r = await this.client.set(`${this.ns}:tick:${Id}:${scheduledMs}`, this.instance, { condition: 'NX', expiration: { type: 'PX', value: TICK_CLAIM_MS } });
    return r === 'OK';
  }

  /** Marks `Id` as running here unless a live instance runs it. Throws when Redis does not answer. */
  async markRunning(Id: number, mark: RunningMark): Promise<MarkResult> {
    if (!this.client) return { ok: true };
    const r = (await this.client.eval(TAKE_MARK, {
      keys: [this.runKey(Id)],
      arguments: [JSON.stringify(mark), `${this.ns}:alive:`, String(RUNNING_MARK_MS), this.instance],
    })) as [number, string];
    const [code, raw] = r;
    const old = raw ? (JSON.parse(raw) as RunningMark) : null;
    if (code === 0) return { ok: false, holder: old };
    return code === 2 && old ? { ok: true, interrupted: old } : { ok: true };
  }

  /** Keeps a long run's mark from expiring (the heartbeat, not this, says whether its instance lives). */
  refreshEvery(Id: number, mark: RunningMark): ReturnType<typeof setInterval> | undefined {
    if (!this.client) return undefined;
    const t = setInterval(() => {
      void this.client?.eval(EXTEND_IF_OURS, { keys: [this.runKey(Id)], arguments: [JSON.stringify(mark), String(RUNNING_MARK_MS)] }).catch(() => undefined);
    }, MARK_REFRESH_MS);
    t.unref();
    return t;
  }

  async clearRunning(Id: number, mark: RunningMark): Promise<void> {
    if (!this.client) return;
    await this.client.eval(DEL_IF_OURS, { keys: [this.runKey(Id)], arguments: [JSON.stringify(mark)] });
  }

  /** Tasks running on a live instance (Redis only; empty without it). Throws when Redis does not answer. */
  async runningMarks(ids: number[]): Promise<Map<number, RunningMark>> {
    const out = new Map<number, RunningMark>();
    if (!this.client || ids.length === 0) return out;
    const values = await this.client.mGet(ids.map((Id) => this.runKey(Id)));
    const marks = new Map<number, RunningMark>();
    values.forEach((v, i) => {
      if (typeof v === 'string') {
        try { marks.set(ids[i], JSON.parse(v) as RunningMark); } catch { /* not ours */ }
      }
    });
    if (!marks.size) return out;
    const instances = [...new Set([...marks.values()].map((m) => m.instance))];
    const alive = await this.client.mGet(instances.map((i) => this.aliveKey(i)));
    const live = new Set(instances.filter((_i, k) => alive[k] !== null));
    for (const [Id, m] of marks) if (live.has(m.instance)) out.set(Id, m);
    return out;
  }

  /** Tells the other instances; when Redis is down, a reload is owed and sent once it is back (never throws). */
  async publish(m: DistributiveOmit<CronControl, 'from'>): Promise<void> {
    if (!this.client) return;
    try {
      await this.client.publish(`${this.ns}:ctl`, JSON.stringify({ ...m, from: this.instance }));
      if (m.type === 'reload') this.reloadOwed = false;
    } catch (err) {
      // A reload re-reads tasks and the service switch from the database: it carries any missed change but a kill.
      this.reloadOwed = true;
      this.log.debug?.(`control message not sent (${(err as Error).message}): a reload follows once Redis is back`);
    }
  }

  /** Stops beating (the marks of this instance are void at once) and leaves Redis within about a second. */
  async close(): Promise<void> {
    clearInterval(this.beat);
    const client = this.client;
    // Best effort, briefly: a silent Redis must not hold the shutdown (the key expires by itself in ALIVE_MS).
    if (client?.isReady) await Promise.race([client.del(this.aliveKey(this.instance)).catch(() => undefined), new Promise((r) => setTimeout(r, 300).unref())]);
    const clients = [this.sub, this.client].filter((c): c is RedisClient => !!c);
    this.client = this.sub = undefined;
    await closeRedis(...clients);
  }

  private runKey(Id: number) {
    return `${this.ns}:run:${Id}`;
  }

  private aliveKey(instance: string) {
    return `${this.ns}:alive:${instance}`;
  }
}
