import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MonitoringCollector } from '../modules/monitoring/monitoring-collector.service.js';

@Injectable()
export class MonitoringRetentionJob {
  constructor(private readonly collector: MonitoringCollector) {}

  /** Prunes each monitoring tier past its retention (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_10_MINUTES)
  run() {
    return this.collector.scheduledPrune();
  }
}
