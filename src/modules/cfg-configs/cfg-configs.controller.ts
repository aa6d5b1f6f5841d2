import { Controller, Get } from '@nestjs/common';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { CfgConfigsService } from './cfg-configs.service.js';

/** GET /api/cfg/domains (000 §7). The cron routes under /cfg belong to the cron module. */
@Controller('cfg')
@RequireRole(Role.admin)
export class CfgConfigsController {
  constructor(private readonly cfg: CfgConfigsService) {}

  @Get('domains')
  domains() {
    return this.cfg.getDomains();
  }
}
