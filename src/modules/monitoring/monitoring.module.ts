import { Module } from '@nestjs/common';
import { SrvModule } from '../srv/srv.module.js';
import { MonitoringCollector } from './monitoring-collector.service.js';
import { MonitoringStore } from './monitoring-store.service.js';
import { MonitoringController } from './monitoring.controller.js';
import { MonitoringService } from './monitoring.service.js';

/** Monitoring (000 §2 "Monitoring", issue 10): collector, tiers, reads. Decisions: docs/monitoring.md. */
@Module({
  imports: [SrvModule],
  controllers: [MonitoringController],
  providers: [MonitoringStore, MonitoringCollector, MonitoringService],
  exports: [MonitoringStore, MonitoringCollector, MonitoringService],
})
export class MonitoringModule {}
