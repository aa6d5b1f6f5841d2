/**
 * The console's own background workers (001 §2 /worker, §3 Worker, §4 "Worker: status 'ok' shows Stop,
 * otherwise Start", §7 GET /worker/list, §9 worker 20 per page): shapes and input schemas shared by the
 * server (src/core/workers/workers.ts) and the UI (src/ui/areas/workers). Decisions: docs/operations.md "Workers".
 */
import { z } from 'zod';
import { int, INT_MAX, text } from './fields.js';

/** 001 §9: worker 20 per page. */
export const WORKERS_PAGE = 20;

/** 'ok': switched on (its schedule fires); 'stopped': switched off by an admin (persisted, every instance). */
export type WorkerStatus = 'ok' | 'stopped';

export interface WorkerView {
  /** Stable key ('monitoring-collect'). */
  name: string;
  label: string;
  /** When it runs ('every minute'). */
  schedule: string;
  status: WorkerStatus;
  /** ISO time the last run on any instance ended, or null. */
  last_run: string | null;
  /** The last run's failure, or null when it succeeded. */
  last_error: string | null;
  /** Whether this instance runs scheduled work at all (CRON_ENABLED). */
  scheduling: boolean;
}

/** GET /worker/list (001 §7: paging; list, count) and worker.getList. */
export const WorkerListArgs = z.object({
  page: int(1, INT_MAX, 'page').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
});

/** worker.start / worker.stop. */
export const WorkerNameArgs = z.object({ name: text('name', 64, { min: 1 }) });

export const WORKER_MSG = { notFound: 'Worker not found', started: 'Worker started', stopped: 'Worker stopped' } as const;
