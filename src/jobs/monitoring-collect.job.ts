import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { MonitoringCollector } from '../modules/monitoring/monitoring-collector.service.js';

@Injectable()
export class MonitoringCollectJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('MonitoringCollectJob');
  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig, private readonly collector: MonitoringCollector, private readonly registry: SchedulerRegistry) {}

  /** A round every MONITOR_INTERVAL_SECONDS (CRON_ENABLED; one instance at a time: the lease). */
  onApplicationBootstrap() {
    if (!this.cfg.cronEnabled) return;
    const timer = setInterval(() => void this.collector.scheduledRound().catch((err: Error) => this.log.warn(`round: ${err.message}`)), this.cfg.monitoring.intervalMs);
    this.registry.addInterval('monitoring-collect', timer);
  }

  onApplicationShutdown() {
    if (this.registry.getIntervals().includes('monitoring-collect')) this.registry.deleteInterval('monitoring-collect');
  }
}
