import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { LessThan, type Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AuthBody, RegisterBody, type SessionValues } from '../../contracts/auth.js';
import { MSG } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import { sha256 } from '../crypto/secret-box.js';
import { PENDING_ACCOUNTS_MAX } from '../../contracts/constants.js';
import { isUniqueViolation } from '../database/db-errors.js';
import { AppError, conflict, parseInput, tooMany, unauthorized, invalid } from '../errors.js';
import type { Actor } from './actor.js';
import { JsonLogger } from '../logger.js';
import { LoginLimiter, RegistrationLimiter } from './login-limiter.js';
import type { SessionEndReason } from '../../contracts/events.js';
import { SocketSessions } from '../realtime/socket-sessions.service.js';
import { SessionEntity, UserEntity } from './user.entity.js';
import { hydrated } from '../database/hydrate.js';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1). */
export const hashPassword = (password: string) => argonHash(password);

const TOUCH_EVERY_MS = 60_000;
/** A session by its token's digest, with its user (a session whose user is gone matches nothing). */
const VERIFY_SQL = 'SELECT s.Id, s.expires_at, s.last_seen, u.uid, u.login, u.name, u.role, u.active FROM sessions s JOIN users u ON u.uid = s.uid WHERE s.token_digest = ?';

@Injectable()
export class AuthService implements OnApplicationBootstrap {
  private readonly log = new Logger('Auth');
  readonly limiter = new LoginLimiter();
  readonly registrations = new RegistrationLimiter();
  /** A dummy hash, verified when the login is unknown, so timing does not reveal which logins exist. */
  private dummyHash?: Promise<string>;
  /** Ends the sockets of a session when it ends, on every instance (docs/architecture.md, Realtime). */
  @Inject(SocketSessions) private readonly sockets!: SocketSessions;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /** First start: create the admin from ADMIN_LOGIN/ADMIN_PASSWORD, or print a generated password once. */
  async onApplicationBootstrap() {
    if ((await this.users.count()) > 0) return;
    const login = this.cfg.admin.login;
    const generated = !this.cfg.admin.password;
    const password = this.cfg.admin.password ?? randomBytes(12).toString('base64url');
    await this.users.insert({ login, name: 'Administrator', role: Role.admin, active: 1, password_hash: await hashPassword(password), created_at: new Date(), last_login: null });
    if (generated) {
      // Printed once, as a JSON line like every other (a logger of its own at level info, so a
      // quieter LOG_LEVEL cannot swallow the only copy of the password).
      new JsonLogger('info').pino.warn({ context: 'Auth' }, `First admin account created: login ${login}, password ${password} (set ADMIN_LOGIN/ADMIN_PASSWORD to choose them; change it under /users)`);
    } else this.log.log(`First admin account "${login}" created from ADMIN_LOGIN/ADMIN_PASSWORD`);
  }

  /** Decodes the combined key of 000 §5: base64 of `login:password` (UTF-8). */
  decodeKey(key: string): { login: string; password: string } {
    const text = Buffer.from(key, 'base64').toString('utf8');
    const i = text.indexOf(':');
    if (i <= 0) throw invalid('key must be base64 of login:password', { key: 'key must be base64 of login:password' });
    return { login: text.slice(0, i).trim(), password: text.slice(i + 1) };
  }

  async login(body: unknown, ip: string, userAgent: string): Promise<SessionValues & { user: UserEntity }> {
    const { key } = parseInput(AuthBody, body);
    const { login, password } = this.decodeKey(key);
    const wait = this.limiter.blockedFor(ip, login);
    if (wait > 0) throw tooMany(`${MSG.tooManyAttempts} (in ${wait} s)`);
    // The login column compares ignoring case on both databases (NOCASE / _ci): 'ADMIN' finds 'admin'.
    const user = await this.users.findOne({ where: { login } });
    const ok = user
      ? await argonVerify(user.password_hash, password).catch(() => false)
      : await argonVerify(await (this.dummyHash ??= hashPassword(randomBytes(16).toString('hex'))), password).then(() => false);
    // An inactive account is a failure like a wrong password, with the same answer, whatever the
    // password: the answer never tells a right password from a wrong one (docs/architecture.md, Security).
    if (!user || !ok || !user.active) {
      this.limiter.fail(ip, login);
      throw unauthorized(MSG.badCredentials);
    }
    this.limiter.succeed(ip, login);
    const hash = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.sessions.insert({
      uid: user.uid, token_digest: sha256(hash), created_at: now, last_seen: now,
      expires_at: new Date(now.getTime() + this.cfg.sessionTtlMs), ip: ip.slice(0, 64), user_agent: userAgent.slice(0, 190),
    });
    await this.users.update({ uid: user.uid }, { last_login: now });
    return { uid: user.uid, name: user.name, role: user.role, hash, atime: now.getTime(), user };
  }

  async logout(hash: string | undefined) {
    const session = hash ? await this.sessions.findOne({ where: { token_digest: sha256(hash) } }) : null;
    if (!session) return;
    await this.sessions.delete({ Id: session.Id });
    this.sockets.endSession(session.Id, 'logout');
  }

  /**
   * Anonymous registration of an inactive role-100 account. Throttled per address (429 with the wait),
   * refused while PENDING_ACCOUNTS_MAX accounts wait for an admin, and a login taken in any letter
   * case answers 409, also when parallel registrations race (the database's unique key decides).
   */
  async register(body: unknown, ip: string): Promise<{ uid: number }> {
    const data = parseInput(RegisterBody, body);
    const wait = this.registrations.take(ip);
    if (wait > 0) throw tooMany(`${MSG.tooManyRegistrations} (in ${wait} s)`);
    if ((await this.users.count({ where: { active: 0 } })) >= PENDING_ACCOUNTS_MAX) throw new AppError(403, MSG.registrationClosed, 'error');
    if (await this.users.exists({ where: { login: data.login } })) throw conflict(MSG.loginTaken);
    const password_hash = await hashPassword(data.password);
    try {
      const r = await this.users.insert({ login: data.login, name: data.name, role: Role.user, active: 0, password_hash, created_at: new Date(), last_login: null });
      return { uid: r.identifiers[0].uid as number };
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(MSG.loginTaken);
      throw err;
    }
  }

  /** Resolves a session token to its actor, or null when unknown, expired or the account is inactive. */
  async verify(hash: string | undefined | null): Promise<Actor | null> {
    if (!hash || hash.length > 128) return null;
    // Every authenticated request runs this: one plain query (session with its user) rather than two
    // built by the ORM, whose query building cost more than the queries (bench/README.md "Platform").
    const [row] = (await this.sessions.manager.query(VERIFY_SQL, [sha256(hash)])) as Array<{ Id: number; expires_at: unknown; last_seen: unknown; uid: number; login: string; name: string; role: number; active: number }>;
    if (!row) return null;
    const now = Date.now();
    if (this.hydrateDate('expires_at', row.expires_at).getTime() <= now) {
      await this.sessions.delete({ Id: row.Id });
      return null;
    }
    if (!Number(row.active)) return null;
    if (now - this.hydrateDate('last_seen', row.last_seen).getTime() > TOUCH_EVERY_MS) {
      await this.sessions.update({ Id: row.Id }, { last_seen: new Date(now) });
    }
    return { uid: Number(row.uid), login: row.login, name: row.name, role: Number(row.role), sessionId: Number(row.Id) };
  }

  /** A session's datetime column as the ORM reads it (SQLite answers text, MariaDB a Date). */
  private hydrateDate(column: 'expires_at' | 'last_seen', value: unknown): Date {
    return hydrated(this.sessions, column, value) as Date;
  }

  /** Ends every session of a user (deactivation, password reset), and their sockets. */
  async endSessions(uid: number, reason: SessionEndReason = 'revoked') {
    await this.sessions.delete({ uid });
    this.sockets.endUser(uid, reason);
  }

  async purgeExpired() {
    await this.sessions.delete({ expires_at: LessThan(new Date()) });
  }
}
