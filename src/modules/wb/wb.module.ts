import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { WbBrainService } from './brain/wb-brain.service.js';
import { WbReportService } from './report/wb-report.service.js';
import { WbSyncService } from './sync/wb-sync.service.js';
import { WB_ENTITIES } from './wb.entities.js';

/**
 * Marketplace (issue 23; 001 §2 "Reports and marketplace", /wb; docs/wb.md): the sync that pulls the
 * Wildberries seller APIs (src/core/outside/wb.client.ts) into the wb_* tables, the report and charts
 * /wb reads from them, and item.getChartBrain's price forecast.
 */
@Module({
  imports: [TypeOrmModule.forFeature(WB_ENTITIES), OutsideModule],
  providers: [WbSyncService, WbReportService, WbBrainService],
  exports: [WbSyncService],
})
export class WbModule {}
