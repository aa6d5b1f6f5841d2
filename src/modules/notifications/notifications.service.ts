import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  NOTIFY_MSG, NOTIFY_PAGE, NotifyListArgs, NotifyMarkReadArgs, NotifySaveSettingsArgs,
  type NotificationLevel, type NotificationList, type NotificationView, type NotifySettings,
} from '../../contracts/notifications.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { notFound } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import type { RpcContext } from '../../core/rpc/rpc.decorator.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { NotificationEntity, NotifySettingsEntity } from './notifications.entities.js';

/** A notification to store and push (`ref` unique: a second push of the same ref stores nothing new). */
export interface NewNotification {
  uid: number;
  kind: string;
  level: NotificationLevel;
  title: string;
  body: string;
  link: string;
  ref: string;
}

const CHUNK = 200;
const nowSec = () => Math.floor(Date.now() / 1000);
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const view = (r: Record<string, unknown>): NotificationView => ({
  Id: num(r.Id), kind: str(r.kind), level: str(r.level) === 'warning' ? 'warning' : 'info', title: str(r.title), body: str(r.body),
  link: str(r.link), ts: num(r.ts), read_at: num(r.read_at),
});

/**
 * The notification list (docs/todo.md "Notifications"): every signed-in user reads and marks only their
 * own. Senders (the todo alerts) call `push`, which stores each notification once (by its `ref`) and
 * sends it to every open tab of its user through RealtimeService (`notify.new` to the user's room, on
 * every instance with Redis). A user's own address for alert e-mail lives here too.
 */
@Injectable()
export class NotificationsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  private get insertIgnore() {
    return this.db.options.type === 'better-sqlite3' ? 'INSERT OR IGNORE' : 'INSERT IGNORE';
  }

  /**
   * Stores the notifications whose ref is new and pushes every one of `items` that is stored (a ref
   * stored by an earlier, interrupted try is pushed again: the UI keeps one per Id). Answers the stored rows.
   */
  async push(items: NewNotification[]): Promise<NotificationView[]> {
    const out: NotificationView[] = [];
    const ts = nowSec();
    for (let i = 0; i < items.length; i += CHUNK) {
      const part = items.slice(i, i + CHUNK);
      await this.db.query(
        `${this.insertIgnore} INTO notifications (uid, kind, level, title, body, link, ref, ts, read_at) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, 0)').join(', ')}`,
        part.flatMap((n) => [n.uid, n.kind, n.level, n.title.slice(0, 255), n.body, n.link.slice(0, 255), n.ref, ts]),
      );
      const rows: Record<string, unknown>[] = await this.db.query(
        `SELECT Id, uid, kind, level, title, body, link, ts, read_at FROM notifications WHERE ref IN (${part.map(() => '?').join(', ')})`,
        part.map((n) => n.ref),
      );
      for (const r of rows) {
        const v = view(r);
        out.push(v);
        this.realtime.emitToUser(num(r.uid), 'notify.new', v, Role.user);
      }
    }
    return out;
  }

  /** The user's own address for alert e-mail, or ''. */
  async emailOf(uid: number): Promise<string> {
    return (await this.emailsOf([uid])).get(uid) ?? '';
  }

  /** Own alert addresses of several users (those without one are left out). */
  async emailsOf(uids: number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const unique = [...new Set(uids)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const part = unique.slice(i, i + CHUNK);
      const rows: Record<string, unknown>[] = await this.db.query(
        `SELECT uid, email FROM notify_settings WHERE email <> '' AND uid IN (${part.map(() => '?').join(', ')})`, part,
      );
      for (const r of rows) out.set(num(r.uid), str(r.email));
    }
    return out;
  }

  private async unreadOf(uid: number): Promise<number> {
    const [{ n }] = await this.db.query('SELECT COUNT(*) AS n FROM notifications WHERE uid = ? AND read_at = 0', [uid]);
    return num(n);
  }

  @Rpc('notify.getList', {
    role: Role.user, input: NotifyListArgs,
    summary: `{unread?, p_?, limit? (${NOTIFY_PAGE})}: the caller's own notifications, newest first: {list: [{Id, kind, level, title, body, link, ts, read_at}], count, unread, page, limit}`,
  })
  async getList(a: z.output<typeof NotifyListArgs>, ctx: RpcContext): Promise<NotificationList> {
    const uid = ctx.actor.uid;
    const limit = a.limit ?? NOTIFY_PAGE;
    const page = a.p_ ?? 1;
    const w = a.unread ? 'uid = ? AND read_at = 0' : 'uid = ?';
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM notifications WHERE ${w}`, [uid]);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT Id, kind, level, title, body, link, ts, read_at FROM notifications WHERE ${w} ORDER BY Id DESC LIMIT ? OFFSET ?`,
      [uid, limit, (page - 1) * limit],
    );
    return { list: rows.map(view), count: num(n), unread: a.unread ? num(n) : await this.unreadOf(uid), page, limit };
  }

  @Rpc('notify.markRead', {
    role: Role.user, write: true, input: NotifyMarkReadArgs,
    summary: `{Id} one of the caller's notifications, or {all: 1} every unread one: marked read; answers {unread}; the user's other tabs get notify.read ('${NOTIFY_MSG.notFound}' for another user's Id)`,
  })
  async markRead(a: z.output<typeof NotifyMarkReadArgs>, ctx: RpcContext): Promise<{ unread: number }> {
    const uid = ctx.actor.uid;
    const ts = nowSec();
    if (a.Id) {
      const row = await this.db.getRepository(NotificationEntity).findOneBy({ Id: a.Id, uid });
      if (!row) throw notFound(NOTIFY_MSG.notFound);
      auditTarget('notification', row.title, row.Id);
      if (!row.read_at) await this.db.query('UPDATE notifications SET read_at = ? WHERE Id = ? AND uid = ?', [ts, a.Id, uid]);
    } else if (a.all) {
      auditTarget('notifications', 'all unread');
      await this.db.query('UPDATE notifications SET read_at = ? WHERE uid = ? AND read_at = 0', [ts, uid]);
    }
    const unread = await this.unreadOf(uid);
    this.realtime.emitToUser(uid, 'notify.read', { Id: a.Id ?? null, unread }, Role.user);
    return { unread };
  }

  @Rpc('notify.getSettings', {
    role: Role.user,
    summary: '{}: where the caller\'s alerts go by e-mail: {email (own address, \'\' none), mail_configured (SMTP_URL set), alert_to_set (ALERT_MAIL_TO set)}',
  })
  async getSettings(_a: unknown, ctx: RpcContext): Promise<NotifySettings> {
    return { email: await this.emailOf(ctx.actor.uid), mail_configured: !!this.cfg.mail.smtp, alert_to_set: this.cfg.mail.alertTo.length > 0 };
  }

  @Rpc('notify.saveSettings', {
    role: Role.user, write: true, input: NotifySaveSettingsArgs,
    summary: `{email}: the caller's own address for alert e-mail ('' removes it: ALERT_MAIL_TO is used); answers the settings with message '${NOTIFY_MSG.saved}'`,
  })
  async saveSettings(a: z.output<typeof NotifySaveSettingsArgs>, ctx: RpcContext): Promise<NotifySettings & { message: string }> {
    const repo = this.db.getRepository(NotifySettingsEntity);
    auditTarget('notification settings', ctx.actor.login, ctx.actor.uid);
    await repo.upsert({ uid: ctx.actor.uid, email: a.email }, ['uid']);
    return { ...(await this.getSettings(undefined, ctx)), message: NOTIFY_MSG.saved };
  }
}
