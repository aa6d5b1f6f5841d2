import { Inject, Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { InvestRefreshService, PRICES_WORKER } from '../modules/invest/services/refresh.service.js';

@Injectable()
export class InvestPricesJob {
  constructor(private readonly invest: InvestRefreshService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: PRICES_WORKER, label: 'Investments: prices of the bonds held', schedule: 'every minute' });
  }

  /** Last prices of the bonds every account holds, pushed to open pages (docs/invest.md "Refresh"); INVEST_TOKEN and CRON_ENABLED; lease invest-prices. */
  @Cron(CronExpression.EVERY_MINUTE)
  run() {
    return this.workers.track(PRICES_WORKER, async () => (this.cfg.cronEnabled ? this.invest.scheduledPrices() : null));
  }
}
