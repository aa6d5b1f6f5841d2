import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { JokeListQuery, JokeUpdateArgs } from '../../contracts/jokes.js';
import { id } from '../../contracts/fields.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { JokesService } from './jokes.service.js';

/** REST rows of 001 §7 for joke categories, under /api/jokes/cat: role 10 and stronger (001 §6). */
@Controller('jokes/cat')
@RequireRole(Role.content)
export class JokesController {
  constructor(private readonly jokes: JokesService) {}

  /** `?limit=&page=&getCount=`: {list: [{cid, title, meta_title, meta_h1, body_length}], count, page, limit}. */
  @Get('list')
  list(@Query() q: unknown) {
    return this.jokes.list(parseInput(JokeListQuery, q ?? {}));
  }

  /** {cid, title, meta_title, meta_h1, meta_description, cat_body}. */
  @Get('get/:cid')
  get(@Param('cid') cid: string) {
    return this.jokes.get(parseInput(id('cid'), cid));
  }

  /** {title?, meta_title?, meta_h1?, meta_description?, cat_body?}: cat_body sanitised; answers {cid, message: 'Update success', cat}. */
  @Post('update/:cid')
  @HttpCode(200)
  update(@Param('cid') cid: string, @Body() body: unknown) {
    return this.jokes.update(parseInput(id('cid'), cid), parseInput(JokeUpdateArgs, body ?? {}));
  }
}
