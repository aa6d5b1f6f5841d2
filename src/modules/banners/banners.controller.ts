import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req } from '@nestjs/common';
import { BannerGet, BannerSave } from '../../contracts/banners.js';
import { STREAM_TOKEN_HEADER } from '../../contracts/input-stream.js';
import { Role } from '../../contracts/roles.js';
import { NoAudit, Public, RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput } from '../../core/errors.js';
import { InputStreamService } from '../input-stream/input-stream.service.js';
import { BannersService } from './banners.service.js';

/**
 * REST rows of 001 §7 for banners, under /api/abs (docs/content.md "Banners"). The menu's /abs/list
 * has no role (001 §6), so every signed-in user reads; writes are for content editors (role 10) and
 * admins. GET /abs/working is the sites' read, by the input stream's site token.
 */
@Controller('abs')
@RequireRole(Role.user)
export class BannersController {
  constructor(private readonly banners: BannersService, private readonly stream: InputStreamService) {}

  /** `?p_=&q=&status=`: {list, count, page, limit}; `?Idb=N` (`&joinStats=1&days=30`): that banner (with its daily series). */
  @Get('get')
  get(@Query() q: unknown) {
    return this.banners.get(parseInput(BannerGet, q ?? {}));
  }

  /** Body {Idb?, title, description, target, status, rate, img_data?, img_remove?}: {Idb}. */
  @Post('set_abs')
  @RequireRole(Role.content)
  @HttpCode(200)
  setAbs(@Body() body: unknown, @Req() req: AuthedRequest) {
    return this.banners.save(parseInput(BannerSave, body ?? {}), req.actor?.uid ?? null);
  }

  /** The sites' read (X-Site-Token, no session): the working banners with their rates. */
  @Get('working')
  @Public()
  @NoAudit()
  async working(@Headers(STREAM_TOKEN_HEADER) token: string | undefined) {
    await this.stream.siteByToken(token);
    return this.banners.working();
  }
}
