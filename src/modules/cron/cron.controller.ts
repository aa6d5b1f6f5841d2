import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { CronGetArgs, CronSaveArgs } from '../../contracts/cron.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput } from '../../core/errors.js';
import { CronService } from './cron.service.js';

/** REST rows of 000 §7 for cron, under /api/cfg. The RPC twins live on CronService. */
@Controller('cfg')
@RequireRole(Role.admin)
export class CronController {
  constructor(private readonly cron: CronService) {}

  /** `?Id=`: that task; without Id: every task. */
  @Get('app_cron')
  get(@Query() q: unknown) {
    return this.cron.get(parseInput(CronGetArgs, q ?? {}));
  }

  /** Task fields; with Id an update of the fields given. Answers {Id, message: 'Save is ok!'}. */
  @Post('save_app_cron')
  @HttpCode(200)
  save(@Body() body: unknown, @Req() req: AuthedRequest) {
    return this.cron.save(parseInput(CronSaveArgs, body ?? {}), { actor: req.actor! });
  }
}
