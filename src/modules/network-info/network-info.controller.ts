import { Controller, Get, Headers, Req } from '@nestjs/common';
import { STREAM_TOKEN_HEADER } from '../../contracts/input-stream.js';
import { MSG } from '../../contracts/messages.js';
import { NET_MSG } from '../../contracts/network-info.js';
import { Role, roleAllows } from '../../contracts/roles.js';
import { NoAudit, Public, RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { forbidden, unauthorized } from '../../core/errors.js';
import { InputStreamService } from '../input-stream/input-stream.service.js';
import { NetworkInfoService } from './network-info.service.js';

/**
 * GET /api/tpl/get_hosts (001 §7): the hosts for the sites' templates, [{Id, name, domain,
 * code_in_storage}]. Two kinds of caller (docs/network-info.md "Who reads /tpl/get_hosts"): a signed-in
 * admin (the console), and the network's sites with the input stream's site token in X-Site-Token,
 * checked by InputStreamService.siteByToken (the one token check). `@Public()` lets a site through the
 * session guard; the handler then asks for one of the two: without either 401, a weaker session
 * without a token 403. `@RequireRole(admin)` states the session's role for the route table and docs.
 */
@Controller('tpl')
export class NetworkTplController {
  constructor(private readonly net: NetworkInfoService, private readonly stream: InputStreamService) {}

  @Get('get_hosts')
  @Public()
  @RequireRole(Role.admin)
  @NoAudit()
  async getHosts(@Req() req: AuthedRequest, @Headers(STREAM_TOKEN_HEADER) token: string | undefined) {
    if (!req.actor || !roleAllows(req.actor.role, Role.admin)) {
      if (token !== undefined) await this.stream.siteByToken(token);
      else if (req.actor) throw forbidden(MSG.forbidden);
      else throw unauthorized(NET_MSG.tplCredential);
    }
    return this.net.tplHosts();
  }
}
