import { Injectable } from '@nestjs/common';
import { WorkerRegistry } from '../../core/workers/workers.js';
import { CronEngine } from './cron-engine.js';
import { CronHistory } from './cron-history.js';

/**
 * The cron service on /worker (src/core/workers/workers.ts): its switch is the engine's own persisted service
 * switch (cron settings, and with Redis a control message to every instance), through the engine's
 * public serviceStatus/setService only; its last run is the newest task run of the history.
 */
@Injectable()
export class CronWorker {
  constructor(workers: WorkerRegistry, engine: CronEngine, history: CronHistory) {
    workers.register({
      name: 'cron-service', label: 'Cron service', schedule: 'the tasks of /cfg/app_cron',
      switch: {
        get: async () => engine.serviceStatus().service === 1,
        set: async (on) => { await engine.setService(on); },
      },
      lastRun: async () => {
        let last: { at: Date; error: string | null } | null = null;
        for (const r of await history.lastRuns()) {
          const at = r.ended ?? r.started;
          if (at && (!last || at > last.at)) last = { at, error: r.status === 'error' || r.status === 'killed' ? `task ${r.task_id}: ${r.message ?? r.status}` : null };
        }
        return last;
      },
    });
  }
}
