import { Controller, Get, Query } from '@nestjs/common';
import { ChartQuery } from '../../contracts/monitoring.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { MonitoringService } from './monitoring.service.js';

/** REST rows of 000 §7 for monitoring, under /api/monitoring: every signed-in user. The RPC twins live on MonitoringService. */
@Controller('monitoring')
@RequireRole(Role.user)
export class MonitoringController {
  constructor(private readonly mon: MonitoringService) {}

  /** `?type=&minutes=&not_id=&quality=`: one chart per server of that type (absent: the grouped types). */
  @Get('srv/chart')
  chart(@Query() q: unknown) {
    return this.mon.chart(parseInput(ChartQuery, q ?? {}));
  }

  @Get('srv/cpu_loading')
  cpuLoading() {
    return this.mon.cpuLoading();
  }

  @Get('get_balancing')
  balancing() {
    return this.mon.balancing();
  }
}
