import { Controller, Get, Query } from '@nestjs/common';
import { CatListQuery } from '../../contracts/categories.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { CategoriesService } from './categories.service.js';

/** GET /api/cat/list (001 §7: select, limit false): every signed-in user. */
@Controller('cat')
@RequireRole(Role.user)
export class CategoriesController {
  constructor(private readonly cats: CategoriesService) {}

  @Get('list')
  list(@Query() q: unknown) {
    return this.cats.list(parseInput(CatListQuery, q ?? {}));
  }
}
