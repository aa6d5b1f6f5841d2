import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { LogsFileArgs, LogsIdArgs } from '../../contracts/logs.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { LogsService } from './logs.service.js';

/** REST rows of 000 §7 for logs, under /api, admins only: POST /log_del {Id, name}, GET /logs?Id=. RPC twins on LogsService. */
@Controller()
@RequireRole(Role.admin)
export class LogsController {
  constructor(private readonly logs: LogsService) {}

  @Post('log_del')
  @HttpCode(200)
  remove(@Body() body: unknown) {
    return this.logs.remove(parseInput(LogsFileArgs, body ?? {}));
  }

  /** `?Id=`: the node's log files ({host, files}). */
  @Get('logs')
  files(@Query() q: unknown) {
    return this.logs.getFiles(parseInput(LogsIdArgs, q ?? {}));
  }
}
