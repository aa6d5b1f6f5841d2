import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { CHECK_WORKER, PositionCheckService } from '../modules/position/position-check.service.js';

@Injectable()
export class PositionCheckJob {
  constructor(private readonly checks: PositionCheckService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: CHECK_WORKER, label: 'Search positions: due queries and history retention', schedule: 'every minute' });
  }

  /** Due queries within the quota's budget, history retention hourly (docs/position.md "Checking"); YANDEX_SEARCH_* and CRON_ENABLED; lease position-check. */
  @Cron('30 * * * * *')
  run() {
    return this.workers.track(CHECK_WORKER, async () => (this.cfg.cronEnabled ? this.checks.scheduledTick() : null), (r) => (r?.errors.length ? r.errors.join(' | ') : null));
  }
}
