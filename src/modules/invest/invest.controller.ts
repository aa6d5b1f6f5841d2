import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { InvestIcsArgs } from '../../contracts/invest.js';
import { NOT_CONFIGURED } from '../../contracts/outside.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput, unauthorized } from '../../core/errors.js';
import { InvestForecastService } from './services/forecast.service.js';

/**
 * GET /api/invest/calendar.ics?accountId=&size=: the coming payments (coupons and maturities from
 * today on) of an account as an iCalendar file (text/calendar, an attachment). The session travels in
 * the `User` header like every call (the UI fetches it and saves the blob). Errors before the body (bad
 * input 422, an account you do not see 404) answer the usual envelope; a broker account without
 * INVEST_TOKEN answers `{configured: false}`. Every other investment call is RPC (invest.*).
 */
@Controller('invest')
@RequireRole(Role.user)
export class InvestController {
  constructor(private readonly forecast: InvestForecastService) {}

  @Get('calendar.ics')
  async ics(@Query() q: unknown, @Req() req: AuthedRequest, @Res() reply: FastifyReply) {
    if (!req.actor) throw unauthorized('Session required');
    const a = parseInput(InvestIcsArgs, q ?? {});
    const file = await this.forecast.ics(a.accountId, a.size, req.actor);
    reply.header('cache-control', 'no-store');
    if (!file) return reply.status(200).send({ status: 'ok', result: NOT_CONFIGURED });
    return reply
      .status(200)
      .header('content-type', 'text/calendar; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file.name}"`)
      .send(file.body);
  }
}
