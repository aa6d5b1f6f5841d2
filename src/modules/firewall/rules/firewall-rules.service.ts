import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Raw, type EntityManager, type Repository } from 'typeorm';
import type { z } from 'zod';
import {
  ALLOWLIST_CONFIG_TYPE, BlockRuleIdArgs, BlockRuleSaveArgs, BlockRuleSwitchArgs, FW_MESSAGES, IP_RULE_ALLOWED, IP_RULE_DENIED, IP_RULES_PAGE_SIZE, IpArgs, IpBanArgs,
  IpListArgs, IpRulesByStatusArgs, IpRulesListArgs, cleanBlockValue, parseRange, rangeContains,
  type BlockRuleView, type IpRuleView,
} from '../../../contracts/firewall-rules.js';
import { Role } from '../../../contracts/roles.js';
import { containsPattern, likeNamed } from '../../../core/database/like.js';
import { AppError, notFound } from '../../../core/errors.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { CfgConfigsService } from '../../cfg-configs/cfg-configs.service.js';
import { SrvService } from '../../srv/srv.service.js';
import { BlockRuleEntity, IpRuleEntity } from '../firewall.entities.js';
import { TrainDataEntity } from '../train/firewall-train.entities.js';

const refuse = (field: string, message: string) => new AppError(422, message, 'rules', { [field]: message });

/** One entry of the allowlist: a range and why it is there (shown when a ban is refused). */
export interface AllowEntry {
  range: NonNullable<ReturnType<typeof parseRange>>['range'];
  text: string;
  reason: string;
}

const LOOPBACK = ['127.0.0.0/8', '::1'];

/**
 * IP rules and block rules (000 §2 /firewall/iptables_rules, /firewall/iptables_block_list; §3; §4):
 * listing, ban, allow, delete, bulk delete, block-rule editing, and the allowlist no ban may override.
 * Admin only.
 */
@Injectable()
export class FirewallRulesService {
  constructor(
    @InjectRepository(IpRuleEntity) private readonly rules: Repository<IpRuleEntity>,
    @InjectRepository(BlockRuleEntity) private readonly blocks: Repository<BlockRuleEntity>,
    private readonly srv: SrvService,
    private readonly configs: CfgConfigsService,
  ) {}

  // ------------------------------------------------------------------------------------------
  // Allowlist

  /**
   * Addresses no ban may cover: IP rules with status 0 (Allowed), every address of every server in the
   * inventory, loopback, and the rows of the cluster config type `firewall_allow` (addresses or CIDR).
   */
  async allowlist(): Promise<AllowEntry[]> {
    const out: AllowEntry[] = [];
    const add = (value: string, reason: string) => {
      const r = parseRange(value);
      if (r) out.push({ range: r.range, text: r.text, reason });
    };
    for (const v of LOOPBACK) add(v, 'loopback');
    for (const s of await this.srv.getList({})) {
      for (const ip of [s.ip, s.ip_local]) if (ip) add(ip, `the address of server ${s.name}`);
    }
    for (const row of await this.configs.getConfigs({ type: ALLOWLIST_CONFIG_TYPE })) {
      for (const line of row.value.split(/[\s,]+/)) if (line) add(line, `in the cluster config '${ALLOWLIST_CONFIG_TYPE}'`);
    }
    for (const r of await this.rules.find({ where: { status: IP_RULE_ALLOWED } })) add(r.ip, 'it has an Allowed rule');
    return out;
  }

  /** Why `ip` may not be banned, or null. */
  static allowReason(allow: AllowEntry[], ip: string): string | null {
    const hit = allow.find((a) => rangeContains(a.range, ip));
    return hit ? `${ip} is allowlisted: ${hit.reason}${hit.text !== ip ? ` (${hit.text})` : ''}` : null;
  }

  // ------------------------------------------------------------------------------------------
  // IP rules

  private view = (r: IpRuleEntity): IpRuleView => ({ ip: r.ip, status: r.status, time: r.time.toISOString() });

  @Rpc('firewall.getIpRules', {
    role: Role.admin, input: IpRulesListArgs, aliases: ['firewall.getIptablesRules'],
    summary: '{status?, like?, p_?, limit?}: IP rules, newest first, 50 a page: {list: [{ip, status, time}], count}',
  })
  async getIpRules(a: z.output<typeof IpRulesListArgs>) {
    const limit = a.limit ?? IP_RULES_PAGE_SIZE;
    const where = {
      ...(a.status !== undefined ? { status: a.status } : {}),
      ...(a.like ? { ip: Raw((alias) => likeNamed(alias, 'like'), { like: containsPattern(a.like) }) } : {}),
    };
    const [rows, count] = await this.rules.findAndCount({ where, order: { time: 'DESC', Id: 'DESC' }, skip: ((a.p_ ?? 1) - 1) * limit, take: limit });
    return { list: rows.map(this.view), count };
  }

  /** Creates or updates the rule of one address. */
  private async upsert(ip: string, status: number) {
    const existing = await this.rules.findOne({ where: { ip } });
    if (existing) await this.rules.update({ Id: existing.Id }, { status, time: new Date() });
    else await this.rules.insert({ ip, status, time: new Date() });
  }

  @Rpc('firewall.setIpBan', {
    role: Role.admin, write: true, input: IpBanArgs, aliases: ['firewall.setRuleByIp'],
    summary: "{ip, status?}: bans an address (status 1 by default, or another denying status 1-15); refused for allowlisted addresses; answers {message: 'Set ban ok!', affected: 1}",
  })
  async setIpBan(a: z.output<typeof IpBanArgs>) {
    const why = FirewallRulesService.allowReason(await this.allowlist(), a.ip);
    if (why) throw refuse('ip', `${why}. It cannot be banned.`);
    await this.upsert(a.ip, a.status ?? IP_RULE_DENIED);
    return { message: FW_MESSAGES.banned, affected: 1 };
  }

  @Rpc('firewall.allowIpRules', {
    role: Role.admin, write: true, input: IpArgs, aliases: ['firewall.setAllowedByIp'],
    summary: "{ip}: sets the address to Allowed (status 0): never banned, by rules or block lists; answers {message: 'Save ok!', affected: 1}",
  })
  async allowIp(a: z.output<typeof IpArgs>) {
    await this.upsert(a.ip, IP_RULE_ALLOWED);
    return { message: FW_MESSAGES.saved, affected: 1 };
  }

  @Rpc('firewall.deleteIpRules', {
    role: Role.admin, write: true, input: IpListArgs,
    summary: "{ip: string | string[]}: removes the rules of these addresses (their train marks, any host, become 0: 000 §4); answers {message: 'Delete rule ok!', affected}",
  })
  async deleteIpRules(a: z.output<typeof IpListArgs>) {
    const ips = Array.isArray(a.ip) ? a.ip : [a.ip];
    const affected = await this.rules.manager.transaction(async (m) => {
      const had = await m.find(IpRuleEntity, { where: { ip: In(ips) }, select: { Id: true, ip: true } });
      const r = await m.delete(IpRuleEntity, { ip: In(ips) });
      await this.unmark(m, had.map((x) => x.ip));
      return r.affected ?? 0;
    });
    return { message: FW_MESSAGES.deleted, affected };
  }

  /** 000 §4 "removing a rule marks its train score 0": the marks of these addresses (every host) become 0, in the removal's transaction. */
  private async unmark(m: EntityManager, ips: string[]) {
    if (!ips.length || !(await m.exists(TrainDataEntity, {}))) return;
    for (let i = 0; i < ips.length; i += 500) await m.update(TrainDataEntity, { ip: In(ips.slice(i, i + 500)) }, { bal: 0 });
  }

  /** The rule status of each of these addresses that has a rule. */
  async statusesOf(ips: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < ips.length; i += 500) {
      for (const r of await this.rules.find({ where: { ip: In(ips.slice(i, i + 500)) }, select: { Id: true, ip: true, status: true } })) out.set(r.ip, r.status);
    }
    return out;
  }

  /** A rule for an address that has none (automatic bans never override a rule); true when it was made. */
  async insertIfNone(ip: string, status: number): Promise<boolean> {
    try {
      await this.rules.insert({ ip, status, time: new Date() });
      return true;
    } catch (e) {
      if (await this.rules.exists({ where: { ip } })) return false; // UQ_fw_ip_rules_ip: it has one
      throw e;
    }
  }

  @Rpc('firewall.deleteIpRulesByFilter', {
    role: Role.admin, write: true, input: IpRulesByStatusArgs,
    summary: "{status}: removes every rule with this status (their addresses' train marks become 0); answers {message: 'Delete rule ok!', affected}",
  })
  async deleteByStatus(a: z.output<typeof IpRulesByStatusArgs>) {
    const affected = await this.rules.manager.transaction(async (m) => {
      const had = await m.createQueryBuilder(IpRuleEntity, 'r').select('r.ip', 'ip').where('r.status = :s', { s: a.status }).getRawMany<{ ip: string }>();
      const r = await m.delete(IpRuleEntity, { status: a.status });
      await this.unmark(m, had.map((x) => x.ip));
      return r.affected ?? 0;
    });
    return { message: FW_MESSAGES.deleted, affected };
  }

  /** Addresses of the denying IP rules (status 1 to 15). */
  async deniedIps(): Promise<string[]> {
    // raw rows: 50,000 entities would cost TypeORM's hydration hundreds of ms
    const rows = await this.rules.createQueryBuilder('r').select('r.ip', 'ip').where('r.status >= :lo AND r.status <= :hi', { lo: 1, hi: 15 }).getRawMany<{ ip: string }>();
    return rows.map((r) => r.ip);
  }

  // ------------------------------------------------------------------------------------------
  // Block rules

  @Rpc('firewall.getIptableBlockRules', { role: Role.admin, summary: 'Block rules [{Id, value, comment, status}] by Id' })
  async getBlockRules(): Promise<BlockRuleView[]> {
    return (await this.blocks.find({ order: { Id: 'ASC' } })).map((b) => ({ Id: b.Id, value: b.value, comment: b.comment, status: b.status }));
  }

  @Rpc('firewall.saveIptableBlockRules', {
    role: Role.admin, write: true, input: BlockRuleSaveArgs, aliases: ['firewall.insertIptableBlockRules', 'firewall.updateIptableBlockRules'],
    summary: "{Id?, value, comment?, status?}: creates (no Id) or updates a block rule; value: one address or CIDR range a line (empty lines removed, sorted numerically; a bad line is refused naming it); answers {Id, message: 'Save ok!', allowlisted: addresses it covers that the sync leaves out}",
  })
  async saveBlockRule(a: z.output<typeof BlockRuleSaveArgs>) {
    const { lines, errors } = cleanBlockValue(a.value);
    if (errors.length) throw refuse('value', errors.slice(0, 5).join('; ') + (errors.length > 5 ? ` (and ${errors.length - 5} more)` : ''));
    if (!lines.length) throw refuse('value', 'Value must hold at least one address or CIDR range');
    const row = { value: lines.join('\n'), comment: a.comment, status: a.status };
    let Id = a.Id;
    if (Id !== undefined) {
      if (!(await this.blocks.exists({ where: { Id } }))) throw notFound(`Block rule ${Id} not found`);
      await this.blocks.update({ Id }, row);
    } else Id = (await this.blocks.insert(row)).identifiers[0].Id as number;
    const allow = await this.allowlist();
    const allowlisted = allow.filter((e) => lines.some((l) => { const r = parseRange(l); return r && (rangeContains(r.range, e.range[0].toString()) || rangeContains(e.range, r.range[0].toString())); })).map((e) => `${e.text} (${e.reason})`);
    return { Id, message: FW_MESSAGES.saved, allowlisted };
  }

  @Rpc('firewall.switchIptableBlockRule', { role: Role.admin, write: true, input: BlockRuleSwitchArgs, summary: '{Id, status}: turns a block rule on (1) or off (0)' })
  async switchBlockRule(a: z.output<typeof BlockRuleSwitchArgs>) {
    const r = await this.blocks.update({ Id: a.Id }, { status: a.status });
    if (!r.affected) throw notFound(`Block rule ${a.Id} not found`);
    return { message: FW_MESSAGES.saved, affected: r.affected };
  }

  @Rpc('firewall.deleteIptableBlockRule', { role: Role.admin, write: true, input: BlockRuleIdArgs, summary: "{Id}: removes a block rule; answers {message: 'Delete rule ok!', affected}" })
  async deleteBlockRule(a: z.output<typeof BlockRuleIdArgs>) {
    const r = await this.blocks.delete({ Id: a.Id });
    if (!r.affected) throw notFound(`Block rule ${a.Id} not found`);
    return { message: FW_MESSAGES.deleted, affected: r.affected };
  }

  /** Addresses and ranges of the enabled block rules. */
  async blockedRanges(): Promise<string[]> {
    const rows = await this.blocks.find({ where: { status: 1 } });
    return rows.flatMap((b) => b.value.split('\n').filter(Boolean));
  }
}
