import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { once } from 'node:events';
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
  async export(@Query() q: unknown, @Req() req: AuthedRequest, @Res() res: Response) {
    if (!req.actor) throw unauthorized('Session required');
    const f = normFilter(parseInput(MoneyFilter, q ?? {}));
    const { name, chunks } = await this.csv.exportCsv(req.actor, f);
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="${name}"`);
    res.setHeader('cache-control', 'no-store');
    try {
      for await (const c of chunks) {
        if (res.destroyed) return;
        if (!res.write(c)) await once(res, 'drain');
      }
      res.end();
    } catch {
      res.destroy();
    }
  }
}
