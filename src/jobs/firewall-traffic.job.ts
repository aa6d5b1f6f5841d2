import { Inject, Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { FirewallTrafficService } from '../modules/firewall/traffic/firewall-traffic.service.js';

@Injectable()
export class FirewallTrafficJob {
  constructor(private readonly traffic: FirewallTrafficService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: 'firewall-traffic', label: 'Firewall traffic rollup', schedule: 'every minute' });
  }

  /** Rolls new access log rows up into the traffic report's summary and drops summary hours retention emptied (every instance; a compare-and-set keeps it once), then brings this instance's kept report parts forward. */
  @Cron(CronExpression.EVERY_MINUTE)
  async run() {
    // recorded as a run only where CRON_ENABLED rolls up (elsewhere it only refreshes this instance's kept parts)
    await this.workers.track('firewall-traffic', async () => { await this.traffic.scheduledRollup(); return this.cfg.cronEnabled ? true : null; });
  }
}
