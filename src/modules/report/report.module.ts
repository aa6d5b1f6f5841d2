import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { ReportBuildService } from './report-build.service.js';
import { ReportController } from './report.controller.js';
import { REPORT_ENTITIES } from './report.entities.js';
import { ReportService } from './report.service.js';
import { RsyaService } from './rsya.service.js';

/** Report dashboards (issue 23; docs/report.md): report charts, their drawing (console statistics or Yandex Metrika) and the partner totals. */
@Module({
  imports: [TypeOrmModule.forFeature(REPORT_ENTITIES), OutsideModule],
  controllers: [ReportController],
  providers: [ReportService, ReportBuildService, RsyaService],
  exports: [ReportService],
})
export class ReportModule {}
