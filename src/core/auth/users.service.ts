import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ListArgs, UserRemoveArgs, UserSaveArgs, type Paged, type UserView } from '../../contracts/auth.js';
import { MSG } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import { Rpc, type RpcContext } from '../rpc/rpc.decorator.js';
import { auditTarget } from '../audit/audit-target.js';
import { invalid, notFound } from '../errors.js';
import { SocketSessions } from '../realtime/socket-sessions.service.js';
import { AuthService, hashPassword } from './auth.service.js';
import { UserEntity } from './user.entity.js';
import type { z } from 'zod';
import { hydratedRow } from '../database/hydrate.js';

export const toUserView = (u: Pick<UserEntity, 'uid' | 'login' | 'name' | 'role' | 'active' | 'created_at' | 'last_login'>): UserView => ({
  uid: u.uid, login: u.login, name: u.name, role: u.role, active: u.active,
  created_at: u.created_at.toISOString(), last_login: u.last_login?.toISOString() ?? null,
});

/** The columns a UserView is made of (never password_hash), in the users table. */
const VIEW_COLUMNS = ['uid', 'login', 'name', 'role', 'active', 'created_at', 'last_login'] as const;
const SELECT_VIEW = `SELECT ${VIEW_COLUMNS.join(', ')} FROM users`;
type ViewRow = Pick<UserEntity, (typeof VIEW_COLUMNS)[number]>;

/** Users admin (beyond the spec, needed to run it): list, activate, set role, rename, reset password. */
@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly auth: AuthService,
    private readonly sockets: SocketSessions,
  ) {}

  @Rpc('user.getList', { role: Role.admin, input: ListArgs, summary: 'Users, newest first: {list, count, page, limit}; never any password material' })
  async getList(q: z.output<typeof ListArgs>): Promise<Paged<UserView>> {
    // Plain queries hydrated as the ORM hydrates them (viewRows): what findAndCount answered, without
    // its query building, which cost more than the queries (bench/README.md "Platform").
    const rows = await this.viewRows(`${SELECT_VIEW} ORDER BY uid DESC LIMIT ? OFFSET ?`, [q.limit, (q.page - 1) * q.limit]);
    const [{ n }] = (await this.users.manager.query('SELECT COUNT(*) AS n FROM users')) as Array<{ n: unknown }>;
    return { list: rows.map(toUserView), count: Number(n), page: q.page, limit: q.limit };
  }

  @Rpc('user.save', { role: Role.admin, write: true, input: UserSaveArgs, summary: '{uid, active?, role?, name?, password?}: activate, set role, rename or reset the password' })
  async save(a: UserSaveArgs, ctx: RpcContext): Promise<UserView> {
    const user = await this.users.findOne({ where: { uid: a.uid } });
    if (!user) throw notFound(`User ${a.uid} not found`);
    auditTarget('user', user.login, user.uid);
    const self = user.uid === ctx.actor.uid;
    if (self && a.active === 0) throw invalid('You cannot deactivate your own account', { active: 'You cannot deactivate your own account' });
    if (self && a.role !== undefined && a.role > user.role) throw invalid('You cannot lower your own role', { role: 'You cannot lower your own role' });
    const patch: Partial<UserEntity> = {};
    if (a.active !== undefined) patch.active = a.active;
    if (a.role !== undefined) patch.role = a.role;
    if (a.name !== undefined) patch.name = a.name;
    if (a.password !== undefined) patch.password_hash = await hashPassword(a.password);
    if (Object.keys(patch).length) await this.users.update({ uid: user.uid }, patch);
    // Sessions and their sockets follow at once, on every instance: deactivation and a new password
    // end them; a new role or name moves and tells the open sockets.
    const after = { ...user, ...patch };
    if (patch.active === 0) await this.auth.endSessions(user.uid, 'deactivated');
    else if (patch.password_hash) await this.auth.endSessions(user.uid, 'password');
    else if (after.role !== user.role || after.name !== user.name) this.sockets.userChanged(user.uid, after.role, after.name);
    return toUserView(after);
  }

  @Rpc('user.remove', { role: Role.admin, write: true, input: UserRemoveArgs, summary: "{uid}: removes an account (e.g. a junk pending registration); its sessions end at once; not your own" })
  async remove(a: z.output<typeof UserRemoveArgs>, ctx: RpcContext): Promise<{ message: string }> {
    const user = await this.users.findOne({ where: { uid: a.uid } });
    if (!user) throw notFound(`User ${a.uid} not found`);
    auditTarget('user', user.login, user.uid);
    if (user.uid === ctx.actor.uid) throw invalid('You cannot remove your own account', { uid: 'You cannot remove your own account' });
    await this.auth.endSessions(user.uid, 'deactivated');
    await this.users.delete({ uid: user.uid });
    return { message: MSG.deleteOk };
  }

  @Rpc('user.me', { role: Role.user, summary: 'The signed-in user' })
  async me(_: unknown, ctx: RpcContext): Promise<UserView> {
    const [u] = await this.viewRows(`${SELECT_VIEW} WHERE uid = ?`, [ctx.actor.uid]);
    if (!u) throw notFound('User not found');
    return toUserView(u);
  }

  /**
   * Users' view columns by a plain query, each value hydrated by the driver from the column's metadata
   * as the ORM's own find does (SQLite answers datetimes as text, MariaDB as Date; integers alike).
   */
  private async viewRows(sql: string, params: unknown[]): Promise<ViewRow[]> {
    const raw = (await this.users.manager.query(sql, params)) as Array<Record<string, unknown>>;
    return raw.map((r) => hydratedRow(this.users, VIEW_COLUMNS, r));
  }
}
