import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { TodoAlertsService } from '../modules/todo/todo-alerts.service.js';

const NAME = 'todo-alerts';
/** How long a shutdown waits for the pass going on (its e-mails in flight) before the database closes. */
const STOP_WAIT_MS = 30_000;

@Injectable()
export class TodoAlertsJob implements OnApplicationBootstrap, OnModuleDestroy {
  private current: Promise<void> | null = null;
  private stopped = false;

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig, private readonly alerts: TodoAlertsService, private readonly registry: SchedulerRegistry, private readonly workers: WorkerRegistry) {
    workers.register({ name: NAME, label: 'Todo alerts', schedule: `every ${cfg.todoAlerts.scanMs / 1000} s` });
  }

  /** Whether a pass is going on. */
  get running(): boolean {
    return this.current !== null;
  }

  /** A pass every TODO_ALERT_SCAN_MS on every instance (CRON_ENABLED); the first at start, so alerts due while down go out at once. */
  onApplicationBootstrap() {
    if (!this.cfg.cronEnabled) return;
    this.registry.addInterval(NAME, setInterval(() => void this.tick(), this.cfg.todoAlerts.scanMs));
    setImmediate(() => void this.tick());
  }

  /** Passes until one is not full (each bounded by TODO_ALERT_BATCH), unless the worker is stopped (/worker). */
  tick(): Promise<void> {
    if (this.current || this.stopped) return this.current ?? Promise.resolve();
    this.current = (async () => {
      try {
        for (;;) {
          const r = await this.workers.track(NAME, () => this.alerts.pass(), (x) => x.error);
          if (!r?.full || this.stopped) break;
        }
      } finally {
        this.current = null;
      }
    })();
    return this.current;
  }

  /**
   * At shutdown (before the database and the mail transport close: this module goes first): no new pass;
   * the e-mails being sent finish, the ones waiting are given back (docs/todo.md "Delivery").
   */
  async onModuleDestroy() {
    this.stopped = true;
    if (this.registry.getIntervals().includes(NAME)) this.registry.deleteInterval(NAME);
    this.alerts.stop();
    const waited = Promise.all([this.current, this.alerts.drain()]);
    await Promise.race([waited, new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
  }
}
