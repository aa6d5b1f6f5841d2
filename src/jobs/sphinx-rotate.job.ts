import { Inject, Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { SearchSourcesService } from '../modules/search-nodes/search-sources.service.js';

@Injectable()
export class SphinxRotateJob {
  constructor(private readonly sources: SearchSourcesService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: 'sphinx-rotate', label: 'Search index rotation', schedule: 'every minute' });
  }

  /** Rotates every source whose ttl_min has passed since its last run (001 §9: 120 by default); CRON_ENABLED; a lease per source. */
  @Cron(CronExpression.EVERY_MINUTE)
  run() {
    return this.workers.track('sphinx-rotate', async () => (this.cfg.cronEnabled ? this.sources.scheduledRotate() : null), (done) => {
      const failed = done.filter((d) => d.errors.length);
      return failed.length ? failed.map((d) => `${d.source}: ${d.errors.join('; ')}`).join(' | ') : null;
    });
  }
}
