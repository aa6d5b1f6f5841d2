import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { InvestRefreshService, REFRESH_WORKER } from '../modules/invest/services/refresh.service.js';

@Injectable()
export class InvestRefreshJob {
  constructor(private readonly invest: InvestRefreshService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: REFRESH_WORKER, label: 'Investments: bonds catalogue and coupons', schedule: 'every 10 minutes' });
  }

  /** The bonds catalogue, rates, prices and coupon schedules (docs/invest.md "Refresh"); INVEST_TOKEN and CRON_ENABLED; lease invest-refresh. */
  @Cron('0 */10 * * * *')
  run() {
    return this.workers.track(REFRESH_WORKER, async () => (this.cfg.cronEnabled ? this.invest.scheduledRefresh() : null), (r) => (r.errors.length ? r.errors.join(' | ') : null));
  }
}
