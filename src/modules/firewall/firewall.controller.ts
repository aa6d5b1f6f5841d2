import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { AccessLogQueryArgs, IpStatsArgs } from '../../contracts/firewall.js';
import { IpListArgs } from '../../contracts/firewall-rules.js';
import { HostArgs, SaveTrainDataArgs } from '../../contracts/firewall-train.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { AuditService } from '../../core/audit/audit.service.js';
import { parseInput, toFailure } from '../../core/errors.js';
import { FirewallRulesService } from './rules/firewall-rules.service.js';
import { FirewallTrafficService } from './traffic/firewall-traffic.service.js';
import { FirewallTrainService } from './train/firewall-train.service.js';

/** A query string's switch ('1', 'true', '0', 'false') as the boolean the RPC input takes; anything else is left for the schema to refuse. */
const queryBool = (v: unknown) => (v === '1' || v === 'true' ? true : v === '0' || v === 'false' ? false : v);

/** REST rows of 000 §7 for the firewall, under /api/firewall. The RPC twins live on the services. */
@Controller('firewall')
@RequireRole(Role.admin)
export class FirewallController {
  constructor(private readonly traffic: FirewallTrafficService, private readonly rules: FirewallRulesService, private readonly audit: AuditService, private readonly train: FirewallTrainService) {}

  /** `?cmd=ip:1.2.3.4 url:/book code:404` (docs/firewall.md "Log query"), optional `limit`. */
  @Get('get_logs_by_str')
  logsByStr(@Query() q: unknown) {
    return this.traffic.getAccessLogsByStr(parseInput(AccessLogQueryArgs, q ?? {}));
  }

  /**
   * `?ip=` (repeat it for several): removes their rules. 000 §7 lists it as GET and POST; the GET changes
   * state, so it is audited here like every write (the audit interceptor records non-GET calls only).
   */
  @Get('delete_ip_rules')
  async deleteGet(@Query() q: unknown, @Req() req: AuthedRequest) {
    const started = Date.now();
    const method = 'GET /api/firewall/delete_ip_rules';
    const base = { actor: req.actor, method, args: q, started, ip: req.actor?.ip };
    try {
      const result = await this.rules.deleteIpRules(parseInput(IpListArgs, q ?? {}));
      await this.audit.record({ ...base, outcome: 'ok' });
      return result;
    } catch (e) {
      await this.audit.record({ ...base, outcome: 'error', message: toFailure(e).envelope.message });
      throw e;
    }
  }

  @Post('delete_ip_rules')
  @HttpCode(200)
  deletePost(@Body() body: unknown) {
    return this.rules.deleteIpRules(parseInput(IpListArgs, body ?? {}));
  }

  /** `?host=`: the host's marks (as firewall.getTrainDataLog). */
  @Get('get_train_data_log')
  trainDataLog(@Query() q: unknown) {
    return this.train.getTrainDataLog(parseInput(HostArgs, q ?? {}));
  }

  /** `{data: [{ip, host, bal}, ...]}`: several marks, all or none; answers {Ids, message, bans}. */
  @Post('save_train_data')
  @HttpCode(200)
  saveTrainData(@Body() body: unknown) {
    return this.train.saveTrainData(parseInput(SaveTrainDataArgs, body ?? {}));
  }

  /** `?host=&range_minutes=&unique_books=1&min_count=&like=&limit=`: as firewall.getIpStats. */
  @Get('processing/get_ip_stats')
  ipStats(@Query() q: Record<string, unknown> | undefined) {
    const args = { ...(q ?? {}) };
    if ('unique_books' in args) args.unique_books = queryBool(args.unique_books);
    return this.traffic.getIpStats(parseInput(IpStatsArgs, args));
  }
}
