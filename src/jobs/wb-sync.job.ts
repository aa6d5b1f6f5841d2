import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { WB_SYNC_WORKER, WbSyncService } from '../modules/wb/sync/wb-sync.service.js';

@Injectable()
export class WbSyncJob {
  constructor(private readonly wb: WbSyncService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: WB_SYNC_WORKER, label: 'Marketplace: cards, finance report, funnel and ad spend', schedule: 'every 3 hours' });
  }

  /** The last WB_SYNC_DAYS days from the Wildberries seller APIs into the wb_* tables (docs/wb.md "Sync"); WB_TOKEN and CRON_ENABLED; lease wb-sync. */
  @Cron('0 20 */3 * * *')
  run() {
    return this.workers.track(WB_SYNC_WORKER, async () => (this.cfg.cronEnabled ? this.wb.scheduledSync() : null), (r) => (r.errors.length ? r.errors.join(' | ') : null));
  }
}
