import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Cron } from 'croner';
import { randomUUID } from 'node:crypto';
import type { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  cronPattern, fillCronSecrets, nextRunOf, parseCronCmd, serializeCronCmd, splitCronSecrets, type CronCmd, type CronRunStatus, type CronRunTrigger, type CronServiceStatus, type CronStatus, type CronTaskState,
} from '../../contracts/cron.js';
import { Role } from '../../contracts/roles.js';
import type { Actor } from '../../core/auth/actor.js';
import { UserEntity } from '../../core/auth/user.entity.js';
import { SecretBox } from '../../core/crypto/secret-box.js';
import { AppError, conflict, invalid } from '../../core/errors.js';
import { LeaseService } from '../../core/lease.service.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { RpcRegistry } from '../../core/rpc/rpc.registry.js';
import { CronHistory } from './cron-history.js';
import { CronSettingEntity, CronTaskEntity } from './cron.entities.js';
import { ALIVE_MS, CronCoordinator, type CronControl, type RunningMark } from './cron-coordinator.js';
import { httpPlanOf, KILLED, RunAbort, runCronCmd, SHUTDOWN, type HttpPlan, type RunOutcome } from './cron-runner.js';
import { CronHttpThread, type Posting, type PostingEvents, type TimedOutcome } from './http/cron-http.thread.js';
import { openSecrets, resolveSecrets, sealSecrets } from './cron-secret.js';

interface Entry {
  task: CronTaskEntity;
  pattern: string;
  /** The schedule while the task is scheduled here: croner without a callback, used only for its next runs (the engine keeps one timer for all tasks). */
  job: Cron | null;
  /** The tick the job is waiting for (epoch ms): the scheduled time a firing is measured against, and its key in `due`. */
  expected: number | null;
  /** What the task runs, for the cmd and sealed secrets it was worked out from (`key`). */
  prep?: { key: string; p: Prepared };
  /** Its HTTP runs posted to the cron HTTP thread ahead of their second, until the thread said what became of them (usually none or one). */
  posts: Posting[];
}

/** What a task runs, worked out when it is scheduled (Entry.prep): the cmd with its secrets and its HTTP request, or why it cannot run. */
type Prepared = { cmd: CronCmd; http: HttpPlan | null } | { error: string };

interface Run {
  Id: number;
  source: CronRunTrigger;
  scheduled: Date | null;
  started: Date;
  uid: number | null;
  abort: RunAbort;
  mark: RunningMark;
  done: Promise<void>;
  /** Resolves `done` (the run was recorded). */
  finish: () => void;
  /** An HTTP run made in the cron HTTP thread (the thread knows its task is busy and skips a posted tick of it). */
  threaded: boolean;
}

interface LastRun {
  start: Date;
  end: Date;
  status: CronRunStatus;
  message: string | null;
  duration: number;
}

const SETTING_SERVICE = 'service';
const SETTING_NS = 'lock_ns';
/** Status events are gathered for this long and sent as one `cron.status` (1,000 tasks a second stay 20 events). */
const EMIT_MS = 50;
const OWNER_CACHE_MS = 1000;
/** The wake-up timer never sleeps longer than this (setTimeout's limit is about 24.8 days); it re-arms. */
const MAX_SLEEP_MS = 60_000;
/** While Redis is down, the instance that runs a task's ticks holds its database lease this long past each tick (another takes over after). */
const FALLBACK_LEASE_MS = 5000;
/**
 * While an instance that schedules reaches Redis it holds this database lease, renewed at each
 * heartbeat (one instance holds it, another takes it over once it lapses). An instance cut off from
 * Redis alone then leaves the ticks to the others, which claim them in Redis: without this it would run
 * every tick on the database lease while they run it too (issue 26, a flapping connection).
 */
const REDIS_BEACON = 'cron.redis';
const BEACON_MS = ALIVE_MS;
/** After the beacon lapsed, this much longer (a heartbeat and a query) before the database lease decides: an instance that reaches Redis would have taken it over. */
const BEACON_GRACE_MS = 1500;
/** A cut-off instance reads the beacon at most this often (one query for every task ticking at once). */
const BEACON_READ_MS = 300;
/**
 * A second's HTTP runs are posted to the cron HTTP thread this long before it (single instance), and the
 * thread starts them at the second on its own timer: long enough for the post pass to run late under
 * load, short enough that few edits fall between the posting and the start (they cancel it).
 */
const POST_AHEAD_MS = 500;
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * The cron engine: tasks from the database become croner schedules (six fields, second first), kept
 * in this engine's own map rather than @nestjs/schedule's SchedulerRegistry, which only holds the
 * `cron` package's CronJob. Croner only computes each task's next run; the engine keeps the tasks in
 * buckets by that second (`due`) under one timer, so every task due at a second is started in one
 * pass at that second (no timer callback per task, nothing spread over the second). Each tick claims
 * the run (Redis when configured), refuses to start a task that is still running (a 'skipped' row),
 * runs it (cron-runner.ts; `curl=` in the cron HTTP thread, http/cron-http.thread.ts: undici's dispatcher on
 * one keep-alive agent, the responses read there too), records the run
 * and tells every admin through `cron.status`. Pause/resume, run now, kill, the service switch and
 * reload act on the same map; with Redis they reach every instance.
 */
@Injectable()
export class CronEngine implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('Cron');
  readonly coordinator = new CronCoordinator();
  private readonly entries = new Map<number, Entry>();
  /** The scheduled entries by the tick they wait for (epoch ms), and the one timer that wakes for the earliest. */
  private readonly due = new Map<number, Set<Entry>>();
  private wake?: ReturnType<typeof setTimeout>;
  private wakeAt = Infinity;
  /** The buckets whose HTTP runs were offered to the cron HTTP thread ahead of their second (the post pass ran for them). */
  private readonly postedAhead = new Set<number>();
  /** The runs of the posted ticks the thread started, once registered here. */
  private readonly postedRuns = new WeakMap<Posting, Run>();
  private readonly running = new Map<number, Run>();
  private readonly last = new Map<number, LastRun>();
  private serviceOn = true;
  private active = false;
  private readonly pending = new Set<number>();
  private emitTimer?: ReturnType<typeof setTimeout>;
  private reloading: Promise<void> = Promise.resolve();
  private readonly owners = new Map<number, { until: number; user: Promise<UserEntity | null> }>();
  private beaconRead?: { at: number; row: Promise<{ owner: string; until: number } | null> };
  /** The thread that dispatches the `curl=` runs and reads their responses (started with the first HTTP task prepared). */
  private http: CronHttpThread | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    @InjectRepository(CronTaskEntity) private readonly tasks: Repository<CronTaskEntity>,
    @InjectRepository(CronSettingEntity) private readonly settings: Repository<CronSettingEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly history: CronHistory,
    private readonly registry: RpcRegistry,
    private readonly realtime: RealtimeService,
    private readonly box: SecretBox,
    private readonly leases: LeaseService,
  ) {}

  // ---------------------------------------------------------------------------------------------
  // Life cycle

  async onApplicationBootstrap() {
    const ns = await this.setting(SETTING_NS, () => randomUUID());
    this.serviceOn = (await this.setting(SETTING_SERVICE, () => '1')) !== '0';
    await this.sealUrlCredentials();
    await this.coordinator.start(this.cfg.redisUrl, ns, (m) => this.onControl(m), () => {
      // Back after an outage: a reload or switch may have been missed meanwhile.
      void this.reload(false).catch((err) => this.log.error(`reload: ${(err as Error).message}`));
    }, () => {
      if (this.active && this.cfg.cronEnabled) void this.leases.acquire(REDIS_BEACON, BEACON_MS).catch(() => undefined);
    });
    for (const r of await this.history.lastRuns()) {
      this.last.set(r.task_id, { start: r.started, end: r.ended, status: r.status as CronRunStatus, message: r.message, duration: r.duration_ms });
    }
    this.active = true;
    await this.reload(false);
    const scheduled = [...this.entries.values()].filter((e) => e.job).length;
    this.log.log(`${this.entries.size} cron tasks, ${scheduled} scheduled here (service ${this.serviceOn ? 'on' : 'off'}, CRON_ENABLED ${this.cfg.cronEnabled ? 1 : 0})`);
  }

  /** Stops every schedule, interrupts what still runs (recorded), writes the history, leaves Redis. */
  async onModuleDestroy() {
    this.active = false;
    for (const e of this.entries.values()) this.unschedule(e);
    clearTimeout(this.wake);
    const runs = [...this.running.values()];
    for (const r of runs) r.abort.abort(SHUTDOWN);
    await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise((r) => setTimeout(r, 3000).unref())]);
    // Runs the HTTP thread did not answer for by then end as interrupted when it stops (recorded below).
    await this.http?.close();
    await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise((r) => setTimeout(r, 100).unref())]);
    clearTimeout(this.emitTimer);
    await this.history.flush();
    await this.coordinator.close();
  }

  /**
   * Tasks saved before their secrets were sealed keep them in clear in `cmd` (URL credentials, secret
   * query parameters and arguments): seal them now, with those already sealed, and store the cmd
   * masked (cron-secret.ts). Idempotent; two instances doing it at once write equivalent rows.
   */
  private async sealUrlCredentials() {
    for (const t of await this.tasks.find()) {
      let cmd: CronCmd;
      try { cmd = parseCronCmd(t.cmd); } catch { continue; }
      const clear = splitCronSecrets(cmd).secrets;
      if (clear.userinfo === undefined && !clear.query && !clear.args) continue;
      let r;
      try {
        r = resolveSecrets(cmd, { cmd, secrets: () => openSecrets(this.box, t.cmd_secret) });
      } catch (err) {
        this.log.warn(`Cron task ${t.Id}: its secrets are not sealed (${(err as Error).message})`);
        continue;
      }
      await this.tasks.update({ Id: t.Id }, { cmd: serializeCronCmd(r.masked), cmd_secret: sealSecrets(this.box, r.secrets) });
      this.log.log(`Cron task ${t.Id}: the secrets in its cmd are now stored sealed`);
    }
  }

  /** The task's cmd with its sealed secrets filled in (what runs). */
  private realCmd(task: CronTaskEntity): CronCmd {
    let secrets;
    try {
      secrets = openSecrets(this.box, task.cmd_secret);
    } catch {
      throw new Error('The stored credentials of this task cannot be decrypted (was SECRET_KEY changed?): save them again');
    }
    return fillCronSecrets(parseCronCmd(task.cmd), secrets);
  }

  /**
   * What the task runs, kept on its entry while its cmd and sealed secrets stay the same: parsing the
   * cmd, opening its secrets and building the HTTP request are done when it is scheduled (reload, save),
   * not in the pass that starts a second's runs. The secrets stay open in memory meanwhile; the key that
   * opens them is there anyway.
   */
  private prepare(task: CronTaskEntity): Prepared {
    const key = `${task.cmd}\n${task.cmd_secret ?? ''}`;
    const e = this.entries.get(task.Id);
    if (e?.prep?.key === key) return e.prep.p;
    let p: Prepared;
    try {
      const cmd = this.realCmd(task);
      p = { cmd, http: cmd.kind === 'http' ? httpPlanOf(cmd) : null };
    } catch (err) {
      p = { error: (err as Error).message };
    }
    if (e) {
      const old = e.prep;
      e.prep = { key, p };
      // A run posted with the old request must not start: its tick runs with the new one (from the main loop).
      if (old) this.cancelPostings(e, true);
      if (old?.p && 'http' in old.p && old.p.http) this.http?.drop(old.p.http);
    }
    // The first HTTP task starts the thread, so it is up before its first run.
    if ('http' in p && p.http && !p.http.refused && this.active) this.httpThread().warm();
    return p;
  }

  private httpThread(): CronHttpThread {
    this.http ??= new CronHttpThread({
      onFailure: (why) => this.log.error(`the cron HTTP thread stopped (${why}); the next HTTP run starts another`),
      // From now on a second's HTTP runs can be posted ahead: the timer wakes for that.
      onReady: () => this.rearm(),
    });
    return this.http;
  }

  /** The entry's HTTP request is no longer used (its task changed or left): the thread forgets it. */
  private dropPlan(e: Entry) {
    const p = e.prep?.p;
    if (p && 'http' in p && p.http) this.http?.drop(p.http);
  }

  /** A shared setting, created with `init()` when absent (two instances starting at once agree on the first). */
  private async setting(name: string, init: () => string): Promise<string> {
    const row = await this.settings.findOne({ where: { name } });
    if (row) return row.value;
    try {
      await this.settings.insert({ name, value: init() });
    } catch { /* another instance wrote it first */ }
    return (await this.settings.findOneOrFail({ where: { name } })).value;
  }

  private onControl(m: CronControl) {
    if (m.type === 'reload') void this.reload(false).catch((err) => this.log.error(`reload: ${(err as Error).message}`));
    else if (m.type === 'kill') this.running.get(m.Id)?.abort.abort(KILLED);
    else if (m.type === 'service') {
      this.serviceOn = m.service === 1;
      this.applyAll();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Schedules

  /**
   * Re-reads the tasks and the service switch and brings the schedules in line: a task whose pattern
   * and pause state did not change keeps its timer. `publish` tells the other instances to do the same.
   */
  reload(publish = true): Promise<void> {
    this.reloading = this.reloading.catch(() => undefined).then(async () => {
      const row = await this.settings.findOne({ where: { name: SETTING_SERVICE } });
      if (row) this.serviceOn = row.value !== '0';
      const rows = await this.tasks.find({ order: { Id: 'ASC' } });
      const seen = new Set<number>();
      for (const t of rows) {
        seen.add(t.Id);
        const e = this.entries.get(t.Id);
        if (e) e.task = t;
        else this.entries.set(t.Id, { task: t, pattern: cronPattern(t), job: null, expected: null, posts: [] });
      }
      for (const [Id, e] of this.entries) {
        if (seen.has(Id)) continue;
        this.unschedule(e);
        this.dropPlan(e);
        this.entries.delete(Id);
        this.last.delete(Id);
      }
      this.applyAll();
      this.realtime.emit('cron.status', { reload: true }, Role.admin);
      if (publish) await this.coordinator.publish({ type: 'reload' });
    });
    return this.reloading;
  }

  private applyAll() {
    for (const e of this.entries.values()) this.apply(e);
  }

  private apply(e: Entry) {
    const pattern = cronPattern(e.task);
    const want = this.active && this.cfg.cronEnabled && this.serviceOn && e.task.suspended === 0;
    if (e.job && (!want || pattern !== e.pattern)) this.unschedule(e);
    e.pattern = pattern;
    if (want) this.prepare(e.task);
    if (want && !e.job) {
      try {
        e.job = new Cron(pattern, { mode: '6-part' });
        this.schedule(e, Date.now());
      } catch (err) {
        this.log.warn(`task ${e.task.Id} not scheduled: ${(err as Error).message}`);
      }
    }
  }

  /** Puts a scheduled entry in the bucket of its next run after `from` (`memo`: next runs already computed for a pattern from the same `from`). */
  private schedule(e: Entry, from: number, memo?: Map<string, number | null>) {
    let next = memo?.get(e.pattern);
    if (next === undefined) {
      next = e.job!.nextRun(new Date(from))?.getTime() ?? null;
      memo?.set(e.pattern, next);
    }
    e.expected = next;
    if (next === null) return;
    let bucket = this.due.get(next);
    if (!bucket) this.due.set(next, (bucket = new Set()));
    bucket.add(e);
    const w = this.wakeFor(next);
    if (w < this.wakeAt) this.arm(w);
  }

  /** Out of its bucket, and its runs posted ahead taken back (those the thread already started go on). */
  private unschedule(e: Entry) {
    if (e.expected !== null) {
      const bucket = this.due.get(e.expected);
      bucket?.delete(e);
      if (bucket?.size === 0) this.dropBucket(e.expected);
    }
    e.job = null;
    e.expected = null;
    this.cancelPostings(e, false);
  }

  private dropBucket(at: number) {
    this.due.delete(at);
    this.postedAhead.delete(at);
  }

  /** HTTP runs are posted ahead to the cron HTTP thread: one instance (with Redis each tick is claimed and marked at its second), the thread loaded. */
  private get postingAhead(): boolean {
    return this.active && this.serviceOn && !this.coordinator.distributed && !!this.http?.isReady;
  }

  /** When the timer must wake for the bucket of `at`: ahead of it for its post pass, else at the second. */
  private wakeFor(at: number): number {
    return this.postingAhead && !this.postedAhead.has(at) ? at - POST_AHEAD_MS : at;
  }

  private arm(at: number) {
    clearTimeout(this.wake);
    this.wakeAt = at;
    this.wake = setTimeout(() => this.fire(), Math.min(MAX_SLEEP_MS, Math.max(0, at - Date.now())));
  }

  /** Arms the timer for the earliest bucket (or its post pass). */
  private rearm() {
    let earliest = Infinity;
    for (const at of this.due.keys()) earliest = Math.min(earliest, this.wakeFor(at));
    if (earliest < Infinity) this.arm(earliest);
    else {
      clearTimeout(this.wake);
      this.wake = undefined;
      this.wakeAt = Infinity;
    }
  }

  /**
   * The timer. Ahead of a second (POST_AHEAD_MS), its HTTP runs are posted to the cron HTTP thread,
   * which starts them at the second itself (postAhead). At the second every other task due by now is
   * started, bucket by bucket, in one pass (each run records its own start as it begins): the actions,
   * and the HTTP runs that were not posted (the thread not loaded yet, Redis, a posting taken back).
   * Their next runs are computed after that pass, so that work never delays a start, once per pattern
   * rather than once per task.
   */
  private fire() {
    this.wake = undefined;
    this.wakeAt = Infinity;
    const now = Date.now();
    if (this.postingAhead) {
      for (const [at, bucket] of this.due) {
        if (at > now && at - POST_AHEAD_MS <= now && !this.postedAhead.has(at)) {
          this.postedAhead.add(at);
          this.postAhead(at, bucket);
        }
      }
    }
    const ready: Array<[number, Set<Entry>]> = [];
    for (const [at, bucket] of this.due) if (at <= now) ready.push([at, bucket]);
    for (const [at] of ready) this.dropBucket(at);
    for (const [at, bucket] of ready) {
      for (const e of bucket) {
        e.expected = null;
        if (e.posts.some((p) => p.at === at && p.state !== 'cancelled')) continue; // the thread starts it (or skipped it)
        try {
          this.onTick(e, at);
        } catch (err) {
          this.log.error(`task ${e.task.Id}: ${(err as Error).message}`);
        }
      }
    }
    const memo = new Map<string, number | null>();
    for (const [, bucket] of ready) {
      for (const e of bucket) {
        if (!e.job || e.expected !== null || this.entries.get(e.task.Id) !== e) continue;
        try {
          this.schedule(e, now, memo);
        } catch (err) {
          this.log.error(`task ${e.task.Id} not rescheduled: ${(err as Error).message}`);
        }
      }
    }
    this.rearm();
  }

  /**
   * The post pass of the second `at`: each scheduled HTTP task of its bucket gets its run posted to the
   * cron HTTP thread now (run and request ids, a slot to take it back), which starts it at `at` on its
   * own timer. Not posted (the main loop's pass at `at` starts them as before): actions, a request
   * refused, a task whose run is in flight on the main loop (made before the thread loaded: the thread
   * would not know to skip the tick). Taken back (cancelPostings) when the task is removed, paused,
   * edited, run now, the service is switched off or the console stops before the thread took it.
   */
  private postAhead(at: number, bucket: Set<Entry>) {
    const thread = this.http!;
    for (const e of bucket) {
      const p = e.prep?.p;
      if (!e.job || !p || !('http' in p) || !p.http || p.http.refused) continue;
      const r = this.running.get(e.task.Id);
      if (r && !r.threaded) continue;
      const posting = thread.ahead(e.task.Id, p.http, at, new RunAbort(), this.postingEvents);
      if (posting) e.posts.push(posting);
    }
  }

  /**
   * Takes back the entry's runs posted ahead that the thread has not started. `rerun`: the task still
   * runs at that second (its request changed, a run now came first), so a tick whose pass went by
   * already starts now from the main loop (its bucket's pass starts the others). A run the thread
   * started already is registered here at once (kill, run now and shutdown see it).
   */
  private cancelPostings(e: Entry, rerun: boolean) {
    for (const p of e.posts.slice()) {
      const state = this.http?.cancel(p) ?? p.state;
      if (state === 'started') this.threadRun(p, undefined);
      else if (state === 'cancelled') {
        e.posts.splice(e.posts.indexOf(p), 1);
        if (rerun && e.job && !this.due.get(p.at)?.has(e)) this.rerun(e, p.at);
      }
    }
  }

  /** The runs the thread has started already are registered here (no event needed: the shared slot says). */
  private syncPostings(e: Entry) {
    for (const p of e.posts) if (this.http?.peek(p) === 'started') this.threadRun(p, undefined);
  }

  private rerun(e: Entry, at: number) {
    try {
      this.onTick(e, at);
    } catch (err) {
      this.log.error(`task ${e.task.Id}: ${(err as Error).message}`);
    }
  }

  /** What becomes of the runs posted ahead (events of the cron HTTP thread, in its order). */
  private readonly postingEvents: PostingEvents = {
    started: (p, at) => {
      this.threadRun(p, at);
    },
    skipped: (p, message, at) => {
      this.forgetPosting(p);
      this.skip(p.task, new Date(p.at), message, new Date(at));
    },
    ended: (p, o) => {
      this.forgetPosting(p);
      const run = this.threadRun(p, undefined);
      const e = this.entries.get(p.task);
      this.finishRun(e?.task ?? null, run, o);
    },
    dropped: (p, lost) => {
      this.forgetPosting(p);
      if (!lost) return; // taken back by the main loop, which decided what follows
      // The thread stopped before its second: the tick starts from the main loop (in-process until another thread loads).
      const e = this.entries.get(p.task);
      if (e?.job && !this.due.get(p.at)?.has(e)) this.rerun(e, p.at);
    },
  };

  private forgetPosting(p: Posting) {
    const e = this.entries.get(p.task);
    const i = e ? e.posts.indexOf(p) : -1;
    if (i >= 0) e!.posts.splice(i, 1);
  }

  /**
   * The run of a posted tick the thread started, registered as running here once (from its start
   * event, or sooner when the main loop finds it started). `at`: the thread's start time when known.
   */
  private threadRun(p: Posting, at: number | undefined): Run {
    const known = this.postedRuns.get(p);
    if (known) {
      if (at !== undefined) known.started = new Date(at);
      return known;
    }
    let finish!: () => void;
    const started = at ?? p.at;
    const run: Run = {
      Id: p.task, source: 'tick', scheduled: new Date(p.at), uid: null, started: new Date(started), abort: p.abort, threaded: true,
      mark: { instance: this.coordinator.instance, run: randomUUID().slice(0, 8), started, scheduled: p.at },
      done: new Promise<void>((r) => (finish = r)),
      finish: () => finish(),
    };
    this.postedRuns.set(p, run);
    // A run of this task whose outcome was read just before (its record comes in a microtask) is replaced here.
    this.running.set(p.task, run);
    this.changed(p.task);
    return run;
  }

  /**
   * One tick of a task. Without Redis nothing is awaited: the run starts here, inside the timer's pass.
   * With Redis the tick is claimed first (one instance runs it).
   */
  private onTick(e: Entry, scheduled: number) {
    if (!this.active || !this.serviceOn) return;
    if (!this.coordinator.distributed) {
      this.begin(e.task, new Date(scheduled));
      return;
    }
    void this.claimAndStart(e, scheduled);
  }

  private async claimAndStart(e: Entry, scheduled: number) {
    const Id = e.task.Id;
    let viaLease = false;
    try {
      if (!(await this.coordinator.claimTick(Id, scheduled))) return; // another instance runs this tick
    } catch (err) {
      // Redis does not answer here. Another instance that reaches it runs the tick (it holds the beacon);
      // when none does, the database decides (one instance holds the task's lease and runs its ticks).
      const reason = `Redis is unreachable (${(err as Error).message})`;
      const b = await this.beacon().catch((e: Error) => e);
      const now = Date.now();
      if (b && !(b instanceof Error) && b.owner !== this.leases.owner && b.until > now) return;
      const held = b instanceof Error ? b : await this.fallbackLease(Id).catch((e: Error) => e);
      if (held instanceof Error) {
        this.skip(Id, new Date(scheduled), `Not run: ${reason} and the database lease failed (${held.message})`);
        return;
      }
      if (!held) return; // another instance holds this task during the outage
      if (b && !(b instanceof Error) && b.until + BEACON_GRACE_MS > now) {
        // Our own beacon, or one that just lapsed: an instance that still reaches Redis may take it over.
        this.skip(Id, new Date(scheduled), `Not run here: ${reason}; an instance that reaches Redis runs it if one does (the database lease decides once none is seen for ${(BEACON_MS + BEACON_GRACE_MS) / 1000} s)`);
        return;
      }
      viaLease = true;
    }
    await this.start(e.task, 'tick', new Date(scheduled), null, viaLease).catch((err) => this.log.error(`task ${Id}: ${(err as Error).message}`));
  }

  /** The beacon's row (who reaches Redis, until when), read at most every BEACON_READ_MS; null when never written. */
  private beacon(): Promise<{ owner: string; until: number } | null> {
    const now = Date.now();
    if (!this.beaconRead || now - this.beaconRead.at > BEACON_READ_MS) {
      const row = this.settings.manager.query('SELECT owner, until FROM leases WHERE name = ?', [REDIS_BEACON])
        .then((rows: Array<{ owner: string; until: number | string }>) => (rows[0] ? { owner: String(rows[0].owner), until: Number(rows[0].until) } : null));
      row.catch(() => undefined);
      this.beaconRead = { at: now, row };
    }
    return this.beaconRead.row;
  }

  /** The fallback coordinator while Redis is down: a database lease per task, kept by the instance that runs its ticks. */
  private fallbackLease(Id: number): Promise<boolean> {
    return this.leases.acquire(`cron.task.${Id}`, FALLBACK_LEASE_MS);
  }

  // ---------------------------------------------------------------------------------------------
  // Runs

  /** A run of an instance that stopped beating (killed, crashed) never finished: recorded as interrupted by the instance that took over. */
  private interrupted(Id: number, m: RunningMark) {
    const now = new Date();
    this.history.add({
      task_id: Id, source: m.scheduled ? 'tick' : 'manual', scheduled: m.scheduled ? new Date(m.scheduled) : null, started: new Date(m.started), ended: now, status: 'interrupted',
      message: `Interrupted: instance ${m.instance} stopped during the run (no heartbeat for ${ALIVE_MS / 1000} s); taken over by ${this.coordinator.instance}`,
      output: null, duration_ms: now.getTime() - m.started, instance: m.instance, uid: null,
    });
    this.last.set(Id, { start: new Date(m.started), end: now, status: 'interrupted', message: 'Interrupted', duration: now.getTime() - m.started });
  }

  private skip(Id: number, scheduled: Date | null, message: string, now = new Date()) {
    this.history.add({ task_id: Id, source: 'tick', scheduled, started: now, ended: now, status: 'skipped', message, output: null, duration_ms: 0, instance: this.coordinator.instance, uid: null });
  }

  /**
   * The run of `task`, registered as running here, or null when it is running here already: a tick then
   * records a skip, a run-now is refused.
   */
  private newRun(task: CronTaskEntity, source: CronRunTrigger, scheduled: Date | null, uid: number | null): Run | null {
    const Id = task.Id;
    // Runs posted ahead to the cron HTTP thread: one it started is running. A run now takes back the tick
    // it has not started yet (that tick then starts from the main loop, and finds this run: skipped).
    const e = this.entries.get(Id);
    if (e?.posts.length) {
      if (source === 'manual') this.cancelPostings(e, true);
      else this.syncPostings(e);
    }
    const busy = this.running.get(Id);
    if (busy) {
      const msg = `Still running (started ${busy.started.toISOString()})`;
      if (source === 'tick') {
        this.skip(Id, scheduled, msg);
        return null;
      }
      throw conflict(`Task ${Id} is already running (started ${busy.started.toISOString()})`);
    }
    let finish!: () => void;
    const now = Date.now();
    const run: Run = {
      Id, source, scheduled, uid, started: new Date(now), abort: new RunAbort(), threaded: false,
      mark: { instance: this.coordinator.instance, run: randomUUID().slice(0, 8), started: now, scheduled: scheduled?.getTime() ?? null },
      done: new Promise<void>((r) => (finish = r)),
      finish: () => finish(),
    };
    this.running.set(Id, run);
    return run;
  }

  /** A tick on a single instance (no Redis, nothing to claim or mark): the run starts now, synchronously. */
  private begin(task: CronTaskEntity, scheduled: Date) {
    const run = this.newRun(task, 'tick', scheduled, null);
    if (run) this.launch(task, run);
  }

  /**
   * Starts a run of `task` unless it is running (here or, with Redis, anywhere): a tick then records a
   * skip, a run-now is refused. Resolves once the run has started; the run goes on in the background.
   */
  private async start(task: CronTaskEntity, source: CronRunTrigger, scheduled: Date | null, uid: number | null, viaLease = false): Promise<void> {
    const Id = task.Id;
    const run = this.newRun(task, source, scheduled, uid);
    if (!run) return;
    let marked = false;
    let why = '';
    let holder: RunningMark | null = null;
    try {
      const m = await this.coordinator.markRunning(Id, run.mark);
      marked = m.ok;
      if (m.ok && m.interrupted) this.interrupted(Id, m.interrupted);
      if (!m.ok) {
        holder = m.holder;
        why = `Still running on another instance (${holder?.instance ?? '?'}, started ${holder ? new Date(holder.started).toISOString() : '?'})`;
      }
    } catch (err) {
      // Redis does not answer. A tick claimed by the database lease runs (this instance holds the task);
      // a run now takes the same lease.
      const reason = `Redis is unreachable (${(err as Error).message})`;
      if (viaLease) marked = true;
      else {
        const held = await this.fallbackLease(Id).catch(() => false);
        marked = held;
        why = held ? '' : `Not run: ${reason} and another instance holds this task meanwhile`;
      }
    }
    if (!marked) {
      if (this.running.get(Id) === run) this.running.delete(Id);
      run.finish();
      if (source === 'tick') return this.skip(Id, scheduled, why);
      throw conflict(holder ? `Task ${Id} is already running on another instance (${holder.instance}, started ${new Date(holder.started).toISOString()})` : why);
    }
    this.launch(task, run);
  }

  /**
   * The run begins its work: an action is called now; an HTTP run is posted to the cron HTTP thread,
   * which records its own start when it hands the request to undici (`run.started` is replaced by it).
   */
  private launch(task: CronTaskEntity, run: Run) {
    run.started = new Date();
    this.changed(task.Id);
    void this.execute(task, run).finally(run.finish);
  }

  private async execute(task: CronTaskEntity, run: Run) {
    const refresh = this.coordinator.refreshEvery(task.Id, run.mark);
    let outcome: TimedOutcome;
    try {
      const p = this.prepare(task);
      if ('error' in p) outcome = { status: 'error', message: p.error, output: null };
      else if (p.http) {
        const thread = this.httpThread();
        run.threaded = thread.isReady;
        outcome = await thread.run(p.http, run.abort, task.Id);
      } else outcome = await runCronCmd(p.cmd, run.abort, { registry: this.registry, actor: () => this.actorFor(task) });
    } catch (err) {
      outcome = { status: 'error', message: (err as Error).message, output: null };
    }
    clearInterval(refresh);
    this.finishRun(task, run, outcome);
  }

  /**
   * A run ended: no longer running here, its outcome kept as the task's last and written to the
   * history. An HTTP outcome carries the thread's clock (when it handed the request to undici and when
   * the run settled there): the run's recorded start and end.
   */
  private finishRun(task: CronTaskEntity | null, run: Run, outcome: TimedOutcome) {
    if (outcome.started !== undefined && outcome.ended !== undefined) run.started = new Date(outcome.started);
    const ended = outcome.ended !== undefined ? new Date(outcome.ended) : new Date();
    const Id = run.Id;
    const duration = ended.getTime() - run.started.getTime();
    // A posted tick of this task the thread started right after this run ended may be registered already.
    if (this.running.get(Id) === run) this.running.delete(Id);
    // Redis down: the mark stays until the next tick of this instance finds it as its own and replaces it (no warning per run: the outage is logged once).
    void this.coordinator.clearRunning(Id, run.mark).catch((err) => this.log.debug?.(`clear mark of ${Id}: ${(err as Error).message}`));
    if (task && this.entries.has(Id)) this.last.set(Id, { start: run.started, end: ended, status: outcome.status, message: outcome.message, duration });
    this.history.add({
      task_id: Id, source: run.source, scheduled: run.scheduled, started: run.started, ended, status: outcome.status,
      message: outcome.message.slice(0, 500), output: outcome.output, duration_ms: duration, instance: this.coordinator.instance, uid: run.uid,
    });
    this.changed(Id);
    run.finish();
  }

  /**
   * The actor a task's action runs as: the admin who saved it, as they are now (refused when inactive
   * or removed). The user row is read at most once a second per user: 1,000 tasks firing in the same
   * second cost one read, and a deactivation takes effect within a second.
   */
  private async actorFor(task: CronTaskEntity): Promise<Actor> {
    if (!task.uid) throw invalid('Task has no owner: an admin must save it again');
    const now = Date.now();
    let hit = this.owners.get(task.uid);
    if (!hit || hit.until <= now) {
      hit = { until: now + OWNER_CACHE_MS, user: this.users.findOne({ where: { uid: task.uid } }) };
      this.owners.set(task.uid, hit);
    }
    const u = await hit.user;
    if (!u) throw invalid(`The user who saved this task (uid ${task.uid}) no longer exists: an admin must save it again`);
    if (u.active !== 1) throw invalid(`The user who saved this task (${u.login}) is not active: an admin must save it again`);
    return { uid: u.uid, login: u.login, name: u.name, role: u.role, ip: `cron#${task.Id}` };
  }

  /** Run now (also a paused task, or with the service off): starts it once, unless it is running. */
  async runNow(Id: number, uid: number): Promise<void> {
    const task = await this.tasks.findOne({ where: { Id } });
    if (!task) throw new AppError(404, `Cron task ${Id} not found`, 'empty');
    await this.start(task, 'manual', null, uid);
  }

  /** Kill: aborts the run's request or signals its action; recorded as killed. Reaches other instances through Redis. */
  async kill(Id: number): Promise<{ Id: number; killed: boolean; message: string }> {
    const e = this.entries.get(Id);
    if (e?.posts.length) this.syncPostings(e); // a tick the thread has just started
    const r = this.running.get(Id);
    if (r) {
      r.abort.abort(KILLED);
      await r.done;
      return { Id, killed: true, message: 'Killed' };
    }
    const remote = (await this.coordinator.runningMarks([Id]).catch(() => new Map<number, RunningMark>())).get(Id);
    if (remote) {
      await this.coordinator.publish({ type: 'kill', Id });
      return { Id, killed: true, message: `Kill sent to instance ${remote.instance}` };
    }
    throw conflict(`Task ${Id} is not running`);
  }

  /** A deleted task: stop its schedule and any run, drop its state. */
  async forget(Id: number) {
    const e = this.entries.get(Id);
    if (e) {
      this.unschedule(e);
      this.dropPlan(e);
    }
    this.entries.delete(Id);
    this.last.delete(Id);
    const r = this.running.get(Id);
    if (r) {
      r.abort.abort(KILLED);
      await r.done;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Service switch and status

  serviceStatus(): CronServiceStatus {
    return { service: this.serviceOn ? 1 : 0, scheduling: this.cfg.cronEnabled };
  }

  /** The service switch (persisted, every instance): off stops every schedule; running tasks finish. */
  async setService(on: boolean): Promise<CronServiceStatus> {
    await this.settings.save({ name: SETTING_SERVICE, value: on ? '1' : '0' });
    this.serviceOn = on;
    this.applyAll();
    await this.coordinator.publish({ type: 'service', service: on ? 1 : 0 });
    this.realtime.emit('cron.status', { service: on ? 1 : 0 }, Role.admin);
    return this.serviceStatus();
  }

  private stateOf(Id: number, remote?: RunningMark, lastDb?: LastRun): CronTaskState {
    const e = this.entries.get(Id);
    const r = this.running.get(Id);
    let l = this.last.get(Id);
    if (lastDb && (!l || lastDb.start > l.start)) l = lastDb;
    // The tick a scheduled job waits for is kept at each firing: no extra croner computation per event.
    const next = e && this.serviceOn && e.task.suspended === 0
      ? (e.job ? (e.expected !== null && e.expected > Date.now() ? new Date(e.expected) : e.job.nextRun()) : nextRunOf(e.task))
      : null;
    return {
      Id,
      running: !!r || !!remote,
      started: r ? iso(r.started) : remote ? new Date(remote.started).toISOString() : null,
      last_start: iso(l?.start),
      last_end: iso(l?.end),
      last_status: l?.status ?? null,
      last_message: l?.message ?? null,
      last_duration_ms: l?.duration ?? null,
      next_run: iso(next ?? null),
    };
  }

  /** Every task's state. With Redis, runs on other instances and their latest outcomes are included. */
  async status(): Promise<CronStatus> {
    await this.reloading;
    const ids = [...this.entries.keys()];
    let remote = new Map<number, RunningMark>();
    const lastDb = new Map<number, LastRun>();
    if (this.coordinator.distributed) {
      // Redis down: the runs of other instances are not known; this instance's and the history still are.
      remote = await this.coordinator.runningMarks(ids).catch(() => remote);
      for (const r of await this.history.lastRuns()) {
        lastDb.set(r.task_id, { start: r.started, end: r.ended, status: r.status as CronRunStatus, message: r.message, duration: r.duration_ms });
      }
    }
    return { ...this.serviceStatus(), tasks: ids.map((Id) => this.stateOf(Id, remote.get(Id), lastDb.get(Id))) };
  }

  stateNow(Id: number): CronTaskState {
    return this.stateOf(Id);
  }

  /** Queues a `cron.status` event for the task (sent in batches every 50 ms). */
  private changed(Id: number) {
    this.pending.add(Id);
    if (this.emitTimer) return;
    this.emitTimer = setTimeout(() => {
      this.emitTimer = undefined;
      const ids = [...this.pending];
      this.pending.clear();
      this.realtime.emit('cron.status', { tasks: ids.map((i) => this.stateOf(i)) }, Role.admin);
    }, EMIT_MS);
  }
}
