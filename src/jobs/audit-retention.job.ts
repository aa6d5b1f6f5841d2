import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AuditService } from '../core/audit/audit.service.js';
import { WorkerRegistry } from '../core/workers/workers.js';

@Injectable()
export class AuditRetentionJob {
  private readonly log = new Logger('AuditRetention');

  constructor(private readonly audit: AuditService, @Inject(APP_CONFIG) private readonly cfg: AppConfig, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'audit-retention', label: 'Audit retention', schedule: 'every hour' });
  }

  /** Removes audit entries older than AUDIT_RETENTION_DAYS (every instance may run it: deleting twice removes nothing more). */
  @Cron(CronExpression.EVERY_HOUR)
  async run() {
    if (!this.cfg.cronEnabled) return;
    const n = await this.workers.track('audit-retention', () => this.audit.prune(this.cfg.auditRetentionDays));
    if (n) this.log.log(`removed ${n} audit entries older than ${this.cfg.auditRetentionDays} days`);
  }
}
