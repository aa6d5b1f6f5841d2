/**
 * Outgoing mail over SMTP (issue 21 alerts by e-mail; docs/architecture.md "Outside services"), with
 * nodemailer: SMTP_URL (`smtp://user:pass@host:port`, STARTTLS when the server offers it, or
 * `smtps://` for TLS from the start), SMTP_TIMEOUT_MS for each step (connect, greeting, every reply),
 * ALERT_MAIL_FROM (default console@<hostname>) and ALERT_MAIL_TO (the alerts' default recipients).
 * Without SMTP_URL it is not configured (`configured` false; `send` throws reason `config`).
 *
 * The password comes from the environment: it is handed to nodemailer only, never logged, never
 * answered (`describe()` shows `smtp://user:***@host:port`), and the audit/log masker would hide the
 * URL form anyway.
 *
 * Failures are OutsideErrors: `auth` (the server refused the credentials, 535 and its kin), `timeout`,
 * `unreachable` (no connection), `upstream` with the SMTP reply code (`upstreamStatus`). A 4xx reply is
 * transient (the server did not take the message: greylisting, a full queue) and is tried again with
 * back-off, up to MAIL_TRIES in all; a 5xx reply is final and never retried, and so is a failure after
 * the message may have been taken (a broken connection during DATA): a repeat could deliver it twice.
 * Longer retries (minutes, hours) are the caller's: the alert job keeps a failed mail and tries later.
 *
 * One pooled transport (MAIL_POOL_CONNECTIONS connections, reused for many messages), closed at shutdown.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { SECRET_MASK } from '../../contracts/secrets.js';
import { OutsideError, type OutsideReason } from './outside-error.js';
import { withRetry, type RetryPolicy } from './retry.js';

const SERVICE = 'mail';
export const MAIL_TRIES = 3;
export const MAIL_POOL_CONNECTIONS = 3;
export const MAIL_NOT_CONFIGURED_MESSAGE = 'Mail is not configured (SMTP_URL)';

export interface MailMessage {
  /** One address or several; ALERT_MAIL_TO when left out. */
  to?: string | string[];
  subject: string;
  text: string;
  html?: string;
}

/** What nodemailer puts on its errors (src: nodemailer's errors.d.ts NodemailerError). */
interface SmtpFailure {
  message?: string;
  code?: string;
  errno?: string | number;
  command?: string;
  response?: string;
  responseCode?: number;
}

type Transport = ReturnType<typeof createTransport>;

@Injectable()
export class MailClient implements OnModuleDestroy {
  private readonly log = new Logger('Mail');
  private transport: Transport | null = null;
  /** Back-off between tries (tests shorten it). */
  retry: RetryPolicy = { tries: MAIL_TRIES, baseMs: 500, maxMs: 5_000 };

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  get configured(): boolean {
    return !!this.cfg.mail.smtp;
  }

  /** The sender of every message. */
  get from(): string {
    return this.cfg.mail.from;
  }

  /** The alerts' default recipients (ALERT_MAIL_TO). */
  get alertTo(): string[] {
    return this.cfg.mail.alertTo;
  }

  /** Where mail goes, the password masked: `smtp://alerts:***@mail.example.org:587`. */
  get target(): string {
    const s = this.cfg.mail.smtp;
    if (!s) return '';
    const user = s.user ? `${encodeURIComponent(s.user)}${s.pass ? `:${SECRET_MASK}` : ''}@` : '';
    const host = s.host.includes(':') ? `[${s.host}]` : s.host;
    return `${s.secure ? 'smtps' : 'smtp'}://${user}${host}:${s.port}`;
  }

  describe(): OutsideServiceView {
    return {
      service: SERVICE,
      configured: this.configured,
      target: this.target,
      credential: this.cfg.mail.smtp?.pass ? 'set' : 'not set',
      env: ['SMTP_URL', 'SMTP_TIMEOUT_MS', 'ALERT_MAIL_FROM', 'ALERT_MAIL_TO'],
      details: { from: this.from, alert_to: this.alertTo.join(', ') || null, timeout_ms: this.cfg.mail.timeoutMs },
    };
  }

  private transporter(): Transport {
    const s = this.cfg.mail.smtp;
    if (!s) throw new OutsideError(SERVICE, 'config', MAIL_NOT_CONFIGURED_MESSAGE);
    const ms = this.cfg.mail.timeoutMs;
    this.transport ??= createTransport({
      pool: true,
      maxConnections: MAIL_POOL_CONNECTIONS,
      maxMessages: 100,
      host: s.host,
      port: s.port,
      secure: s.secure,
      ...(s.user ? { auth: { user: s.user, pass: s.pass ?? '' } } : {}),
      connectionTimeout: ms,
      greetingTimeout: ms,
      socketTimeout: ms,
      // messages are built from our own text: no file or URL is ever read into one
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    return this.transport;
  }

  /** Sends one message; answers its Message-ID. 4xx replies and refused connections are tried again. */
  async send(msg: MailMessage): Promise<string> {
    const transport = this.transporter();
    const to = msg.to === undefined ? this.alertTo : Array.isArray(msg.to) ? msg.to : [msg.to];
    if (!to.length) throw new OutsideError(SERVICE, 'config', 'No recipient: give one or set ALERT_MAIL_TO');
    return withRetry(async () => {
      try {
        const info = await transport.sendMail({ from: this.from, to, subject: msg.subject, text: msg.text, ...(msg.html !== undefined ? { html: msg.html } : {}) });
        return String(info.messageId);
      } catch (err) {
        throw this.failure(err as SmtpFailure);
      }
    }, {
      idempotent: true, // only what the server did not take is retried (see `failure`)
      policy: this.retry,
      onRetry: (e, wait, attempt) => this.log.warn(`try ${attempt} of ${this.retry.tries} failed (${e.message}); again in ${wait} ms`),
    });
  }

  /** A nodemailer error as an OutsideError (the one mapping of SMTP failures). */
  private failure(e: SmtpFailure): OutsideError {
    const s = this.cfg.mail.smtp!;
    const where = `${s.host}:${s.port}`;
    const code = e.responseCode;
    const reply = (e.response ?? e.message ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
    let reason: OutsideReason;
    let message: string;
    let retryable = false;
    if (e.code === 'EAUTH' || e.code === 'ENOAUTH' || code === 530 || code === 534 || code === 535 || code === 538) {
      reason = 'auth';
      message = `Mail: ${where} refused the credentials${code ? ` (${code})` : ''}: ${reply}`;
    } else if (e.code === 'ETIMEDOUT') {
      reason = 'timeout';
      message = `Mail: ${where} did not answer within ${this.cfg.mail.timeoutMs / 1000} s`;
    } else if (code) {
      reason = 'upstream';
      retryable = code >= 400 && code < 500; // transient: the server did not take the message
      message = `Mail: the SMTP server answered ${reply.startsWith(String(code)) ? reply : `${code} ${reply}`}`;
    } else if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'EDNS' || e.code === 'ETLS') {
      reason = 'unreachable';
      const errno = typeof e.errno === 'string' ? e.errno : undefined;
      // refused before a word was said: nothing was sent, another try is safe
      retryable = e.command === 'CONN' || errno === 'ECONNREFUSED';
      message = `Mail: ${where} cannot be reached (${errno ?? e.code}: ${reply})`;
    } else if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') {
      reason = 'config';
      message = `Mail: ${reply}`;
    } else {
      reason = 'upstream';
      message = `Mail: ${reply || e.code || 'error'}`;
    }
    return new OutsideError(SERVICE, reason, message, { status: code, retryable });
  }

  async onModuleDestroy(): Promise<void> {
    this.transport?.close();
    this.transport = null;
  }
}
