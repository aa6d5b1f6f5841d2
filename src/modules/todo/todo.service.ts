import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { Role } from '../../contracts/roles.js';
import {
  ALERT_METHOD, describeAlert, nextAlertAfter, parseAlertType, TODO_DELIVERIES_MAX, TODO_HISTORY_MAX, TODO_MSG, TODO_PAGE,
  TODO_STATUS, TODO_TEXT_MAX_BYTES, TodoGetArgs, TodoInsertArgs, TodoUpdateArgs,
  type MailState, type TodoDelivery, type TodoHistoryEntry, type TodoList, type TodoRow, type TodoSaved, type TodoView,
} from '../../contracts/todo.js';
import type { Actor } from '../../core/auth/actor.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { cleanHtml } from '../../core/content/sanitize.js';
import { invalid, notFound } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { TodoEntity, TodoHistoryEntity } from './todo.entities.js';

const nowSec = () => Math.floor(Date.now() / 1000);
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const secOf = (ms: unknown) => Math.floor(num(ms) / 1000);

/** The fields a change may touch, and the schedule fields among them. */
type Editable = Pick<TodoEntity, 'title' | 'text' | 'type' | 'status' | 'ts_alert' | 'alert_type'>;

/**
 * Todo (001 §2 "Todo", §3, §4, §7 todo.get/insert/update; issue 21; docs/todo.md): personal — a user
 * reads and changes only their own todos, admins every todo; another user's Id answers 404 'Todo not
 * found' (it does not tell that the todo exists). Before each change the old version goes to
 * todo_history with who and when (one transaction with the change). The alert's next due time
 * (`alert_next`) is computed here on save and advanced by the alert job (todo-alerts.service.ts).
 */
@Injectable()
export class TodoService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  private get tz() {
    return this.cfg.timeZone;
  }

  private static isAdmin(actor: Actor) {
    return actor.role <= Role.admin;
  }

  /** The todo `Id` if the actor may see it (its owner, or an admin); otherwise 404 (another user's todo is not found). */
  private async owned(Id: number, actor: Actor, em: EntityManager = this.db.manager): Promise<TodoEntity> {
    const row = await em.getRepository(TodoEntity).findOneBy({ Id });
    if (!row || (!TodoService.isAdmin(actor) && row.uid !== actor.uid)) throw notFound(TODO_MSG.notFound);
    auditTarget('todo', row.title, row.Id);
    return row;
  }

  /** Stored HTML of `text`: sanitised, and small enough for its column. */
  private static html(text: string): string {
    const html = cleanHtml(text);
    if (Buffer.byteLength(html, 'utf8') > TODO_TEXT_MAX_BYTES) throw invalid(TODO_MSG.textTooLong, { text: TODO_MSG.textTooLong });
    return html;
  }

  /**
   * ts_alert for a schedule (001 §4): an alert added without a time starts now; no alert is 0.
   */
  private static tsAlertFor(alertType: string, tsAlert: number, now: number): number {
    const groups = parseAlertType(alertType) ?? [];
    if (!groups.length) return 0;
    return tsAlert > 0 ? tsAlert : now;
  }

  /**
   * The next due time to store after a save: 0 when finished or without an alert; unchanged when neither
   * the schedule nor the status changed (the job keeps it; one already due stays due); otherwise the first
   * occurrence after now, and a once alert whose time was just set in the past is due at once (unless that
   * time was delivered). A restore starts from now: a once time passed while finished is not sent.
   */
  private async nextFor(next: Editable, prev: TodoEntity | null, now: number, em: EntityManager): Promise<number> {
    if (next.status !== TODO_STATUS.open) return 0;
    const groups = parseAlertType(next.alert_type) ?? [];
    const scheduleChanged = !prev || prev.alert_type !== next.alert_type || prev.ts_alert !== next.ts_alert;
    const reopened = !!prev && prev.status !== TODO_STATUS.open;
    if (prev && !scheduleChanged && !reopened) return prev.alert_next;
    let due = nextAlertAfter(groups, next.ts_alert, now, this.tz);
    if (scheduleChanged && next.ts_alert > 0 && next.ts_alert <= now && groups.some((g) => g.method === ALERT_METHOD.once)) {
      const done = prev ? await em.query('SELECT 1 AS x FROM todo_alerts WHERE todo_id = ? AND due_at = ?', [prev.Id, next.ts_alert]) : [];
      if (!done.length) due = due ? Math.min(due, next.ts_alert) : next.ts_alert;
    }
    return due;
  }

  private rowOf(r: Record<string, unknown>): TodoRow {
    return {
      Id: num(r.Id), uid: num(r.uid), owner: str(r.owner), title: str(r.title), type: num(r.type), status: num(r.status),
      ts_create: num(r.ts_create), ts_update: num(r.ts_update), ts_alert: num(r.ts_alert), alert_type: str(r.alert_type), alert_next: num(r.alert_next),
    };
  }

  /** One todo with its history (newest first) and its alert's deliveries. */
  async view(Id: number, em: EntityManager = this.db.manager): Promise<TodoView> {
    const [r] = await em.query('SELECT t.*, u.name AS owner FROM todos t LEFT JOIN users u ON u.uid = t.uid WHERE t.Id = ?', [Id]);
    if (!r) throw notFound(TODO_MSG.notFound);
    const hist: Record<string, unknown>[] = await em.query(
      `SELECT h.*, u.name AS who FROM todo_history h LEFT JOIN users u ON u.uid = h.uid WHERE h.todo_id = ? ORDER BY h.Id DESC LIMIT ${TODO_HISTORY_MAX}`, [Id],
    );
    const del: Record<string, unknown>[] = await em.query(
      `SELECT Id, due_at, late, notified_at, mail_state, mail_to, mail_tries, mail_next_at, mail_error, mail_sent_at FROM todo_alerts WHERE todo_id = ? ORDER BY due_at DESC, Id DESC LIMIT ${TODO_DELIVERIES_MAX}`, [Id],
    );
    const row = this.rowOf(r);
    return {
      ...row,
      text: str(r.text),
      history: hist.map((h): TodoHistoryEntry => ({
        Id: num(h.Id), action: str(h.action) as TodoHistoryEntry['action'], uid: num(h.uid), who: str(h.who), ts: num(h.ts),
        title: str(h.title), text: str(h.text), type: num(h.type), status: num(h.status), ts_alert: num(h.ts_alert), alert_type: str(h.alert_type), ts_update: num(h.ts_update),
      })),
      alerts: {
        tz: this.tz,
        description: describeAlert(parseAlertType(row.alert_type) ?? [], row.ts_alert, this.tz),
        deliveries: del.map((d): TodoDelivery => ({
          Id: num(d.Id), due_at: num(d.due_at), late: num(d.late), notified_at: secOf(d.notified_at), mail_state: str(d.mail_state) as MailState,
          mail_to: str(d.mail_to), mail_tries: num(d.mail_tries), mail_next_at: secOf(d.mail_next_at), mail_error: str(d.mail_error), mail_sent_at: secOf(d.mail_sent_at),
        })),
      },
    };
  }

  @Rpc('todo.get', {
    role: Role.user, input: TodoGetArgs,
    summary: `{Id}: one todo {Id, uid, owner, title, text, type, status, ts_create, ts_update, ts_alert, alert_type, alert_next, history: [{Id, action, uid, who, ts, title, text, type, status, ts_alert, alert_type, ts_update}], alerts: {tz, description, deliveries: [{due_at, late, notified_at, mail_state, mail_tries, mail_next_at, mail_error, ...}]}} ('${TODO_MSG.notFound}' for another user's todo); without Id the list {status? (0 | -1), type?, mine?, p_?, limit? (${TODO_PAGE})}: {list, count, page, limit, tz}, newest first. Own todos only; admins every todo`,
  })
  async get(a: z.output<typeof TodoGetArgs>, ctx: RpcContext): Promise<TodoView | TodoList> {
    if (a.Id) {
      await this.owned(a.Id, ctx.actor);
      return this.view(a.Id);
    }
    const where: string[] = [];
    const params: unknown[] = [];
    if (!TodoService.isAdmin(ctx.actor) || a.mine) { where.push('t.uid = ?'); params.push(ctx.actor.uid); }
    if (a.status !== undefined) { where.push('t.status = ?'); params.push(a.status); }
    if (a.type !== undefined) { where.push('t.type = ?'); params.push(a.type); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const limit = a.limit ?? TODO_PAGE;
    const page = a.p_ ?? 1;
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM todos t ${w}`, params);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT t.Id, t.uid, u.name AS owner, t.title, t.type, t.status, t.ts_create, t.ts_update, t.ts_alert, t.alert_type, t.alert_next
       FROM todos t LEFT JOIN users u ON u.uid = t.uid ${w} ORDER BY t.Id DESC LIMIT ? OFFSET ?`,
      [...params, limit, (page - 1) * limit],
    );
    return { list: rows.map((r) => this.rowOf(r)), count: num(n), page, limit, tz: this.tz };
  }

  @Rpc('todo.insert', {
    role: Role.user, write: true, input: TodoInsertArgs,
    summary: `{title, text? (HTML, sanitised), type? (0-6), alert_type? ('method,weekday;...'), ts_alert? (unix seconds)}: a todo of the caller, status 0; an alert without ts_alert starts now, no alert stores ts_alert 0; answers {Id, message: '${TODO_MSG.insertOk}', todo}`,
  })
  async insert(a: z.output<typeof TodoInsertArgs>, ctx: RpcContext): Promise<TodoSaved> {
    const now = nowSec();
    const alertType = a.alert_type ?? '';
    const fields: Editable = {
      title: a.title, text: TodoService.html(a.text ?? ''), type: a.type ?? 0, status: TODO_STATUS.open,
      alert_type: alertType, ts_alert: TodoService.tsAlertFor(alertType, a.ts_alert ?? 0, now),
    };
    return this.db.transaction(async (em) => {
      const alert_next = await this.nextFor(fields, null, now, em);
      const saved = await em.getRepository(TodoEntity).save({ ...fields, uid: ctx.actor.uid, ts_create: now, ts_update: now, alert_next });
      auditTarget('todo', saved.title, saved.Id);
      return { Id: saved.Id, message: TODO_MSG.insertOk, todo: await this.view(saved.Id, em) };
    });
  }

  @Rpc('todo.update', {
    role: Role.user, write: true, input: TodoUpdateArgs,
    summary: `{Id, title?, text?, type?, status? (-1 finishes: '${TODO_MSG.close}'; 0 restores: '${TODO_MSG.restore}'), alert_type?, ts_alert?}: changes the caller's todo (an admin's: any), saving the old version with who and when first; adding an alert without ts_alert sets it to now, removing it sets 0; answers {Id, message ('${TODO_MSG.updateOk}' otherwise), todo}`,
  })
  async update(a: z.output<typeof TodoUpdateArgs>, ctx: RpcContext): Promise<TodoSaved> {
    return this.db.transaction(async (em) => {
      const prev = await this.owned(a.Id, ctx.actor, em);
      const now = nowSec();
      const alertType = a.alert_type ?? prev.alert_type;
      const addsAlert = !(parseAlertType(prev.alert_type) ?? []).length;
      const tsGiven = a.ts_alert ?? (addsAlert ? 0 : prev.ts_alert);
      const next: Editable = {
        title: a.title ?? prev.title,
        text: a.text !== undefined ? TodoService.html(a.text) : str(prev.text),
        type: a.type ?? prev.type,
        status: a.status ?? prev.status,
        alert_type: alertType,
        ts_alert: TodoService.tsAlertFor(alertType, tsGiven, now),
      };
      const changed = (Object.keys(next) as (keyof Editable)[]).some((k) => (k === 'text' ? str(prev.text) !== next.text : prev[k] !== next[k]));
      const message = next.status !== prev.status
        ? (next.status === TODO_STATUS.finished ? TODO_MSG.close : TODO_MSG.restore)
        : TODO_MSG.updateOk;
      if (!changed) return { Id: prev.Id, message, todo: await this.view(prev.Id, em) };
      const action: TodoHistoryEntry['action'] = next.status === prev.status ? 'update' : next.status === TODO_STATUS.finished ? 'finish' : 'restore';
      await em.getRepository(TodoHistoryEntity).insert({
        todo_id: prev.Id, uid: ctx.actor.uid, ts: now, action,
        title: prev.title, text: prev.text, type: prev.type, status: prev.status, ts_alert: prev.ts_alert, alert_type: prev.alert_type, ts_update: prev.ts_update,
      });
      const alert_next = await this.nextFor(next, prev, now, em);
      await em.getRepository(TodoEntity).update({ Id: prev.Id }, { ...next, ts_update: now, alert_next });
      auditTarget('todo', next.title, prev.Id);
      return { Id: prev.Id, message, todo: await this.view(prev.Id, em) };
    });
  }
}
