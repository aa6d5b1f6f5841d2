import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WorkerRegistry } from '../core/workers/workers.js';
import { MonitoringCollector } from '../modules/monitoring/monitoring-collector.service.js';

@Injectable()
export class MonitoringCollectJob implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig, private readonly collector: MonitoringCollector, private readonly registry: SchedulerRegistry, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'monitoring-collect', label: 'Monitoring collector', schedule: `every ${cfg.monitoring.intervalMs / 1000} s` });
  }

  /** A round every MONITOR_INTERVAL_SECONDS (CRON_ENABLED; one instance at a time: the lease). */
  onApplicationBootstrap() {
    if (!this.cfg.cronEnabled) return;
    const timer = setInterval(() => void this.tick(), this.cfg.monitoring.intervalMs);
    this.registry.addInterval('monitoring-collect', timer);
  }

  /** One scheduled round, unless the worker is stopped (/worker): answers its results, or null when nothing ran. */
  tick() {
    return this.workers.track('monitoring-collect', () => this.collector.scheduledRound(), (results) => {
      const failed = results.filter((r) => !r.ok);
      return failed.length ? `${failed.length} of ${results.length} servers not read: ${failed.slice(0, 3).map((r) => `${r.name}: ${r.error ?? r.reason ?? 'failed'}`).join('; ')}` : null;
    });
  }

  onApplicationShutdown() {
    if (this.registry.getIntervals().includes('monitoring-collect')) this.registry.deleteInterval('monitoring-collect');
  }
}
