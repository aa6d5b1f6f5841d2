import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AuthService } from '../core/auth/auth.service.js';
import { WorkerRegistry } from '../core/workers/workers.js';

@Injectable()
export class SessionCleanupJob {
  constructor(private readonly auth: AuthService, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'session-cleanup', label: 'Session cleanup', schedule: 'every hour' });
  }

  /** Expired sessions are refused on use; this removes their rows. */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.workers.track('session-cleanup', async () => { await this.auth.purgeExpired(); return true; });
  }
}
