/**
 * Local accounts (001 §3 "local: Id, name"; issue 22; docs/invest.md "Local accounts"): positions
 * entered by hand (ticker or figi, quantity, price as % of nominal), resolved against the bonds
 * catalogue and shown with the same table as broker accounts. They work without the broker.
 *
 * Personal, like money boxes: an account is its owner's; admins see and change every account; anyone
 * else is answered 404 'Account not found', as for an account that does not exist.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import type { z } from 'zod';
import {
  INVEST_LOCAL_POSITIONS_MAX, INVEST_MSG, InvestLocalId, InvestLocalSave, InvestPositionSave, localAccountId,
  type InvestLocalAccount, type InvestLocalAccountDetail, type InvestLocalPosition,
} from '../../../contracts/invest.js';
import { Role } from '../../../contracts/roles.js';
import type { Actor } from '../../../core/auth/actor.js';
import { auditTarget } from '../../../core/audit/audit-target.js';
import { invalid, notFound } from '../../../core/errors.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { Decimal, num } from '../calc/decimal.js';
import { InvestLocalAccountEntity, InvestLocalPositionEntity } from '../invest.entities.js';
import { InvestCatalogueService } from './catalogue.service.js';

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

@Injectable()
export class InvestLocalService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(InvestLocalAccountEntity) private readonly accounts: Repository<InvestLocalAccountEntity>,
    @InjectRepository(InvestLocalPositionEntity) private readonly positions: Repository<InvestLocalPositionEntity>,
    private readonly catalogue: InvestCatalogueService,
  ) {}

  private isAdmin = (a: Actor) => a.role <= Role.admin;

  /** The account if the caller may use it (owner or admin), else 404 'Account not found'. */
  async account(actor: Actor, Id: number): Promise<InvestLocalAccountEntity> {
    const a = await this.accounts.findOne({ where: { Id } });
    if (!a || (a.uid !== actor.uid && !this.isAdmin(actor))) throw notFound(INVEST_MSG.accountNotFound);
    return a;
  }

  /** The positions of an account in entry order. */
  positionsOf(Id: number): Promise<InvestLocalPositionEntity[]> {
    return this.positions.find({ where: { account_id: Id }, order: { Id: 'ASC' } });
  }

  @Rpc('invest.User.getLocalAccounts', {
    role: Role.user,
    summary: 'Your local accounts (admins: all) by name: [{Id, name, accountId ("local:<Id>", for getPortfolio/getForecast), uid, owner, count (positions), time_update}]',
  })
  async getLocalAccounts(_a: unknown, ctx: RpcContext): Promise<InvestLocalAccount[]> {
    const admin = this.isAdmin(ctx.actor);
    const rows: Row[] = await this.db.query(
      `SELECT a.Id, a.name, a.uid, a.time_update, u.name AS owner, (SELECT COUNT(*) FROM invest_local_positions p WHERE p.account_id = a.Id) AS n
       FROM invest_local_accounts a LEFT JOIN users u ON u.uid = a.uid ${admin ? '' : 'WHERE a.uid = ?'} ORDER BY a.name, a.Id`,
      admin ? [] : [ctx.actor.uid],
    );
    return rows.map((r) => ({
      Id: Number(r.Id), name: String(r.name), accountId: localAccountId(Number(r.Id)), uid: Number(r.uid), owner: String(r.owner ?? ''), count: Number(r.n ?? 0), time_update: iso(r.time_update),
    }));
  }

  @Rpc('invest.User.getLocalAccount', {
    role: Role.user, input: InvestLocalId,
    summary: `{Id}: one local account with its positions as entered and resolved: {Id, name, accountId, uid, owner, count, time_update, positions: [{Id, Id_account, ticker, figi, quantity, price (% of nominal), resolved, name, time_update}]} ('${INVEST_MSG.accountNotFound}')`,
  })
  async getLocalAccount(a: z.output<typeof InvestLocalId>, ctx: RpcContext): Promise<InvestLocalAccountDetail> {
    const acc = await this.account(ctx.actor, a.Id);
    const list = await this.positionsOf(acc.Id);
    const byFigi = await this.catalogue.rowsByFigi(list.map((p) => p.figi));
    const byTicker = await this.catalogue.rowsByTicker(list.filter((p) => !p.figi || !byFigi.has(p.figi)).map((p) => p.ticker));
    const [owner] = (await this.db.query('SELECT name FROM users WHERE uid = ?', [acc.uid])) as Row[];
    const positions: InvestLocalPosition[] = list.map((p) => {
      const row = (p.figi && byFigi.get(p.figi)) || (p.ticker && byTicker.get(p.ticker.toUpperCase())) || null;
      return {
        Id: p.Id, Id_account: p.account_id, ticker: row?.ticker || p.ticker, figi: row?.figi || p.figi, quantity: num(new Decimal(p.quantity)), price: p.price === null ? null : num(new Decimal(p.price)),
        resolved: !!row, name: row?.name ?? '', time_update: iso(p.time_update),
      };
    });
    return {
      Id: acc.Id, name: acc.name, accountId: localAccountId(acc.Id), uid: acc.uid, owner: String(owner?.name ?? ''), count: positions.length, time_update: iso(acc.time_update), positions,
    };
  }

  @Rpc('invest.User.saveLocalAccount', {
    role: Role.user, write: true, input: InvestLocalSave,
    summary: `{Id?, name}: without Id a new local account of yours, with Id renames it (its owner or an admin): {Id, accountId, message} ('${INVEST_MSG.insertOk}' / '${INVEST_MSG.saveOk}')`,
  })
  async saveLocalAccount(a: InvestLocalSave, ctx: RpcContext): Promise<{ Id: number; accountId: string; message: string }> {
    const now = new Date();
    if (a.Id) {
      await this.account(ctx.actor, a.Id);
      await this.accounts.update({ Id: a.Id }, { name: a.name, time_update: now });
      auditTarget('invest local account', a.name, a.Id);
      return { Id: a.Id, accountId: localAccountId(a.Id), message: INVEST_MSG.saveOk };
    }
    const r = await this.accounts.insert({ uid: ctx.actor.uid, name: a.name, time_create: now, time_update: now });
    const Id = Number(r.identifiers[0].Id);
    auditTarget('invest local account', a.name, Id);
    return { Id, accountId: localAccountId(Id), message: INVEST_MSG.insertOk };
  }

  @Rpc('invest.User.deleteLocalAccount', {
    role: Role.user, write: true, input: InvestLocalId,
    summary: `{Id}: removes the local account with its positions, irreversibly (its owner or an admin): {Id, removed (positions), message}`,
  })
  async deleteLocalAccount(a: z.output<typeof InvestLocalId>, ctx: RpcContext): Promise<{ Id: number; removed: number; message: string }> {
    const acc = await this.account(ctx.actor, a.Id);
    auditTarget('invest local account', acc.name, acc.Id);
    let removed = 0;
    await this.db.transaction(async (m) => {
      removed = (await m.delete(InvestLocalPositionEntity, { account_id: acc.Id })).affected ?? 0;
      await m.delete(InvestLocalAccountEntity, { Id: acc.Id });
    });
    return { Id: acc.Id, removed, message: INVEST_MSG.deleteOk };
  }

  @Rpc('invest.User.savePosition', {
    role: Role.user, write: true, input: InvestPositionSave,
    summary: `{Id?, Id_account, ticker? | figi?, quantity, price?}: adds (no Id) or changes a position of a local account; resolved against the catalogue by figi, else ticker (kept as entered when not found); quantity > 0 with up to 9 decimals, price in % of nominal: {Id, resolved, figi, ticker, message} ('${INVEST_MSG.tickerOrFigi}', '${INVEST_MSG.positionNotFound}')`,
  })
  async savePosition(a: InvestPositionSave, ctx: RpcContext): Promise<{ Id: number; resolved: boolean; figi: string; ticker: string; message: string }> {
    const acc = await this.account(ctx.actor, a.Id_account);
    const row = (a.figi && (await this.catalogue.rowsByFigi([a.figi])).get(a.figi)) || (a.ticker && (await this.catalogue.rowsByTicker([a.ticker])).get(a.ticker)) || null;
    const figi = row?.figi ?? a.figi ?? '';
    const ticker = row?.ticker ?? a.ticker ?? '';
    const values = { ticker, figi, quantity: new Decimal(a.quantity).toFixed(), price: a.price === undefined ? null : new Decimal(a.price).toFixed(), time_update: new Date() };
    let Id = a.Id;
    if (Id) {
      const p = await this.positions.findOne({ where: { Id } });
      if (!p || p.account_id !== acc.Id) throw notFound(INVEST_MSG.positionNotFound);
      await this.positions.update({ Id }, values);
    } else {
      if ((await this.positions.count({ where: { account_id: acc.Id } })) >= INVEST_LOCAL_POSITIONS_MAX) throw invalid(INVEST_MSG.tooManyPositions);
      Id = Number((await this.positions.insert({ account_id: acc.Id, ...values })).identifiers[0].Id);
    }
    await this.accounts.update({ Id: acc.Id }, { time_update: new Date() });
    auditTarget('invest local account', `${acc.name}: ${ticker || figi}`, acc.Id);
    return { Id, resolved: !!row, figi, ticker, message: a.Id ? INVEST_MSG.saveOk : INVEST_MSG.insertOk };
  }

  @Rpc('invest.User.deletePosition', {
    role: Role.user, write: true, input: InvestLocalId,
    summary: `{Id}: removes a position of a local account (its owner or an admin): {Id, message} ('${INVEST_MSG.positionNotFound}')`,
  })
  async deletePosition(a: z.output<typeof InvestLocalId>, ctx: RpcContext): Promise<{ Id: number; message: string }> {
    const p = await this.positions.findOne({ where: { Id: a.Id } });
    if (!p) throw notFound(INVEST_MSG.positionNotFound);
    const acc = await this.account(ctx.actor, p.account_id).catch(() => { throw notFound(INVEST_MSG.positionNotFound); });
    auditTarget('invest local account', `${acc.name}: ${p.ticker || p.figi}`, acc.Id);
    await this.positions.delete({ Id: p.Id });
    await this.accounts.update({ Id: acc.Id }, { time_update: new Date() });
    return { Id: p.Id, message: INVEST_MSG.deleteOk };
  }
}
