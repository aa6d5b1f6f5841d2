import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { WorkerRegistry } from '../core/workers/workers.js';
import { MonitoringCollector } from '../modules/monitoring/monitoring-collector.service.js';

@Injectable()
export class MonitoringRetentionJob {
  constructor(private readonly collector: MonitoringCollector, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'monitoring-retention', label: 'Monitoring retention', schedule: 'every 10 minutes' });
  }

  /** Prunes each monitoring tier past its retention (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_10_MINUTES)
  run() {
    return this.workers.track('monitoring-retention', () => this.collector.scheduledPrune());
  }
}
