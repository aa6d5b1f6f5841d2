/**
 * The console's own background workers (001 §2 /worker, §3 Worker, §4, §7 GET /worker/list): one
 * registry every scheduled job and engine registers with, so /worker lists them, says how each last
 * ran, and switches each off and on. Decisions: docs/operations.md "Workers".
 *
 * - A worker registers `{name, label, schedule}` (src/jobs do it in their constructor; an engine from an
 *   adapter of its own module, e.g. src/modules/cron/cron-worker.ts). A worker that already has a
 *   persisted switch of its own (the firewall worker's fw_settings row, the cron service switch) passes
 *   it as `switch`; every other worker's switch is its row of the `workers` table (on when absent).
 * - A job runs its work through `track(name, fn)`: stopped, the work is not called at all (answers
 *   null); otherwise the run's end and its failure (or null) are written to the worker's row, shared by
 *   every instance. Work that answers null did not run here (CRON_ENABLED off, another instance holds
 *   the lease) and records nothing.
 * - The switch is read from the database at every firing, so a stop or start applies on every instance
 *   at its next tick and survives restarts; a run going on when a worker is stopped finishes.
 */
import { Column, Entity, PrimaryColumn, type Repository } from 'typeorm';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { Role } from '../../contracts/roles.js';
import { WORKER_MSG, WORKERS_PAGE, WorkerListArgs, WorkerNameArgs, type WorkerView } from '../../contracts/workers.js';
import { auditTarget } from '../audit/audit-target.js';
import { notFound } from '../errors.js';
import { Rpc } from '../rpc/rpc.decorator.js';

/** One row per worker (migration 1806000000000): its switch (when it has none of its own) and its last run. */
@Entity('workers')
export class WorkerStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'integer', default: 1 }) enabled: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) last_run: Date | null;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
}

/** A switch persisted elsewhere (on: its schedule fires). */
export interface WorkerSwitch {
  get(): Promise<boolean>;
  set(on: boolean): Promise<void>;
}

export interface WorkerDef {
  name: string;
  label: string;
  /** When it runs, as the list shows it ('every minute'). */
  schedule: string;
  /** Its own persisted switch; default: the `workers` row. */
  switch?: WorkerSwitch;
  /** Its own record of the last run (used instead of the `workers` row when it answers). */
  lastRun?: () => Promise<{ at: Date | null; error: string | null } | null>;
}

const ERROR_MAX = 2000;

@Injectable()
export class WorkerRegistry {
  private readonly log = new Logger('Workers');
  private readonly defs = new Map<string, WorkerDef>();

  constructor(
    @InjectRepository(WorkerStateEntity) private readonly rows: Repository<WorkerStateEntity>,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /** Adds a worker to the list (a second registration of the same name replaces the first). */
  register(def: WorkerDef): void {
    this.defs.set(def.name, def);
  }

  /** Every registered worker's name, by label (the list's order). */
  names(): string[] {
    return [...this.defs.values()].sort((a, b) => a.label.localeCompare(b.label)).map((d) => d.name);
  }

  private def(name: string): WorkerDef {
    const d = this.defs.get(name);
    if (!d) throw notFound(WORKER_MSG.notFound);
    return d;
  }

  /** Whether the worker's switch is on (read from the database: the same answer on every instance). */
  async isOn(name: string): Promise<boolean> {
    const d = this.def(name);
    if (d.switch) return d.switch.get();
    const row = await this.rows.findOne({ where: { name } });
    return !row || row.enabled === 1;
  }

  /**
   * Runs a job's work unless the worker is stopped, and records the run: its end and failure (thrown,
   * or what `errorOf` finds in the answer). Never throws: a failure is logged and answered as null.
   */
  async track<T>(name: string, fn: () => Promise<T | null> | T | null, errorOf?: (result: T) => string | null): Promise<T | null> {
    let on: boolean;
    try {
      on = await this.isOn(name);
    } catch (err) {
      this.log.warn(`${name}: its switch could not be read (${(err as Error).message}); not run`);
      return null;
    }
    if (!on) return null;
    let result: T | null;
    try {
      result = await fn();
    } catch (err) {
      const message = (err as Error).message || String(err);
      this.log.warn(`${name}: ${message}`);
      await this.record(name, message);
      return null;
    }
    if (result !== null) await this.record(name, errorOf ? errorOf(result as T) : null);
    return result;
  }

  /** Writes a run's end and failure (or null) to the worker's row; never throws. */
  async record(name: string, error: string | null, at = new Date()): Promise<void> {
    const patch = { last_run: at, last_error: error === null ? null : error.slice(0, ERROR_MAX) };
    try {
      await this.upsert(name, patch);
    } catch (err) {
      this.log.warn(`${name}: its run could not be recorded (${(err as Error).message})`);
    }
  }

  private async upsert(name: string, patch: Partial<WorkerStateEntity>): Promise<void> {
    const r = await this.rows.update({ name }, patch);
    if (r.affected) return;
    try {
      await this.rows.insert({ name, enabled: 1, last_run: null, last_error: null, ...patch });
    } catch {
      await this.rows.update({ name }, patch); // another instance inserted it first
    }
  }

  async view(name: string, row?: WorkerStateEntity | null): Promise<WorkerView> {
    const d = this.def(name);
    if (row === undefined) row = await this.rows.findOne({ where: { name } });
    const own = d.lastRun ? await d.lastRun().catch(() => null) : null;
    const on = d.switch ? await d.switch.get() : !row || row.enabled === 1;
    const at = own ? own.at : row?.last_run ?? null;
    return {
      name: d.name,
      label: d.label,
      schedule: d.schedule,
      status: on ? 'ok' : 'stopped',
      last_run: at ? new Date(at).toISOString() : null,
      last_error: own ? own.error : row?.last_error ?? null,
      scheduling: this.cfg.cronEnabled,
    };
  }

  @Rpc('worker.getList', {
    role: Role.admin, input: WorkerListArgs,
    summary: `{page? | p_?}: the console's background workers, ${WORKERS_PAGE} per page: {list: [{name, label, schedule, status: ok|stopped, last_run, last_error, scheduling}], count}`,
  })
  async list(a: z.output<typeof WorkerListArgs> = {}): Promise<{ list: WorkerView[]; count: number }> {
    const page = a.page ?? a.p_ ?? 1;
    const names = this.names().slice((page - 1) * WORKERS_PAGE, page * WORKERS_PAGE);
    const rows = await this.rows.find();
    const byName = new Map(rows.map((r) => [r.name, r]));
    const list: WorkerView[] = [];
    for (const n of names) list.push(await this.view(n, byName.get(n) ?? null));
    return { list, count: this.defs.size };
  }

  @Rpc('worker.start', { role: Role.admin, write: true, input: WorkerNameArgs, summary: "{name}: switches the worker on (persisted, every instance: its next tick runs); answers the worker as in worker.getList; 'Worker not found'" })
  start(a: z.output<typeof WorkerNameArgs>): Promise<WorkerView> {
    return this.setOn(a.name, true);
  }

  @Rpc('worker.stop', { role: Role.admin, write: true, input: WorkerNameArgs, summary: "{name}: switches the worker off (persisted, every instance: no tick runs it; a run going on finishes); answers the worker; 'Worker not found'" })
  stop(a: z.output<typeof WorkerNameArgs>): Promise<WorkerView> {
    return this.setOn(a.name, false);
  }

  private async setOn(name: string, on: boolean): Promise<WorkerView> {
    const d = this.def(name);
    auditTarget('worker', d.label, d.name);
    if (d.switch) await d.switch.set(on);
    else await this.upsert(name, { enabled: on ? 1 : 0 });
    this.log.log(`${d.name} ${on ? 'started' : 'stopped'}`);
    return this.view(name);
  }
}
