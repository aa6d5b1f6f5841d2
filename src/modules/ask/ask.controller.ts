import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AskGetQuery, AskListQuery, AskSetArgs } from '../../contracts/ask.js';
import { id } from '../../contracts/fields.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { AskService } from './ask.service.js';

/** REST rows of 001 §7 for Q&A, under /api/ask: reads for every signed-in user, /ask/set for role 10 and stronger. */
@Controller('ask')
@RequireRole(Role.user)
export class AskController {
  constructor(private readonly asks: AskService) {}

  /** `?page=&limit=&getCount=`: {list: [{Id, question, answers}], count, page, limit}, newest first. */
  @Get('list')
  list(@Query() q: unknown) {
    return this.asks.list(parseInput(AskListQuery, q ?? {}));
  }

  /** `?joinAnswer=1`: {Id, question, answer: [{Id, answer}]}. */
  @Get('get/:Id')
  get(@Param('Id') Id: string, @Query() q: unknown) {
    return this.asks.get(parseInput(id('Id'), Id), parseInput(AskGetQuery, q ?? {}));
  }

  /** {ask: {question, Id?}, answer: [{answer, Id?, del?}], del_list: [Id]}: one transaction; answers {Id, message}. */
  @Post('set')
  @RequireRole(Role.content)
  @HttpCode(200)
  set(@Body() body: unknown) {
    return this.asks.set(parseInput(AskSetArgs, body ?? {}));
  }
}
