import { Inject, Injectable, Logger } from '@nestjs/common';
import { isDeadlock } from '../../core/database/db-errors.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { fmtZoned, nextAlertAfter, parseAlertType, TODO_STATUS, TODO_TYPE_LABELS } from '../../contracts/todo.js';
import { LeaseService } from '../../core/lease.service.js';
import { MAIL_TRIES, MailClient } from '../../core/outside/mail.client.js';
import { OutsideError } from '../../core/outside/outside-error.js';
import { NotificationsService, type NewNotification } from '../notifications/notifications.service.js';

/** Rows per SQL statement (multi-row INSERT, IN lists). */
const CHUNK = 200;
/** E-mails sent at once by one instance (the MailClient pools 3 connections). */
const MAIL_CONCURRENCY = 8;
/** The longest wait between two tries of a failed e-mail. */
const MAIL_BACKOFF_MAX_MS = 3_600_000;

const nowSec = () => Math.floor(Date.now() / 1000);
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** What one pass did (null from `pass` when there was nothing to do). */
export interface AlertPassResult {
  /** Due times taken from the todos (delivery rows created by this instance). */
  created: number;
  /** In-console notifications stored and sent. */
  notified: number;
  mailed: number;
  /** E-mails that failed this pass (to be tried again, or failed for good). */
  mailFailed: number;
  /** Deliveries dropped because their todo is finished or gone. */
  cancelled: number;
  /** The pass took as much as it may: the job runs the next one at once. */
  full: boolean;
  /** The last e-mail failure of the pass. */
  error: string | null;
}

interface Claimed {
  Id: number;
  todo_id: number;
  uid: number;
  due_at: number;
  late: number;
  notified_at: number;
  mail_state: string;
  mail_to: string;
  mail_tries: number;
  title: string | null;
  text: string | null;
  type: number;
  status: number | null;
}

/** Plain text of stored HTML for the text part of an e-mail. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|blockquote|pre|tr)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Delivery of todo alerts (issue 21; docs/todo.md "Delivery"). Each instance runs `pass` every
 * TODO_ALERT_SCAN_MS (src/jobs/todo-alerts.job.ts); a pass does a bounded amount of work:
 *
 * 1. **Due times.** Todos whose `alert_next` has come (status 0) become rows of `todo_alerts`, one per
 *    (todo, due time) under a unique key, inserted with INSERT IGNORE: of several instances scanning at
 *    once exactly one creates each row, and it holds the row's lease (`claim`, `lease_until`). Then the
 *    todo's `alert_next` moves to the next occurrence after max(due, now) (compare-and-set on the old
 *    value, so a save that came in between wins). Several occurrences missed while every instance was
 *    down become one delivery, of the latest due time, marked late; so does one due before this process
 *    started (the console was down) or delivered more than TODO_ALERT_LATE_SECONDS after it.
 * 2. **Work.** Rows still pending whose lease ran out (an instance died) or whose e-mail is due for
 *    another try are claimed the same way (an UPDATE that only takes rows with an expired lease).
 * 3. **Delivery** of the claimed rows: a row whose todo is finished (or gone) is cancelled, nothing sent;
 *    otherwise the in-console notification (stored once by its ref, pushed to every open tab of the
 *    owner through RealtimeService), then the e-mail through MailClient when SMTP_URL is set and the owner
 *    has an address of their own or ALERT_MAIL_TO is set. E-mails go to this instance's senders
 *    (MAIL_CONCURRENCY at a time), which work beside the next passes, so a slow SMTP server does not hold
 *    up the notifications of later alerts. Before each send the row's lease is renewed
 *    by compare-and-set on its claim, so a row another instance has taken over is never sent twice by
 *    two live instances. A failed e-mail is tried again with back-off (TODO_ALERT_MAIL_RETRY_SECONDS,
 *    doubling, at most an hour apart, TODO_ALERT_MAIL_TRIES tries) when the failure may pass (a 4xx
 *    reply, no connection, a time-out); a 5xx reply or refused credentials fail it for good. Its
 *    state is on the row and shown on the todo.
 */
@Injectable()
export class TodoAlertsService {
  private readonly log = new Logger('TodoAlerts');
  /** Unix second this process started: a due time before it was missed while the console was down. */
  readonly bootSec = nowSec();
  private passes = 0;
  private stopping = false;
  /** E-mails claimed and waiting for a free sender (MAIL_CONCURRENCY at a time), and those being sent. */
  private readonly mailQueue: Array<{ r: Claimed; claim: string }> = [];
  private mailActive = 0;
  private idle: Array<() => void> = [];
  private givingBack: Promise<void> = Promise.resolve();
  /** What the senders did since the last pass reported it. */
  private mailDone = { mailed: 0, failed: 0, error: null as string | null };

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly lease: LeaseService,
    private readonly mail: MailClient,
    private readonly notifications: NotificationsService,
  ) {}

  private get insertIgnore() {
    return this.db.options.type === 'better-sqlite3' ? 'INSERT OR IGNORE' : 'INSERT IGNORE';
  }

  /** How long a claimed row is this instance's: longer than one e-mail with all its quick tries can take. */
  get leaseMs(): number {
    return 120_000 + this.cfg.mail.timeoutMs * 4 * MAIL_TRIES;
  }

  /** The wait before try `tries + 1` of a failed e-mail: base x 2^(tries-1), at most an hour, plus up to 10%. */
  backoffMs(tries: number): number {
    const base = Math.min(MAIL_BACKOFF_MAX_MS, this.cfg.todoAlerts.mailRetryBaseMs * 2 ** Math.max(0, tries - 1));
    return Math.round(base * (1 + Math.random() * 0.1));
  }

  /** The process is stopping: no new pass; e-mails not yet started are given back (another instance, or the next start, takes them). */
  stop(): void {
    this.stopping = true;
    this.pump();
  }

  /** Resolves when no e-mail is waiting or being sent (tests; shutdown after `stop`). */
  async drain(): Promise<void> {
    if (this.mailQueue.length || this.mailActive) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.givingBack;
  }

  /** One pass (see the class): answers what it did, or null when nothing was due. */
  async pass(): Promise<AlertPassResult | null> {
    if (this.stopping) return null;
    const claim = `${this.lease.owner.slice(0, 8)}-${(++this.passes).toString(36)}-${randomBytes(4).toString('hex')}`;
    const batch = this.cfg.todoAlerts.batch;
    const created = await this.takeDue(claim);
    // Work left over is taken only while this instance's senders keep up (bounded memory).
    const stolen = this.mailQueue.length < 4 * batch ? await this.claimWork(claim) : 0;
    const r = await this.deliver(claim);
    const mail = this.mailDone;
    this.mailDone = { mailed: 0, failed: 0, error: null };
    if (!created.taken && !stolen && !r.rows && !mail.mailed && !mail.failed) return null;
    return {
      created: created.inserted, notified: r.notified, mailed: mail.mailed, mailFailed: mail.failed, cancelled: r.cancelled,
      full: created.taken >= batch || stolen >= batch, error: mail.error,
    };
  }

  /** Step 1: due todos become delivery rows claimed by `claim`; their alert_next moves on. */
  private async takeDue(claim: string): Promise<{ taken: number; inserted: number }> {
    const now = nowSec();
    const nowMs = Date.now();
    const tz = this.cfg.timeZone;
    const due: Record<string, unknown>[] = await this.db.query(
      'SELECT Id, uid, alert_type, ts_alert, alert_next FROM todos WHERE alert_next > 0 AND alert_next <= ? AND status = ? ORDER BY alert_next, Id LIMIT ?',
      [now, TODO_STATUS.open, this.cfg.todoAlerts.batch],
    );
    if (!due.length) return { taken: 0, inserted: 0 };
    const mailTo = await this.recipients(due.map((d) => num(d.uid)));
    let inserted = 0;
    for (let i = 0; i < due.length; i += CHUNK) {
      const part = due.slice(i, i + CHUNK);
      const values: unknown[] = [];
      for (const d of part) {
        const at = num(d.alert_next);
        const late = at < this.bootSec || now - at > this.cfg.todoAlerts.lateSeconds ? 1 : 0;
        const to = mailTo.get(num(d.uid)) ?? '';
        values.push(num(d.Id), num(d.uid), at, late, 1, claim, nowMs + this.leaseMs, to ? 'pending' : 'none', to, nowMs);
      }
      inserted += await this.exec(
        `${this.insertIgnore} INTO todo_alerts (todo_id, uid, due_at, late, pending, claim, lease_until, mail_state, mail_to, created_at) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        values,
      );
      // The next occurrence after this one (several missed while down: one delivery, the latest).
      const moves = part.map((d) => {
        const at = num(d.alert_next);
        return { Id: num(d.Id), from: at, to: nextAlertAfter(parseAlertType(str(d.alert_type)) ?? [], num(d.ts_alert), Math.max(at, now), tz) };
      });
      await this.exec(
        `UPDATE todos SET alert_next = CASE Id ${moves.map(() => 'WHEN ? THEN ?').join(' ')} END WHERE ${moves.map(() => '(Id = ? AND alert_next = ?)').join(' OR ')}`,
        [...moves.flatMap((m) => [m.Id, m.to]), ...moves.flatMap((m) => [m.Id, m.from])],
      );
    }
    return { taken: due.length, inserted };
  }

  /** Runs a write and answers the rows it changed (TypeORM's structured result: the same on both drivers). */
  /**
   * One statement, answering the rows it changed. Instances racing over the same due rows can make
   * MariaDB break a deadlock by rolling one statement back (seen in CI: the losing claim threw, and
   * its alert waited for the lease to run out): such a statement is run again, a few times.
   */
  private async exec(sql: string, params: unknown[]): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const runner = this.db.createQueryRunner();
      try {
        const r = await runner.query(sql, params, true);
        return r.affected ?? 0;
      } catch (err) {
        if (attempt < 5 && isDeadlock(err)) continue;
        throw err;
      } finally {
        await runner.release();
      }
    }
  }

  /** Where each owner's alerts go by e-mail: their own address, else ALERT_MAIL_TO; '' when mail is not configured. */
  private async recipients(uids: number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (!this.mail.configured) return out;
    const own = await this.notifications.emailsOf(uids);
    const fallback = this.mail.alertTo.join(', ');
    for (const uid of uids) {
      const to = own.get(uid) || fallback;
      if (to) out.set(uid, to);
    }
    return out;
  }

  /** Step 2: pending rows nobody holds (lease run out) whose work is due now, claimed by `claim`. */
  private async claimWork(claim: string): Promise<number> {
    const nowMs = Date.now();
    const ids: Record<string, unknown>[] = await this.db.query(
      'SELECT Id FROM todo_alerts WHERE pending = 1 AND lease_until < ? AND mail_next_at <= ? ORDER BY Id LIMIT ?',
      [nowMs, nowMs, this.cfg.todoAlerts.batch],
    );
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK).map((r) => num(r.Id));
      await this.exec(
        `UPDATE todo_alerts SET claim = ?, lease_until = ? WHERE pending = 1 AND lease_until < ? AND Id IN (${marks(part.length)})`,
        [claim, nowMs + this.leaseMs, nowMs, ...part],
      );
    }
    return ids.length;
  }

  /**
   * Step 3: delivers the rows this pass holds: cancels those of finished todos, notifies in the console,
   * and queues the e-mails for the senders, which work beside the next passes (a slow SMTP server never
   * holds up the notifications of the alerts due after these).
   */
  private async deliver(claim: string): Promise<{ rows: number; notified: number; cancelled: number }> {
    const raw: Record<string, unknown>[] = await this.db.query(
      `SELECT a.Id, a.todo_id, a.uid, a.due_at, a.late, a.notified_at, a.mail_state, a.mail_to, a.mail_tries, t.title, t.text, t.type, t.status
       FROM todo_alerts a LEFT JOIN todos t ON t.Id = a.todo_id WHERE a.claim = ? AND a.pending = 1 ORDER BY a.Id`,
      [claim],
    );
    // A row still waiting in this instance's queue that this pass claimed again (its lease ran out while it
    // waited) is not queued twice: the waiting entry takes the new claim.
    const queued = new Map(this.mailQueue.map((q) => [q.r.Id, q]));
    for (const r of raw) {
      const q = queued.get(num(r.Id));
      if (q) q.claim = claim;
    }
    const rows: Claimed[] = raw.filter((r) => !queued.has(num(r.Id))).map((r) => ({
      Id: num(r.Id), todo_id: num(r.todo_id), uid: num(r.uid), due_at: num(r.due_at), late: num(r.late), notified_at: num(r.notified_at),
      mail_state: str(r.mail_state), mail_to: str(r.mail_to), mail_tries: num(r.mail_tries),
      title: r.title === null || r.title === undefined ? null : str(r.title), text: str(r.text), type: num(r.type),
      status: r.status === null || r.status === undefined ? null : num(r.status),
    }));
    const out = { rows: rows.length, notified: 0, cancelled: 0 };
    if (!rows.length) return out;

    // A finished (or removed) todo sends nothing, however far its delivery got.
    const dropped = rows.filter((r) => r.status !== TODO_STATUS.open);
    for (let i = 0; i < dropped.length; i += CHUNK) {
      const part = dropped.slice(i, i + CHUNK).map((r) => r.Id);
      await this.exec(
        `UPDATE todo_alerts SET pending = 0, lease_until = 0, mail_state = CASE WHEN mail_state IN ('pending', 'retry', 'sending') THEN 'cancelled' ELSE mail_state END
         WHERE claim = ? AND Id IN (${marks(part.length)})`,
        [claim, ...part],
      );
    }
    out.cancelled = dropped.length;
    const live = rows.filter((r) => r.status === TODO_STATUS.open);

    // In-console: stored once per delivery (ref), pushed to every open tab of the owner.
    const toNotify = live.filter((r) => !r.notified_at);
    if (toNotify.length) {
      const tz = this.cfg.timeZone;
      const items: NewNotification[] = toNotify.map((r) => ({
        uid: r.uid,
        kind: 'todo.alert',
        level: r.late ? 'warning' : 'info',
        title: `Todo: ${r.title}`,
        body: `Alert for ${fmtZoned(r.due_at, tz)} (${tz})${r.late ? ', delivered late' : ''}`,
        link: `/todo/show/${r.todo_id}`,
        ref: `todo-alert:${r.Id}`,
      }));
      await this.notifications.push(items);
      const nowMs = Date.now();
      for (let i = 0; i < toNotify.length; i += CHUNK) {
        const part = toNotify.slice(i, i + CHUNK).map((r) => r.Id);
        await this.exec(`UPDATE todo_alerts SET notified_at = ? WHERE claim = ? AND Id IN (${marks(part.length)})`, [nowMs, claim, ...part]);
      }
      out.notified = toNotify.length;
    }

    // Nothing more to do than the notification: done; the e-mails go to the senders.
    const mailWork = live.filter((r) => r.mail_state === 'pending' || r.mail_state === 'retry' || r.mail_state === 'sending');
    const done = live.filter((r) => !mailWork.includes(r));
    for (let i = 0; i < done.length; i += CHUNK) {
      const part = done.slice(i, i + CHUNK).map((r) => r.Id);
      await this.exec(`UPDATE todo_alerts SET pending = 0, lease_until = 0 WHERE claim = ? AND Id IN (${marks(part.length)})`, [claim, ...part]);
    }
    for (const r of mailWork) this.mailQueue.push({ r, claim });
    this.pump();
    return out;
  }

  /** Starts queued e-mails while fewer than MAIL_CONCURRENCY are being sent; when stopping, gives the rest back. */
  private pump(): void {
    if (this.stopping && this.mailQueue.length) {
      const back = this.mailQueue.splice(0);
      this.givingBack = this.givingBack.then(() => this.giveBack(back)).catch((e) => this.log.warn(`rows not given back (${(e as Error).message}); their lease runs out`));
    }
    while (!this.stopping && this.mailActive < MAIL_CONCURRENCY && this.mailQueue.length) {
      const { r, claim } = this.mailQueue.shift()!;
      this.mailActive++;
      void this.sendOne(r, claim)
        .then((res) => {
          if (res === 'sent') this.mailDone.mailed++;
          else if (res !== 'skipped') {
            this.mailDone.failed++;
            this.mailDone.error = res;
          }
        }, (e) => this.log.warn(`todo #${r.todo_id}: e-mail not recorded (${(e as Error).message}); its lease runs out and it is tried again`))
        .finally(() => {
          this.mailActive--;
          this.pump();
          if (!this.mailQueue.length && !this.mailActive) for (const done of this.idle.splice(0)) done();
        });
    }
    if (!this.mailQueue.length && !this.mailActive) for (const done of this.idle.splice(0)) done();
  }

  /** Rows whose e-mail was not started: lease cleared, so another instance (or the next start) takes them at once. */
  private async giveBack(rows: Array<{ r: Claimed; claim: string }>): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK);
      await this.exec(
        `UPDATE todo_alerts SET lease_until = 0 WHERE pending = 1 AND mail_state <> 'sending' AND ${part.map(() => '(Id = ? AND claim = ?)').join(' OR ')}`,
        part.flatMap((x) => [x.r.Id, x.claim]),
      );
    }
  }

  /** Sends one alert's e-mail: 'sent', 'skipped' (another instance holds the row now), or the failure's message. */
  private async sendOne(r: Claimed, claim: string): Promise<string> {
    const tries = r.mail_tries + 1;
    const mine = await this.exec(
      "UPDATE todo_alerts SET mail_state = 'sending', mail_tries = ?, lease_until = ? WHERE Id = ? AND claim = ? AND pending = 1",
      [tries, Date.now() + this.leaseMs, r.Id, claim],
    );
    if (!mine) return 'skipped';
    const tz = this.cfg.timeZone;
    const when = `${fmtZoned(r.due_at, tz)} (${tz})`;
    const title = r.title ?? '';
    const body = htmlToText(r.text ?? '');
    const type = r.type ? `Type: ${TODO_TYPE_LABELS[r.type] ?? r.type}\n` : '';
    try {
      const messageId = await this.mail.send({
        to: r.mail_to.split(',').map((x) => x.trim()).filter(Boolean),
        subject: `Todo alert: ${title}${r.late ? ' (late)' : ''}`,
        text: `${title}\n\nAlert for ${when}${r.late ? ', delivered late' : ''}.\n${type}Todo #${r.todo_id}: /todo/show/${r.todo_id}\n${body ? `\n${body}\n` : ''}`,
        html: `<p><strong>${escapeHtml(title)}</strong></p><p>Alert for ${escapeHtml(when)}${r.late ? ', delivered late' : ''}. Todo #${r.todo_id}: /todo/show/${r.todo_id}</p>${r.text ?? ''}`,
      });
      await this.exec(
        "UPDATE todo_alerts SET mail_state = 'sent', mail_sent_at = ?, mail_id = ?, mail_error = NULL, mail_next_at = 0, pending = 0, lease_until = 0 WHERE Id = ? AND claim = ?",
        [Date.now(), messageId.slice(0, 255), r.Id, claim],
      );
      return 'sent';
    } catch (err) {
      const e = err as Error;
      const message = (e.message || String(err)).slice(0, 2000);
      const again = this.mayPass(err) && tries < this.cfg.todoAlerts.mailTries;
      if (again) {
        await this.exec(
          "UPDATE todo_alerts SET mail_state = 'retry', mail_error = ?, mail_next_at = ?, pending = 1, lease_until = 0 WHERE Id = ? AND claim = ?",
          [message, Date.now() + this.backoffMs(tries), r.Id, claim],
        );
      } else {
        await this.exec(
          "UPDATE todo_alerts SET mail_state = 'failed', mail_error = ?, mail_next_at = 0, pending = 0, lease_until = 0 WHERE Id = ? AND claim = ?",
          [message, r.Id, claim],
        );
      }
      this.log.warn(`todo #${r.todo_id} alert ${fmtZoned(r.due_at, tz)}: e-mail try ${tries} failed (${message})${again ? '; tried again later' : ''}`);
      return message;
    }
  }

  /** Whether another try later may succeed: a 4xx reply, no connection, a time-out, a rate limit (not 5xx, credentials, configuration). */
  private mayPass(err: unknown): boolean {
    if (!(err instanceof OutsideError)) return true;
    if (err.reason === 'upstream') return err.upstreamStatus !== undefined && err.upstreamStatus >= 400 && err.upstreamStatus < 500;
    return err.reason === 'unreachable' || err.reason === 'timeout' || err.reason === 'rate';
  }
}
