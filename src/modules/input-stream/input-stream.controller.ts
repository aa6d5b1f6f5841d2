import { Body, Controller, Get, Headers, HttpCode, Logger, Post, Query, Req } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { STREAM_TOKEN_HEADER, ViewsDataQuery } from '../../contracts/input-stream.js';
import { Role } from '../../contracts/roles.js';
import { NoAudit, Public, RequireRole } from '../../core/auth/actor.js';
import { parseInput, toFailure } from '../../core/errors.js';
import type { Refusal } from '../../core/http/api-guard.js';
import type { StreamSiteEntity } from './input-stream.entities.js';
import { InputStreamService } from './input-stream.service.js';

/** A request the ingest gate let through: its site, already checked. */
type GatedRequest = { method: string; headers: IncomingHttpHeaders; streamSite?: StreamSiteEntity };

/**
 * The ingest endpoint's token check, run by bootstrap.ts for /api/input_stream/ingest when the request
 * arrives, before the body is read (Nest guards run after it): a request without a valid X-Site-Token
 * is refused 401 before a byte of its body is read, with `Connection: close` (the exception filter's
 * rule for a refused body) so the unread body is not waited for. The site found is handed to the
 * controller on the request.
 */
export function ingestTokenGate(stream: InputStreamService) {
  const log = new Logger('InputStream');
  return async (req: GatedRequest): Promise<Refusal | null> => {
    if (req.method !== 'POST') return null;
    const token = req.headers[STREAM_TOKEN_HEADER];
    try {
      req.streamSite = await stream.siteByToken(Array.isArray(token) ? token[0] : token);
      return null;
    } catch (err) {
      const f = toFailure(err);
      if (f.unexpected) log.error((err as Error)?.stack ?? String(err));
      return { code: f.httpStatus, envelope: f.envelope, close: true };
    }
  };
}

/**
 * POST /api/input_stream/ingest: the sites' endpoint (docs/input-stream.md "Protocol"). No session:
 * the site token in the X-Site-Token header is the credential (401 without a valid one, checked before
 * the body is read by ingestTokenGate). Not in the audit log (machine traffic; each site counts its batches and events).
 */
@Controller('input_stream')
export class InputStreamIngestController {
  constructor(private readonly stream: InputStreamService) {}

  @Post('ingest')
  @Public()
  @NoAudit()
  @HttpCode(200)
  async ingest(@Headers(STREAM_TOKEN_HEADER) token: string | undefined, @Body() body: unknown, @Req() req: GatedRequest) {
    const site = req.streamSite ?? (await this.stream.siteByToken(token));
    return this.stream.ingest(site, this.stream.parseBatch(body ?? {}));
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
