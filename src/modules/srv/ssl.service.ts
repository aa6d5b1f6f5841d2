import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isIP } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { SslChangedEvent } from '../../contracts/events.js';
import { MSG } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import { SslIdArgs, SslUpdateArgs, parseSslHost, type SslHostView, type SslReason } from '../../contracts/srv.js';
import { AppError, notFound } from '../../core/errors.js';
import { LeaseService } from '../../core/lease.service.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SslHostEntity } from './ssl-host.entity.js';

export const SSL_CHECK_TIMEOUT_MS = 10_000;
export const SSL_CHECK_CONCURRENCY = 5;
const DAY_MS = 86_400_000;

export interface CertificateInfo {
  notAfter: Date;
  /** The chain verified against the system's CAs and matched the host name. */
  authorized: boolean;
  authorizationError: string | null;
  subject: string;
  issuer: string;
}

/**
 * A check failure or chain error classified from its text (issue 18: operators saw raw OpenSSL lines
 * such as '80CC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'). The texts are this
 * service's own messages (refused, timed out, …), Node's verify codes (DEPTH_ZERO_SELF_SIGNED_CERT,
 * ERR_TLS_CERT_ALTNAME_INVALID, …) and OpenSSL's reason strings; derived when answering, so rows
 * stored before are classified too. The sentences are SSL_REASON_TEXT (contracts/srv.ts).
 */
export function sslReasonOf(text: string | null | undefined): SslReason | null {
  if (!text) return null;
  const rules: Array<[RegExp, SslReason]> = [
    [/^Not a valid host/, 'bad_host'],
    [/^Connection refused|ECONNREFUSED/, 'refused'],
    [/^Timed out after|ETIMEDOUT/, 'timeout'],
    [/^Host not found|ENOTFOUND|EAI_AGAIN/, 'not_found'],
    [/EHOSTUNREACH|ENETUNREACH/, 'unreachable'],
    [/sent no certificate/i, 'no_certificate'],
    [/CERT_HAS_EXPIRED|certificate has expired/i, 'expired'],
    [/CERT_NOT_YET_VALID|certificate is not yet valid/i, 'not_yet_valid'],
    [/SELF_SIGNED|self[- ]signed/i, 'self_signed'],
    [/ALTNAME_INVALID|Hostname\/IP does not match|does not match certificate/i, 'name_mismatch'],
    [/UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED|CERT_CHAIN_TOO_LONG|unable to (get|verify)/i, 'untrusted'],
    [/wrong version number|unsupported protocol|unknown protocol|http request|packet length too long|record layer failure/i, 'wrong_version'],
    [/Connection reset|ECONNRESET|socket disconnected|socket hang up/i, 'reset'],
    [/alert|handshake failure|no shared cipher|no protocols available|unsupported|SSL routines/i, 'handshake'],
  ];
  return rules.find(([re]) => re.test(text))?.[1] ?? 'other';
}

const toView = (r: SslHostEntity): SslHostView => ({
  Id: r.Id, host: r.host, day_last: r.day_last, not_check: r.not_check,
  ts_check: r.ts_check?.toISOString() ?? null, expires_at: r.expires_at?.toISOString() ?? null,
  chain_valid: r.chain_valid, chain_error: r.chain_error, error: r.error,
  error_reason: sslReasonOf(r.error), chain_reason: r.chain_valid === 1 ? null : sslReasonOf(r.chain_error),
});

/** Whole days from `now` until `notAfter` (negative once expired). */
export const daysLeft = (notAfter: Date, now = Date.now()) => Math.floor((notAfter.getTime() - now) / DAY_MS);

/**
 * A real TLS handshake (SNI for host names) that reads the peer certificate's expiry. The chain is not
 * required to verify (self-signed and expired certificates are read too); whether it did is returned.
 */
export function readCertificate(host: string, port: number, timeoutMs = SSL_CHECK_TIMEOUT_MS): Promise<CertificateInfo> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const socket = tlsConnect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const finish = (err: Error | null, info?: CertificateInfo) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) socket.destroy();
      else {
        // A polite close (close_notify) so the peer sees a completed handshake; bounded all the same.
        socket.end();
        setTimeout(() => socket.destroy(), 2000).unref();
      }
      if (err) reject(err);
      else resolve(info!);
    };
    const timer = setTimeout(() => finish(new Error(`Timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate() as PeerCertificate | Record<string, never>;
      if (!cert || !('valid_to' in cert) || !cert.valid_to) return finish(new Error('The server sent no certificate'));
      const notAfter = new Date(cert.valid_to);
      if (Number.isNaN(notAfter.getTime())) return finish(new Error(`Unreadable certificate expiry '${cert.valid_to}'`));
      const name = (x: unknown) => (x && typeof x === 'object' ? Object.entries(x as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(', ') : '');
      const authError = socket.authorizationError as unknown;
      finish(null, {
        notAfter,
        authorized: socket.authorized,
        authorizationError: socket.authorized ? null : authError instanceof Error ? authError.message : String(authError ?? 'not verified'),
        subject: name(cert.subject),
        issuer: name(cert.issuer),
      });
    });
    socket.once('error', (err: Error & { code?: string }) => {
      const msg = err.code === 'ECONNREFUSED' ? 'Connection refused'
        : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' ? `Host not found (${err.code})`
        : err.code === 'ECONNRESET' ? 'Connection reset during the TLS handshake'
        : err.message;
      finish(new Error(msg));
    });
  });
}

/** SSL hosts (000 §2 /srv/ssl_check, §3 SSL host, §5 alert): list, edit, and the expiry check. Admin only. */
@Injectable()
export class SslService {
  private readonly log = new Logger('Ssl');

  constructor(
    @InjectRepository(SslHostEntity) private readonly hosts: Repository<SslHostEntity>,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly leases: LeaseService,
    private readonly realtime: RealtimeService,
  ) {}

  /** Every admin's open SSL list re-reads (issue 7: operators see each other's changes live). */
  private changed(action: SslChangedEvent['action'], Ids: number[]) {
    if (Ids.length) this.realtime.emit('ssl.changed', { action, Ids }, Role.admin);
  }

  private async row(Id: number): Promise<SslHostEntity> {
    const r = await this.hosts.findOne({ where: { Id } });
    if (!r) throw notFound(`SSL host ${Id} not found`);
    return r;
  }

  @Rpc('srv.getSslHosts', { role: Role.admin, summary: 'SSL hosts by host: [{Id, host, day_last, not_check, ts_check, expires_at, chain_valid, chain_error, error}]' })
  async list(): Promise<SslHostView[]> {
    const rows = await this.hosts.find({ order: { host: 'ASC' } });
    return rows.map(toView);
  }

  @Rpc('srv.sslUpdateHost', { role: Role.admin, write: true, input: SslUpdateArgs, summary: "{Id?, host, not_check?}: creates (no Id) or updates an SSL host; host may carry a port ('example.com:8443', default 443); answers {Id}" })
  async update(a: z.output<typeof SslUpdateArgs>): Promise<{ Id: number }> {
    if (a.host !== undefined) {
      const same = await this.hosts.createQueryBuilder('h').where('LOWER(h.host) = :h', { h: a.host }).getOne();
      if (same && same.Id !== a.Id) throw new AppError(409, `host: ${a.host} is already in the list`, 'rules', { host: `${a.host} is already in the list` });
    }
    if (a.Id === undefined) {
      const saved = await this.hosts.save(this.hosts.create({ host: a.host!, not_check: a.not_check ?? 0, day_last: null, ts_check: null, expires_at: null, chain_valid: null, chain_error: null, error: null }));
      this.changed('add', [saved.Id]);
      return { Id: saved.Id };
    }
    const r = await this.row(a.Id);
    const patch: Partial<SslHostEntity> = {};
    if (a.not_check !== undefined) patch.not_check = a.not_check;
    if (a.host !== undefined && a.host !== r.host) Object.assign(patch, { host: a.host, day_last: null, ts_check: null, expires_at: null, chain_valid: null, chain_error: null, error: null });
    if (Object.keys(patch).length) {
      await this.hosts.update({ Id: r.Id }, patch);
      this.changed('edit', [r.Id]);
    }
    return { Id: r.Id };
  }

  @Rpc('srv.sslDeleteById', { role: Role.admin, write: true, input: SslIdArgs, summary: "{Id}: removes an SSL host; answers {Id, message: 'Delete ok!'}" })
  async remove(a: z.output<typeof SslIdArgs>) {
    const r = await this.row(a.Id);
    await this.hosts.delete({ Id: r.Id });
    this.changed('remove', [r.Id]);
    return { Id: r.Id, message: MSG.deleteOk };
  }

  @Rpc('srv.sslCheckHost', { role: Role.admin, write: true, input: SslIdArgs, summary: '{Id}: checks the certificate now (TLS handshake with SNI); answers the row; a failure is recorded in error, not thrown' })
  async checkNow(a: z.output<typeof SslIdArgs>): Promise<SslHostView> {
    const r = await this.check(await this.row(a.Id));
    this.changed('check', [r.Id]);
    return toView(r);
  }

  @Rpc('srv.sslCheckAll', { role: Role.admin, write: true, summary: 'Checks every SSL host with not_check 0 now (5 at a time); answers the rows' })
  async checkAllNow(): Promise<SslHostView[]> {
    await this.checkAll();
    return this.list();
  }

  /** Checks every host with not_check 0, a few at a time; never throws for a host's failure. */
  async checkAll(): Promise<{ checked: number; failed: number }> {
    const rows = await this.hosts.find({ where: { not_check: 0 } });
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < rows.length) {
        const r = await this.check(rows[next++]);
        if (r.error) failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SSL_CHECK_CONCURRENCY, rows.length) }, worker));
    this.changed('check', rows.map((r) => r.Id));
    return { checked: rows.length, failed };
  }

  /** The daily job: once across instances (lease), skipped where CRON_ENABLED=0. */
  async scheduledCheck(): Promise<void> {
    if (!this.cfg.cronEnabled) return;
    if (!(await this.leases.acquire('ssl-check', 60 * 60_000))) return;
    const r = await this.checkAll();
    this.log.log(`SSL check: ${r.checked} hosts, ${r.failed} failed`);
  }

  /** One check: day_last, expiry and chain on success; the failure text otherwise (day_last kept). */
  async check(r: SslHostEntity): Promise<SslHostEntity> {
    const now = new Date();
    const target = parseSslHost(r.host);
    let patch: Partial<SslHostEntity>;
    if (!target) patch = { ts_check: now, error: `Not a valid host: ${r.host}` };
    else {
      try {
        const c = await readCertificate(target.host, target.port);
        patch = { ts_check: now, day_last: daysLeft(c.notAfter, now.getTime()), expires_at: c.notAfter, chain_valid: c.authorized ? 1 : 0, chain_error: c.authorizationError, error: null };
      } catch (err) {
        patch = { ts_check: now, error: (err as Error).message.slice(0, 1000) };
      }
    }
    await this.hosts.update({ Id: r.Id }, patch);
    return { ...r, ...patch };
  }
}
