import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ReportClearArgs, ReportDeleteArgs, ReportGetArgs, ReportSaveArgs } from '../../contracts/report.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { ReportService } from './report.service.js';

/** REST rows of 001 §7 for report dashboards, under /api/report (docs/report.md): reads for every signed-in user, writes role 10 and stronger. */
@Controller('report')
@RequireRole(Role.user)
export class ReportController {
  constructor(private readonly reports: ReportService) {}

  /** `?quality=&status=&count_day=&tab_number=` (defaults 0, 1, 1): {list, count, filter}; `?Id=` one report. */
  @Get('get')
  get(@Query() q: unknown) {
    return this.reports.get(parseInput(ReportGetArgs, q ?? {}));
  }

  /** The sources, columns, Metrika metrics, chart types, captions, detail options and reference bounds the form offers. */
  @Get('get_type_metrics')
  typeMetrics() {
    return this.reports.typeMetrics();
  }

  /** Every field of the Report chart entity (a new report starts with the defaults): {Id, message, report}. */
  @Post('save')
  @HttpCode(200)
  @RequireRole(Role.content)
  save(@Body() body: unknown) {
    return this.reports.save(parseInput(ReportSaveArgs, body ?? {}));
  }

  /** {deleteId}: {message: 'Delete ok!'}. */
  @Post('remove')
  @HttpCode(200)
  @RequireRole(Role.content)
  remove(@Body() body: unknown) {
    return this.reports.remove(parseInput(ReportDeleteArgs, body ?? {}));
  }

  /** {clearId}: forgets the report's drawn data: {message: 'Clear ok!'}. */
  @Post('clear_stats')
  @HttpCode(200)
  @RequireRole(Role.content)
  clearStats(@Body() body: unknown) {
    return this.reports.clearStats(parseInput(ReportClearArgs, body ?? {}));
  }
}
