import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { AuthorIdsArgs, AuthorListArgs, AuthorSetBlockArgs, AuthorUpdateList } from '../../contracts/authors.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { AuthorsService } from './authors.service.js';

/** REST rows of 001 §7 for authors, under /api/author. The RPC twins live on AuthorsService. */
@Controller('author')
@RequireRole(Role.user)
export class AuthorsController {
  constructor(private readonly authors: AuthorsService) {}

  /** `?limit=&joinItems=&getCount=&only_double=&page=`: {list, count}, each author with its candidates. */
  @Get('get_list')
  getList(@Query() q: unknown) {
    return this.authors.getList(parseInput(AuthorListArgs, q ?? {}));
  }

  /** Body: an array of author records (001 §7). */
  @Post('update_list')
  @RequireRole(Role.content)
  @HttpCode(200)
  updateList(@Body() body: unknown) {
    return this.authors.saveRecords(parseInput(AuthorUpdateList, body));
  }

  @Post('set_block')
  @RequireRole(Role.content)
  @HttpCode(200)
  setBlock(@Body() body: unknown) {
    return this.authors.setBlock(parseInput(AuthorSetBlockArgs, body ?? {}));
  }

  /** `?ids=1,2` (GET) or {ids} (POST): those authors. */
  @Get('getAuthors_id')
  byIdsGet(@Query() q: unknown) {
    return this.authors.byIds(parseInput(AuthorIdsArgs, q ?? {}));
  }

  @Post('getAuthors_id')
  @HttpCode(200)
  byIdsPost(@Body() body: unknown) {
    return this.authors.byIds(parseInput(AuthorIdsArgs, body ?? {}));
  }
}
