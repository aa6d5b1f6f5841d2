import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { MoneyFilter } from '../../contracts/money.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput, unauthorized } from '../../core/errors.js';
import { normFilter } from './money-filter.js';
import { MoneyCsvService } from './money-csv.service.js';

/**
 * GET /api/money/export?bid=&from=&to=&tags=&tag=&untagged=&type=&q=: a box's transactions as CSV
 * (text/csv, UTF-8 with a BOM, an attachment), the list's filter applied, oldest first; streamed in
 * pages read by key. Errors before the first byte (bad filter 422, a box you do not see 404) answer the
 * usual envelope. Every other money call is RPC (money.*).
 */
@Controller('money')
@RequireRole(Role.user)
export class MoneyController {
  constructor(private readonly csv: MoneyCsvService) {}

  @Get('export')
  async export(@Query() q: unknown, @Req() req: AuthedRequest, @Res() reply: FastifyReply) {
    if (!req.actor) throw unauthorized('Session required');
    const f = normFilter(parseInput(MoneyFilter, q ?? {}));
    const { name, chunks } = await this.csv.exportCsv(req.actor, f);
    // Streamed with back-pressure; a client that goes away stops the reading, a failed read ends the connection.
    return reply
      .status(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(chunks));
  }
}
