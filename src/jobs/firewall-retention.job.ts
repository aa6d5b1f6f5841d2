import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { WorkerRegistry } from '../core/workers/workers.js';
import { FirewallWorkerService } from '../modules/firewall/worker/firewall-worker.service.js';

@Injectable()
export class FirewallRetentionJob {
  constructor(private readonly worker: FirewallWorkerService, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'firewall-retention', label: 'Firewall log retention', schedule: 'every 10 minutes' });
  }

  /** Removes access log entries and counters past FIREWALL_LOG_RETENTION_HOURS, in batches (CRON_ENABLED, one instance: the lease). */
  @Cron(CronExpression.EVERY_10_MINUTES)
  run() {
    return this.workers.track('firewall-retention', () => this.worker.scheduledRetention());
  }
}
