import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CRON_HISTORY_KEEP, type CronRunStatus, type CronRunTrigger, type CronRunView } from '../../contracts/cron.js';
import type { Paged } from '../../contracts/auth.js';
import { CronRunEntity } from './cron.entities.js';

export type RunRow = Omit<CronRunEntity, 'Id'>;

/** Rows are written in batches: at most this long after a run ends, or sooner when this many wait. */
const FLUSH_MS = 500;
const FLUSH_ROWS = 500;
const INSERT_CHUNK = 200;
const PRUNE_MS = 60_000;
/** Tasks whose row counts are read in one query by the prune. */
const PRUNE_CHUNK = 200;

/**
 * One turn of the event loop. With SQLite (better-sqlite3) a query runs synchronously and its promise
 * is already settled, so a loop of queries never lets a timer or a request in: the prune of 1,000
 * tasks held the loop for about 400 ms once a minute (the cron bench's action tasks, issue 25).
 */
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

export const toRunView = (r: CronRunEntity): CronRunView => ({
  Id: r.Id,
  task_id: r.task_id,
  source: r.source as CronRunTrigger,
  scheduled: r.scheduled?.toISOString() ?? null,
  started: r.started.toISOString(),
  ended: r.ended.toISOString(),
  status: r.status as CronRunStatus,
  message: r.message,
  output: r.output,
  duration_ms: r.duration_ms,
  instance: r.instance,
  uid: r.uid,
});

/**
 * The run history. Runs are queued and inserted in batches (one statement per 200 rows every 500 ms),
 * so 1,000 tasks a second cost a few statements, not thousands of commits; reads flush first. Each
 * task keeps its newest CRON_HISTORY_KEEP runs (pruned once a minute). A crash loses at most the
 * last half second of history.
 */
@Injectable()
export class CronHistory implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('CronHistory');
  private queue: RunRow[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private chain: Promise<void> = Promise.resolve();
  private readonly dirty = new Set<number>();
  private readonly deleted = new Set<number>();
  private pruneTimer?: ReturnType<typeof setInterval>;

  constructor(@InjectRepository(CronRunEntity) private readonly runs: Repository<CronRunEntity>) {}

  onModuleInit() {
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_MS);
    this.pruneTimer.unref();
  }

  async onModuleDestroy() {
    clearInterval(this.pruneTimer);
    await this.flush();
  }

  add(row: RunRow) {
    if (this.deleted.has(row.task_id)) return;
    this.queue.push(row);
    this.dirty.add(row.task_id);
    if (this.queue.length >= FLUSH_ROWS) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is queued (one flush at a time, in order). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.then(async () => {
      while (this.queue.length) {
        const batch = this.queue.splice(0, INSERT_CHUNK).filter((r) => !this.deleted.has(r.task_id));
        if (!batch.length) continue;
        try {
          await this.insert(batch);
        } catch (err) {
          this.log.error(`could not write ${batch.length} cron runs: ${(err as Error).message}`);
        }
        // SQLite inserts synchronously: let a request or a timer in between two statements.
        if (this.queue.length) await nextTurn();
      }
    });
    return this.chain;
  }

  /**
   * One multi-row INSERT with the driver's own value conversion (dates for SQLite or MariaDB): the
   * query builder's parameter handling costs more than the insert itself at 200 rows.
   */
  private async insert(batch: RunRow[]) {
    const ds = this.runs.manager.connection;
    const cols = this.runs.metadata.columns.filter((c) => !c.isGenerated);
    const row = `(${cols.map(() => '?').join(', ')})`;
    const params: unknown[] = [];
    for (const r of batch) for (const c of cols) params.push(ds.driver.preparePersistentValue(r[c.propertyName as keyof RunRow] ?? null, c));
    const table = ds.driver.escape(this.runs.metadata.tableName);
    await ds.query(`INSERT INTO ${table} (${cols.map((c) => ds.driver.escape(c.databaseName)).join(', ')}) VALUES ${batch.map(() => row).join(', ')}`, params);
  }

  /**
   * Keeps the newest CRON_HISTORY_KEEP runs of each task that ran since the last prune: one count
   * query per PRUNE_CHUNK tasks finds those over the limit, then two statements each, one task per
   * turn of the event loop (nextTurn), so the ticks and the API go on meanwhile.
   */
  async prune(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    for (let i = 0; i < ids.length; i += PRUNE_CHUNK) {
      let over: number[];
      try {
        const rows = await this.runs.createQueryBuilder('r').select('r.task_id', 'task_id').where('r.task_id IN (:...ids)', { ids: ids.slice(i, i + PRUNE_CHUNK) })
          .groupBy('r.task_id').having('COUNT(*) > :keep', { keep: CRON_HISTORY_KEEP }).getRawMany<{ task_id: number | string }>();
        over = rows.map((r) => Number(r.task_id));
      } catch (err) {
        this.log.warn(`prune of ${Math.min(PRUNE_CHUNK, ids.length - i)} tasks: ${(err as Error).message}`);
        continue;
      }
      for (const task_id of over) {
        await nextTurn();
        try {
          const edge = await this.runs.find({ select: { Id: true }, where: { task_id }, order: { Id: 'DESC' }, skip: CRON_HISTORY_KEEP - 1, take: 1 });
          if (edge.length) await this.runs.createQueryBuilder().delete().where('task_id = :task_id AND Id < :Id', { task_id, Id: edge[0].Id }).execute();
        } catch (err) {
          this.log.warn(`prune of task ${task_id}: ${(err as Error).message}`);
        }
      }
      await nextTurn();
    }
  }

  /** Drops a deleted task's history, queued runs included. */
  async forget(task_id: number): Promise<void> {
    this.deleted.add(task_id);
    this.queue = this.queue.filter((r) => r.task_id !== task_id);
    await this.flush();
    await this.runs.delete({ task_id });
  }

  async list(task_id: number, page: number, limit: number): Promise<Paged<CronRunView>> {
    await this.flush();
    const [rows, count] = await this.runs.findAndCount({ where: { task_id }, order: { Id: 'DESC' }, skip: (page - 1) * limit, take: limit });
    return { list: rows.map(toRunView), count, page, limit };
  }

  /** The newest run of every task that is not a skipped tick. */
  async lastRuns(): Promise<CronRunEntity[]> {
    await this.flush();
    const sub = this.runs.createQueryBuilder('x').select('MAX(x.Id)').where("x.status <> 'skipped'").groupBy('x.task_id');
    return this.runs.createQueryBuilder('r').where(`r.Id IN (${sub.getQuery()})`).getMany();
  }
}
