import { Controller, Get, Headers, Query } from '@nestjs/common';
import { CommentDecisionsQuery } from '../../contracts/comments.js';
import { STREAM_TOKEN_HEADER } from '../../contracts/input-stream.js';
import { NoAudit, Public } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { InputStreamService } from '../input-stream/input-stream.service.js';
import { CommentsService } from './comments.service.js';

/** GET /api/comments/decisions?after=N: the sites' read of the moderation decisions (X-Site-Token, no session). */
@Controller('comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService, private readonly stream: InputStreamService) {}

  @Get('decisions')
  @Public()
  @NoAudit()
  async decisions(@Headers(STREAM_TOKEN_HEADER) token: string | undefined, @Query() q: unknown) {
    const site = await this.stream.siteByToken(token);
    return this.comments.decisionsFor(site, parseInput(CommentDecisionsQuery, q ?? {}));
  }
}
