import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { SslService } from '../modules/srv/ssl.service.js';

@Injectable()
export class SslCheckJob {
  constructor(private readonly ssl: SslService, private readonly workers: WorkerRegistry, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    workers.register({ name: 'ssl-check', label: 'SSL check', schedule: 'daily at 06:15' });
  }

  /** Daily certificate expiry check of the SSL hosts (000 §2 /srv/ssl_check). */
  @Cron('0 15 6 * * *')
  run() {
    return this.workers.track('ssl-check', async () => {
      if (!this.cfg.cronEnabled) return null;
      await this.ssl.scheduledCheck();
      return true;
    });
  }
}
