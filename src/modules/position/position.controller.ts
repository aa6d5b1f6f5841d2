import { Controller, Get, Query } from '@nestjs/common';
import { PositionQueryListArgs, PositionTopArgs } from '../../contracts/position.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { PositionService } from './position.service.js';

/**
 * 001 §7 REST of position tracking: GET /api/position/projects, GET /api/position/project/query
 * (?id_project=&p_=&limit=&days=&id_query=) and the project's top stats GET /api/position/project/top
 * (?id_project=&days=&top=). The same answers as position.getProjects / getQueries / getTopStats.
 */
@Controller('position')
@RequireRole(Role.user)
export class PositionController {
  constructor(private readonly positions: PositionService) {}

  @Get('projects')
  projects() {
    return this.positions.listProjects();
  }

  @Get('project/query')
  queries(@Query() q: unknown) {
    return this.positions.queries(parseInput(PositionQueryListArgs, q ?? {}));
  }

  @Get('project/top')
  top(@Query() q: unknown) {
    return this.positions.topStats(parseInput(PositionTopArgs, q ?? {}));
  }
}
