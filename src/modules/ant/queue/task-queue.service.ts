import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ANT_LEASE_MS, ANT_SIMILARITY_THRESHOLD, ANT_TASK_LIST_ROWS, ANT_TASK_MAX_ATTEMPTS, ANT_STEP_IDS, antStepDescription,
  type AntTaskOutput, type AntTaskStat, type AntTaskView, type AntWaitTask,
} from '../../../contracts/ant.js';
import { sha256 } from '../../../core/crypto/secret-box.js';
import { AntPageEntity, AntTaskEntity, AntUniquenessEntity } from '../ant.entities.js';

export const TASK_QUEUED = 0;
export const TASK_LEASED = 1;
export const TASK_DONE = 2;
export const TASK_FAILED = 3;
/** Back-off of a failed task before it is handed out again. */
const RETRY_MS = 5_000;
/**
 * Each instance reads the next due tasks ahead, this many per read, and hands them out from memory: one
 * scan of the queue index serves many hand-outs, and this instance's ants never race each other for a
 * row (on MariaDB a scan per hand-out cost 30-80 ms under load: the index's entries of just-leased rows
 * stay delete-marked until InnoDB purges them, and every scan walked them).
 */
const READ_AHEAD = 256;
/** A read-ahead older than this is read again (tasks returned to the queue meanwhile are older ones). */
const READ_AHEAD_MS = 1_000;
/** A hand-out takes one of the oldest few read-ahead rows at random, so instances reading the same rows seldom collide. */
const PICK_AMONG = 8;
/** Claims tried per hand-out before answering "none" (a row claimed by another instance fails its claim). */
const CLAIM_TRIES = 64;

interface Candidate { Id: number; step: number; item: string; time: number; attempts: number }
/**
 * One step set's read-ahead. `arrivals`: the count of other instances' arrivals when the rows were read
 * (a read that found none holds until the next one). `complete`: the read found fewer rows than it
 * asked for, so the rows are the step set's whole queue, and tasks queued on this instance since are
 * appended to them (no read needed to hand them out).
 */
interface ReadAhead {
  steps: ReadonlySet<number> | null;
  rows: Candidate[];
  at: number;
  arrivals: number;
  complete: boolean;
  reading?: { arrivals: number; done: Promise<void> };
  /** Tasks queued here while a read was in flight (it may have missed them). */
  during: Candidate[];
}

export const urlKey = (url: string) => sha256(url);
const view = (t: AntTaskEntity): AntTaskView => ({ Id: t.Id, step: t.step, item: t.item, time: t.time });

/**
 * The task queue (docs/ant.md "Queue"): the database is the one queue every console instance shares.
 * A task is claimed with one conditional UPDATE (state 0 → 1 with a new lease id), so two instances
 * never hand out one task at once; finishing and renewing check the lease id; an expired or released
 * lease puts the task back (state 0). Same SQL on SQLite and MariaDB.
 */
@Injectable()
export class TaskQueueService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get tasks() {
    return this.db.getRepository(AntTaskEntity);
  }

  /**
   * Queues (step, item); an existing task of the same step and item is answered instead (duplicate).
   * The insert comes first and the unique (step, item_key) index decides: one statement for a new task
   * (no look-up before it, no transaction of its own, no read-back of the defaults), a look-up only
   * after a refused insert.
   */
  async add(step: number, item: string, em: EntityManager = this.db.manager): Promise<{ task: AntTaskView; duplicate: boolean }> {
    const key = sha256(item);
    const time = Date.now();
    try {
      const r = await em.createQueryBuilder().insert().into(AntTaskEntity)
        .values({ step, item, item_key: key, time, state: TASK_QUEUED }).updateEntity(false).execute();
      // the new row's Id: mysql2 answers an OkPacket, better-sqlite3 the last row id
      const raw = r.raw as { insertId?: number | bigint } | number | bigint;
      const task = { Id: Number(typeof raw === 'object' ? raw.insertId : raw), step, item, time };
      // in a caller's transaction the row is not committed yet: the caller tells queued() after
      if (em === this.db.manager) this.queued([task]);
      return { task, duplicate: false };
    } catch (err) {
      const found = await em.getRepository(AntTaskEntity).findOne({ where: { step, item_key: key } });
      if (found) return { task: view(found), duplicate: true };
      throw err;
    }
  }

  /**
   * Read-ahead rows per step set ("" = any step), this instance only. Tasks returned to the queue here
   * (released, expired) clear it, so they are handed out again first; returned on another
   * instance, or due again after a failure's back-off, they are read within READ_AHEAD_MS.
   */
  private readonly ahead = new Map<string, ReadAhead>();
  /** Arrivals seen by this instance (arrived()). */
  private arrivals = 0;

  /** Claims one of the oldest due tasks of `steps` (empty: any step) for connection `owner`; null when none. */
  async lease(owner: string, ownerName: string, steps: readonly number[]): Promise<AntTaskEntity | null> {
    const key = [...steps].sort((a, b) => a - b).join(',');
    for (let tries = 0; tries < CLAIM_TRIES; tries++) {
      const c = await this.nextCandidate(key, steps);
      if (!c) return null;
      const now = Date.now();
      const claim = { state: TASK_LEASED, lease: randomUUID(), lease_owner: owner, lease_name: ownerName.slice(0, 64), lease_until: now + ANT_LEASE_MS };
      const r = await this.tasks.createQueryBuilder().update(AntTaskEntity)
        .set({ ...claim, attempts: () => 'attempts + 1' })
        .where('Id = :id AND state = :s AND due <= :now', { id: c.Id, s: TASK_QUEUED, now })
        .execute();
      // the row as the UPDATE left it (only this lease can have changed it since the read)
      if ((r.affected ?? 0) === 1) return this.tasks.create({ ...c, ...claim, attempts: c.attempts + 1 });
    }
    return null;
  }

  /**
   * Tasks were queued or came back on another instance (the hub calls this when that instance's wake-up
   * reaches it): a step set whose last read found nothing reads again. Until then an ant asking in vain
   * costs no query.
   */
  arrived() {
    this.arrivals++;
  }

  /** Tasks queued on this instance (committed): appended to every complete read-ahead of their step. */
  queued(tasks: readonly AntTaskView[]) {
    for (const a of this.ahead.values()) {
      for (const t of tasks) {
        if (a.steps && !a.steps.has(t.step)) continue;
        if (a.complete) a.rows.push({ ...t, attempts: 0 });
        if (a.reading) a.during.push({ ...t, attempts: 0 });
      }
    }
  }

  /** The next read-ahead row for a step set, reading ahead when there is none or they are old; null: the queue has none. */
  private async nextCandidate(key: string, steps: readonly number[]): Promise<Candidate | null> {
    let a = this.ahead.get(key);
    if (!a) this.ahead.set(key, (a = { steps: steps.length ? new Set(steps) : null, rows: [], at: 0, arrivals: -1, complete: false, during: [] }));
    for (let reads = 0; reads < 3; reads++) {
      const fresh = Date.now() - a.at <= READ_AHEAD_MS;
      if (a.rows.length && fresh) {
        const i = Math.floor(Math.random() * Math.min(PICK_AMONG, a.rows.length));
        return a.rows.splice(i, 1)[0];
      }
      if (fresh && a.complete && a.arrivals === this.arrivals) return null;
      // Ants asking meanwhile wait for the same read, unless tasks arrived after it started.
      if (a.reading?.arrivals !== this.arrivals) a.reading = this.readAhead(a, steps);
      await a.reading.done;
    }
    return null;
  }

  private readAhead(a: ReadAhead, steps: readonly number[]): NonNullable<ReadAhead['reading']> {
    const arrivals = this.arrivals;
    const reading = {
      arrivals,
      done: this.candidates(steps, Date.now()).then((rows) => {
        if (arrivals < a.arrivals) return; // a later read already answered
        a.complete = rows.length < READ_AHEAD;
        if (a.complete && a.during.length) {
          const seen = new Set(rows.map((r) => r.Id));
          rows.push(...a.during.filter((t) => !seen.has(t.Id)));
        }
        a.during = [];
        a.rows = rows;
        a.at = Date.now();
        a.arrivals = arrivals;
      }).finally(() => {
        if (a.reading === reading) a.reading = undefined;
      }),
    };
    return reading;
  }

  /**
   * The oldest READ_AHEAD due tasks of `steps`, oldest first. Per step, the (state, step, Id) index
   * yields a step's oldest rows in order, so several steps are read as one query of a few rows per step
   * rather than `step IN (...) ORDER BY Id`, which sorts every queued task of those steps (a backlog of
   * 10,000 tasks made each read sort 10,000 rows).
   */
  private async candidates(steps: readonly number[], now: number): Promise<Candidate[]> {
    const cols = 'Id, step, item, time, attempts';
    const one = `SELECT ${cols} FROM ant_tasks WHERE state = ? AND step = ? AND due <= ? ORDER BY Id LIMIT ${READ_AHEAD}`;
    const [sql, params] = steps.length && steps.length <= 16
      ? [`${steps.map((_, i) => `SELECT * FROM (${one}) AS s${i}`).join(' UNION ALL ')} ORDER BY Id LIMIT ${READ_AHEAD}`, steps.flatMap((step) => [TASK_QUEUED, step, now])]
      : steps.length
        ? [`SELECT ${cols} FROM ant_tasks WHERE state = ? AND due <= ? AND step IN (${steps.map(() => '?').join(', ')}) ORDER BY Id LIMIT ${READ_AHEAD}`, [TASK_QUEUED, now, ...steps]]
        : [`SELECT ${cols} FROM ant_tasks WHERE state = ? AND due <= ? ORDER BY Id LIMIT ${READ_AHEAD}`, [TASK_QUEUED, now]];
    const rows = (await this.db.query(sql, params)) as Array<{ Id: number | string; step: number | string; item: string; time: number | string; attempts: number | string }>;
    return rows.map((r) => ({ Id: Number(r.Id), step: Number(r.step), item: r.item, time: Number(r.time), attempts: Number(r.attempts) }));
  }

  /** Extends a lease; false when it is no longer this lease (expired and handed to another ant). */
  async renew(Id: number, lease: string): Promise<number | null> {
    const until = Date.now() + ANT_LEASE_MS;
    const r = await this.tasks.createQueryBuilder().update(AntTaskEntity).set({ lease_until: until })
      .where('Id = :Id AND lease = :lease AND state = :s', { Id, lease, s: TASK_LEASED }).execute();
    return (r.affected ?? 0) === 1 ? until : null;
  }

  /**
   * Finishes a leased task and applies what it produced (new tasks, the scanned page, marks, the
   * result) in one transaction: a lease that is no longer held changes nothing (false).
   */
  async complete(Id: number, lease: string, out: AntTaskOutput): Promise<boolean> {
    const added: AntTaskView[] = [];
    const ok = await this.db.transaction(async (em) => {
      const r = await em.createQueryBuilder().update(AntTaskEntity).set({ state: TASK_DONE, lease_until: 0, done_at: Date.now(), last_error: null })
        .where('Id = :Id AND lease = :lease AND state = :s', { Id, lease, s: TASK_LEASED }).execute();
      if ((r.affected ?? 0) !== 1) return false;
      const now = Date.now();
      if (out.page) {
        const key = urlKey(out.page.url);
        const pages = em.getRepository(AntPageEntity);
        const found = await pages.findOneBy({ url_key: key });
        const row = { url_key: key, url: out.page.url, title: out.page.title.slice(0, 1000), body: out.page.text.slice(0, 60_000), scanned: now };
        if (found) await pages.update({ Id: found.Id }, row);
        else await pages.insert(row);
      }
      if (out.marks?.length) {
        const marks = em.getRepository(AntUniquenessEntity);
        for (const m of out.marks) {
          const ppm = Math.max(0, Math.min(1_000_000, Math.round(m.similarity * 1_000_000)));
          const key = urlKey(m.url);
          const found = await marks.findOneBy({ Id_book: m.Id_book, url_key: key });
          if (found) await marks.update({ Id_book: m.Id_book, url_key: key }, { similarity_ppm: ppm, time: now, result: 0 });
          else await marks.insert({ Id_book: m.Id_book, url_key: key, url: m.url, similarity_ppm: ppm, time: now, result: 0 });
        }
      }
      if (out.result) {
        const key = urlKey(out.result.url);
        await em.createQueryBuilder().update(AntUniquenessEntity).set({ result: 1 })
          .where('url_key = :key AND similarity_ppm >= :min', { key, min: Math.round(ANT_SIMILARITY_THRESHOLD * 1_000_000) }).execute();
      }
      for (const t of out.tasks ?? []) {
        const r = await this.add(t.step, t.item, em);
        if (!r.duplicate) added.push(r.task);
      }
      return true;
    });
    if (added.length) this.queued(added);
    return ok;
  }

  /** A failure: back to the queue after a back-off, or failed for good (`final`, or attempts used up). */
  async fail(Id: number, lease: string, error: string, final = false): Promise<boolean> {
    const t = await this.tasks.findOneBy({ Id, lease, state: TASK_LEASED });
    if (!t) return false;
    const dead = final || t.attempts >= ANT_TASK_MAX_ATTEMPTS;
    const r = await this.tasks.createQueryBuilder().update(AntTaskEntity)
      .set({ state: dead ? TASK_FAILED : TASK_QUEUED, lease: '', lease_owner: '', lease_name: '', lease_until: 0, due: Date.now() + RETRY_MS, last_error: error.slice(0, 2000) })
      .where('Id = :Id AND lease = :lease AND state = :s', { Id, lease, s: TASK_LEASED }).execute();
    return (r.affected ?? 0) === 1;
  }

  /** Returns every task a connection holds to the queue (it disconnected or was reloaded); how many. */
  async releaseOwner(owner: string): Promise<number> {
    const r = await this.tasks.createQueryBuilder().update(AntTaskEntity)
      .set({ state: TASK_QUEUED, lease: '', lease_owner: '', lease_name: '', lease_until: 0 })
      .where('lease_owner = :owner AND state = :s', { owner, s: TASK_LEASED }).execute();
    if (r.affected) this.ahead.clear();
    return r.affected ?? 0;
  }

  /** Returns every expired lease to the queue (any instance may run it; idempotent). */
  async expire(now = Date.now()): Promise<number> {
    const r = await this.tasks.createQueryBuilder().update(AntTaskEntity)
      .set({ state: TASK_QUEUED, lease: '', lease_owner: '', lease_name: '', lease_until: 0 })
      .where('state = :s AND lease_until < :now', { s: TASK_LEASED, now }).execute();
    if (r.affected) this.ahead.clear();
    return r.affected ?? 0;
  }

  async get(Id: number) {
    return this.tasks.findOneBy({ Id });
  }

  /** The first ANT_TASK_LIST_ROWS queued tasks. */
  async list(): Promise<AntTaskView[]> {
    const rows = await this.tasks.find({ where: { state: TASK_QUEUED }, order: { Id: 'ASC' }, take: ANT_TASK_LIST_ROWS });
    return rows.map(view);
  }

  /** Queued tasks per step, every described step listed (0 when none), plus undescribed steps with tasks. */
  async stats(): Promise<AntTaskStat[]> {
    const rows: { step: number | string; n: number | string }[] = await this.tasks.createQueryBuilder('t')
      .select('t.step', 'step').addSelect('COUNT(*)', 'n').where('t.state = :s', { s: TASK_QUEUED }).groupBy('t.step').getRawMany();
    const counts = new Map(rows.map((r) => [Number(r.step), Number(r.n)]));
    const steps = [...new Set([...ANT_STEP_IDS, ...counts.keys()])].sort((a, b) => a - b);
    return steps.map((step) => ({ step, description: antStepDescription(step), count: counts.get(step) ?? 0 }));
  }

  /** Leased tasks and queued tasks waiting for their retry back-off (at most 100). */
  async waitList(): Promise<AntWaitTask[]> {
    const now = Date.now();
    const rows = await this.tasks.createQueryBuilder('t')
      .where('t.state = :l', { l: TASK_LEASED })
      .orWhere('(t.state = :q AND t.due > :now)', { q: TASK_QUEUED, now })
      .orderBy('t.Id', 'ASC').limit(100).getMany();
    return rows.map((t) => ({
      ...view(t),
      state: t.state === TASK_LEASED ? 'leased' : 'retry',
      ant: t.state === TASK_LEASED ? t.lease_owner : null,
      antName: t.state === TASK_LEASED ? t.lease_name : null,
      until: t.state === TASK_LEASED ? t.lease_until : t.due,
      attempts: t.attempts,
      last_error: t.last_error,
    }));
  }

  async page(url: string) {
    return this.db.getRepository(AntPageEntity).findOneBy({ url_key: urlKey(url) });
  }
}
