import { Controller, Get, Query } from '@nestjs/common';
import { Role } from '../../contracts/roles.js';
import { WorkerListArgs } from '../../contracts/workers.js';
import { RequireRole } from '../auth/actor.js';
import { parseInput } from '../errors.js';
import { WorkerRegistry } from './workers.js';

/** GET /api/worker/list (001 §7: paging; list, count): admins. Start and stop are the RPC worker.start / worker.stop. */
@Controller('worker')
@RequireRole(Role.admin)
export class WorkersController {
  constructor(private readonly workers: WorkerRegistry) {}

  /** `?page=` (or `p_`): {list, count}, 20 per page. */
  @Get('list')
  list(@Query() q: unknown) {
    return this.workers.list(parseInput(WorkerListArgs, q ?? {}));
  }
}
