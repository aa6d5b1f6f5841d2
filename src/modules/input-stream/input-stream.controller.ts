import { Body, Controller, Get, Headers, HttpCode, Post, Query } from '@nestjs/common';
import { StreamBatch, STREAM_TOKEN_HEADER, ViewsDataQuery } from '../../contracts/input-stream.js';
import { Role } from '../../contracts/roles.js';
import { NoAudit, Public, RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { InputStreamService } from './input-stream.service.js';

/**
 * POST /api/input_stream/ingest: the sites' endpoint (docs/input-stream.md "Protocol"). No session:
 * the site token in the X-Site-Token header is the credential (401 without a valid one, checked before
 * the body is read). Not in the audit log (machine traffic; each site counts its batches and events).
 */
@Controller('input_stream')
export class InputStreamIngestController {
  constructor(private readonly stream: InputStreamService) {}

  @Post('ingest')
  @Public()
  @NoAudit()
  @HttpCode(200)
  async ingest(@Headers(STREAM_TOKEN_HEADER) token: string | undefined, @Body() body: unknown) {
    const site = await this.stream.siteByToken(token);
    return this.stream.ingest(site, parseInput(StreamBatch, body ?? {}));
  }
}

/** GET /api/stats/get_views_data (001 §7): every signed-in user, like the /input_stream screens. */
@Controller('stats')
@RequireRole(Role.user)
export class StatsController {
  constructor(private readonly stream: InputStreamService) {}

  @Get('get_views_data')
  viewsData(@Query() q: unknown) {
    return this.stream.viewsData(parseInput(ViewsDataQuery, q ?? {}));
  }
}
