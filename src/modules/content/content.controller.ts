import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { SetBlockArgs } from '../../contracts/content.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput } from '../../core/errors.js';
import { ContentService } from './content.service.js';

/** REST rows of 001 §7 for books, under /api/book: /book/set_block (role 1). */
@Controller('book')
@RequireRole(Role.admin)
export class ContentController {
  constructor(private readonly content: ContentService) {}

  /** `{Id_book, public, mail_body?}`: public 0 unblocks, otherwise blocks with that range (recorded); answers {affectedRows}. */
  @Post('set_block')
  @HttpCode(200)
  setBlock(@Body() body: unknown, @Req() req: AuthedRequest) {
    return this.content.setBlock(parseInput(SetBlockArgs, body ?? {}), { actor: req.actor! });
  }
}
