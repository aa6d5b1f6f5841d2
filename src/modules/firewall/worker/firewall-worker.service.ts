/**
 * The firewall worker (issue 8 "Reading the logs", 000 §2 "A firewall worker on/off control with last
 * run time", §3 "Firewall worker status"): reads every proxy's nginx access log incrementally over SSH,
 * parses it in the worker-thread pool, and stores entries and per-IP counters (AccessLogStore). Rules
 * and decisions: docs/firewall.md "Reading the logs".
 *
 * Per proxy and run, one SSH connection and, while the log only grows, one command: it opens the log,
 * checks that the file it opened is still the one the cursor names (inode) and no shorter than the
 * cursor, then streams the bytes from the cursor on (`tail -c +N <&3 | head -c M`). Each chunk is parsed
 * off the event loop and stored with the cursor move in one transaction, so a crash never loses or
 * repeats a line, and a restart resumes at the persisted cursor. A new inode or a shorter file is a
 * rotation: the rotated file (`<log>.1`) is finished from the cursor first, then the new log is read
 * from 0.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import {
  LOG_BAD_SAMPLE_MAX, WorkerStatusArgs,
  type WorkerBadLine, type WorkerProxyResult, type WorkerProxyState, type WorkerStatus, type WorkerStatusEvent,
} from '../../../contracts/firewall.js';
import { Role } from '../../../contracts/roles.js';
import { DEFAULT_NGINX_LOG, PROXY_TYPE, type ServerView } from '../../../contracts/srv.js';
import type { Actor } from '../../../core/auth/actor.js';
import { LeaseService } from '../../../core/lease.service.js';
import { RealtimeService } from '../../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { SshService, type SshConnection, type SshTarget } from '../../../core/ssh/ssh.service.js';
import { SrvService } from '../../srv/srv.service.js';
import { AccessLogStore, CursorMovedError, type CursorAt, type CursorTo, type StoreSource } from './access-log.store.js';
import { FirewallSettingEntity, LogCursorEntity } from '../firewall.entities.js';
import { FirewallScoreService } from '../train/firewall-score.service.js';
import { LogParsePool } from './log-parse.pool.js';
import { initialParseState, type LogBatch, type LogParseState } from './log-parser.js';

/** fw_settings rows: the switch ('1' on, '0' off; none = off) and the ISO time the last run ended. */
export const WORKER_SETTING_STATUS = 'worker_status';
export const WORKER_SETTING_LAST = 'worker_last_time';
/** Bytes read from one proxy in one run at most; the next run goes on from there. */
export const WORKER_MAX_BYTES_PER_RUN = 256 * 1024 * 1024;
/** Bound on one read command (a run's share of a big log). */
export const WORKER_COMMAND_TIMEOUT_MS = 10 * 60_000;
/** Leases of the scheduled work (one instance at a time); renewed while a run goes on. */
export const WORKER_LEASE = 'firewall-worker';
export const RETENTION_LEASE = 'firewall-retention';
const WORKER_LEASE_MS = 5 * 60_000;
const RETENTION_LEASE_MS = 30 * 60_000;

/** A path in single quotes for sh (a quote inside becomes '\''). */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The read command. Opens `path` once (fd 3) and reads from that descriptor, so a rotation between the
 * check and the read cannot mix two files. Prints one header line, then the bytes:
 * - `fwlog read <inode> <size> <n>`: the file is the expected one (or any, when `inode` is '') and at
 *   least `pos` long; `n` bytes from `pos` follow (at most `max`);
 * - `fwlog other <inode> <size> [<inode.1> <size.1>]`: another file or a shorter one; the rotated
 *   file's inode and size when `<path>.1` exists;
 * - `fwlog missing`: no such file (or not readable).
 */
export function readCommand(path: string, inode: string, pos: number, max: number): string {
  const p = shellQuote(path);
  const i = shellQuote(inode);
  return [
    `exec 3< ${p} 2>/dev/null || { echo 'fwlog missing'; exit 0; }`,
    `set -- $(stat -L -c '%i %s' /dev/fd/3)`,
    `if { [ -z ${i} ] || [ "$1" = ${i} ]; } && [ "$2" -ge ${pos} ]; then`,
    `  N=$(( $2 - ${pos} )); [ "$N" -gt ${max} ] && N=${max}`,
    `  echo "fwlog read $1 $2 $N"`,
    `  [ "$N" -gt 0 ] && tail -c +${pos + 1} <&3 | head -c "$N"`,
    `  exit 0`,
    `fi`,
    `echo "fwlog other $1 $2 $(stat -L -c '%i %s' -- ${shellQuote(path + '.1')} 2>/dev/null)"`,
  ].join('\n');
}

type Header =
  | { kind: 'read'; inode: string; size: number; n: number }
  | { kind: 'other'; inode: string; size: number; rotated: { inode: string; size: number } | null }
  | { kind: 'missing' };

function parseHeader(line: string): Header {
  const w = line.trim().split(/\s+/);
  if (w[0] !== 'fwlog') throw new Error(`unexpected answer from the log read: ${line.slice(0, 200)}`);
  const num = (s: string | undefined) => {
    if (!s || !/^\d+$/.test(s)) throw new Error(`unexpected answer from the log read: ${line.slice(0, 200)}`);
    return Number(s);
  };
  if (w[1] === 'missing') return { kind: 'missing' };
  if (w[1] === 'read') return { kind: 'read', inode: String(num(w[2])), size: num(w[3]), n: num(w[4]) };
  if (w[1] === 'other') {
    return { kind: 'other', inode: String(num(w[2])), size: num(w[3]), rotated: w[4] && w[5] ? { inode: String(num(w[4])), size: num(w[5]) } : null };
  }
  throw new Error(`unexpected answer from the log read: ${line.slice(0, 200)}`);
}

/**
 * Bytes of one log, in order, to stored batches: gathers what arrives (SSH packets of a few KiB) into
 * chunks of `chunkBytes`, parses each in the worker pool and hands the batch to `commit` with the
 * offset after its last whole line, one chunk at a time (back-pressure: `push` answers a promise while
 * a chunk is being parsed and stored). The unfinished last line stays in the parse state: `flush()` at
 * the end of a read leaves it for the next read; `finish()` takes it as the file's last line.
 */
export class LogIngest {
  private parts: Buffer[] = [];
  private size = 0;
  private state: LogParseState;

  constructor(
    private readonly pool: LogParsePool,
    private readonly chunkBytes: number,
    startOffset: number,
    private readonly commit: (batch: LogBatch, offset: number) => Promise<void>,
  ) {
    this.state = initialParseState(startOffset);
  }

  /** The offset after the last whole line handed to `commit`. */
  get offset(): number {
    return this.state.offset;
  }

  push(d: Buffer): Promise<void> | void {
    this.parts.push(d);
    this.size += d.length;
    if (this.size >= this.chunkBytes) return this.flush();
  }

  /** Parses and commits what has been gathered (its unfinished last line stays for later). */
  async flush(): Promise<void> {
    if (!this.size) return;
    const chunk = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    const r = await this.pool.parse(chunk, this.state);
    this.state = r.state;
    await this.commit(r.batch, r.state.offset);
  }

  /** End of a file that will not grow: flushes, then its unfinished last line goes to `last` (with the offset past the end). */
  async finish(last: (batch: LogBatch, offset: number) => Promise<void>): Promise<void> {
    await this.flush();
    const r = await this.pool.finish(this.state);
    this.state = r.state;
    await last(r.batch, r.state.offset);
  }
}

/** One proxy's read in one run: what it stored, and where its cursor stands. */
interface ProxyRead {
  p: ServerView;
  target: SshTarget;
  conn: SshConnection;
  src: StoreSource;
  path: string;
  cursor: CursorAt;
  sample: WorkerBadLine[];
  result: WorkerProxyResult;
  budget: number;
  actor: Actor | null;
  signal?: AbortSignal;
}

@Injectable()
export class FirewallWorkerService {
  private readonly log = new Logger('FirewallWorker');
  /** Runs of this instance, one after another (a run started by hand waits for the one going on). */
  private chain: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(
    @InjectRepository(LogCursorEntity) private readonly cursors: Repository<LogCursorEntity>,
    @InjectRepository(FirewallSettingEntity) private readonly settings: Repository<FirewallSettingEntity>,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly store: AccessLogStore,
    private readonly pool: LogParsePool,
    private readonly realtime: RealtimeService,
    private readonly leases: LeaseService,
    private readonly score: FirewallScoreService,
  ) {}

  // ------------------------------------------------------------------------------------------
  // Status and control (RPC; the socket messages of FirewallGateway run these)

  @Rpc('firewall.getWorkerStatus', { role: Role.admin, summary: '{status: 1 on | 0 off (persisted, every instance), last_worker_time: ISO time the last run ended, or null}' })
  async getStatus(): Promise<WorkerStatus> {
    const rows = await this.settings.find({ where: { name: In([WORKER_SETTING_STATUS, WORKER_SETTING_LAST]) } });
    const v = (name: string) => rows.find((r) => r.name === name)?.value;
    return { status: v(WORKER_SETTING_STATUS) === '1' ? 1 : 0, last_worker_time: v(WORKER_SETTING_LAST) || null };
  }

  @Rpc('firewall.setWorkerStatus', {
    role: Role.admin, write: true, input: WorkerStatusArgs,
    summary: '{status: 0|1}: the worker switch (persisted; every instance; off: the scheduled reads stop, a run going on finishes); answers {status, last_worker_time}; emits firewall.worker',
  })
  async setStatus(a: z.output<typeof WorkerStatusArgs>): Promise<WorkerStatus> {
    await this.settings.save({ name: WORKER_SETTING_STATUS, value: String(a.status) });
    const s = await this.getStatus();
    this.emit({ ...s, running: this.pending > 0 });
    return s;
  }

  @Rpc('firewall.runWorker', {
    role: Role.admin, write: true,
    summary: '{}: reads every proxy (type 1, status 1, read_nginx_log_firewall 1) now, whatever the switch; answers [{Id, name, lines, bad_lines, error?, warning?}] per proxy (lines stored and bad lines of this run)',
  })
  runWorker(_a: unknown, ctx?: RpcContext): Promise<WorkerProxyResult[]> {
    return this.run(ctx?.actor ?? null, ctx?.signal);
  }

  @Rpc('firewall.getWorkerProxies', {
    role: Role.admin,
    summary: 'Every proxy (type 1) and where its log read stands: [{Id, name, ip, read, nginx_log, inode, pos, lines, bad_lines, bad_sample: [{offset, reason, text, at}], last_read, last_error}]',
  })
  async getProxies(): Promise<WorkerProxyState[]> {
    const proxies = await this.srv.getList({ type: PROXY_TYPE });
    const rows = proxies.length ? await this.cursors.find({ where: { proxy_id: In(proxies.map((p) => p.Id)) } }) : [];
    const byId = new Map(rows.map((r) => [r.proxy_id, r]));
    return proxies.map((p): WorkerProxyState => {
      const c = byId.get(p.Id);
      return {
        Id: p.Id,
        name: p.name,
        ip: p.ip || p.ip_local,
        read: isRead(p),
        nginx_log: p.nginx_log || DEFAULT_NGINX_LOG,
        inode: c?.inode ?? '',
        pos: c?.pos ?? 0,
        lines: c?.lines ?? 0,
        bad_lines: c?.bad_lines ?? 0,
        bad_sample: parseSample(c?.bad_sample ?? null),
        last_read: c?.last_read ? c.last_read.toISOString() : null,
        last_error: c?.last_error ?? null,
      };
    });
  }

  // ------------------------------------------------------------------------------------------
  // Runs

  /** A run now (after the one going on in this instance, if any). */
  run(actor: Actor | null, signal?: AbortSignal): Promise<WorkerProxyResult[]> {
    this.pending++;
    const r = this.chain.then(() => this.runOnce(actor, signal));
    this.chain = r.catch(() => undefined).finally(() => { this.pending--; });
    return r;
  }

  /**
   * The scheduled run (FirewallWorkerJob, every minute): only where CRON_ENABLED is on, with the switch
   * on, on the instance holding the lease, and not while a run of this instance is going on.
   */
  async scheduledRun(): Promise<WorkerProxyResult[] | null> {
    if (!this.cfg.cronEnabled || this.pending > 0) return null;
    if ((await this.getStatus()).status !== 1) return null;
    if (!(await this.leases.acquire(WORKER_LEASE, WORKER_LEASE_MS))) return null;
    const renew = setInterval(() => void this.leases.acquire(WORKER_LEASE, WORKER_LEASE_MS).catch(() => undefined), WORKER_LEASE_MS / 5);
    try {
      return await this.run(null);
    } finally {
      clearInterval(renew);
    }
  }

  private async runOnce(actor: Actor | null, signal?: AbortSignal): Promise<WorkerProxyResult[]> {
    const before = await this.getStatus();
    this.emit({ ...before, running: true });
    const proxies = (await this.srv.getList({ type: PROXY_TYPE })).filter(isRead);
    const out = await this.ssh.fanOut(proxies, (p) => this.readProxy(p, actor, signal), { signal });
    const results = out.map((r): WorkerProxyResult => (r.ok ? r.value : { Id: r.item.Id, name: r.item.name, lines: 0, bad_lines: 0, error: r.error }));
    const last = new Date().toISOString();
    await this.settings.save({ name: WORKER_SETTING_LAST, value: last });
    this.emit({ status: (await this.getStatus()).status, last_worker_time: last, running: this.pending > 1, results });
    const lines = results.reduce((n, r) => n + r.lines, 0);
    const failed = results.filter((r) => r.error).length;
    if (lines || failed) this.log.log(`read ${proxies.length} proxies: ${lines} lines stored${failed ? `, ${failed} failed` : ''}`);
    await this.score.afterWorkerRun(); // the neural score's automatic bans (never throws)
    return results;
  }

  /** Reads one proxy; never throws: a failure is recorded on its cursor (last_error) and answered. */
  private async readProxy(p: ServerView, actor: Actor | null, signal?: AbortSignal): Promise<WorkerProxyResult> {
    const result: WorkerProxyResult = { Id: p.Id, name: p.name, lines: 0, bad_lines: 0 };
    const path = p.nginx_log || DEFAULT_NGINX_LOG;
    const addr = p.ip || p.ip_local;
    let conn: SshConnection | null = null;
    let warning: string | null = null;
    try {
      const row = await this.cursorRow(p.Id);
      const target = await this.srv.sshTarget(p.Id);
      conn = await this.ssh.connect(target, { actor, signal });
      const r: ProxyRead = {
        p, target, conn, path, result, actor, signal,
        src: { proxy_id: p.Id, proxy_addr: addr, proxy_host: addr },
        cursor: { inode: row.inode, pos: row.pos },
        sample: parseSample(row.bad_sample),
        budget: WORKER_MAX_BYTES_PER_RUN,
      };
      if (row.path !== path) {
        // a new log path (or the first read): start it from its beginning, whatever file it is
        await this.store.commit(r.src, null, r.cursor, { inode: '', pos: 0, path }, 0, null);
        r.cursor = { inode: '', pos: 0 };
      }
      warning = await this.readLog(r);
      await this.cursors.update({ proxy_id: p.Id }, { last_read: new Date(), last_error: warning });
      if (warning) result.warning = warning;
    } catch (err) {
      const message = (err as Error).message || String(err);
      result.error = message;
      await this.cursors.update({ proxy_id: p.Id }, { last_error: message.slice(0, 2000) }).catch(() => undefined);
      if (!(err instanceof CursorMovedError)) this.log.warn(`proxy ${p.name}: ${message}`);
    } finally {
      conn?.close();
    }
    return result;
  }

  /**
   * Reads the live log from the cursor; on a rotation, finishes the rotated file first. Answers a
   * warning when lines could not be read (the rotated file was gone).
   */
  private async readLog(r: ProxyRead): Promise<string | null> {
    let warning: string | null = null;
    for (let step = 0; step < 4 && r.budget > 0; step++) {
      const h = await this.stream(r, r.path, r.cursor.inode, null);
      if (h.kind === 'missing') throw new Error(`${r.path}: no such file on ${r.p.name} (or not readable by ${r.target.username})`);
      if (h.kind === 'read') return warning;
      // Another file (rotated away: new inode), or the same one shorter (truncated: copytruncate).
      const live = { inode: h.inode, pos: 0 };
      const rot = h.rotated;
      const movedAway = rot !== null && rot.inode === r.cursor.inode && rot.inode !== h.inode;
      const copied = rot !== null && h.inode === r.cursor.inode && rot.inode !== h.inode && rot.size >= r.cursor.pos;
      if (r.cursor.inode !== '' && (movedAway || copied)) {
        const done = await this.stream(r, `${r.path}.1`, rot!.inode, live);
        if (done.kind !== 'read') continue; // the rotated file changed meanwhile: look again
        if (r.cursor.inode !== live.inode || r.cursor.pos !== 0) return warning; // budget spent: the next run finishes it
      } else {
        warning = `the log was rotated and ${r.path}.1 is not the file read before (inode ${r.cursor.inode}): lines after byte ${r.cursor.pos} of it were not read`;
        await this.store.commit(r.src, null, r.cursor, { ...live, path: r.path }, 0, null);
        r.cursor = live;
      }
    }
    return warning;
  }

  /**
   * One read command: streams the bytes after the cursor from `file` (expected inode `inode`) through the
   * parser pool into the store, one transaction per chunk. `finishTo`: the file will not grow (a rotated
   * log): when it has been read to its end, its last unterminated line is taken too and the cursor moves
   * to `finishTo` (the new log) in the same transaction.
   */
  private async stream(r: ProxyRead, file: string, inode: string, finishTo: CursorAt | null): Promise<Header> {
    const from = r.cursor.pos;
    const command = readCommand(file, inode, from, r.budget);
    let header: Header | null = null;
    let head: Buffer = Buffer.alloc(0);
    let received = 0;
    // While a rotated copy (copytruncate) is finished the cursor keeps naming the live log's inode.
    const cursorInode = () => (finishTo ? r.cursor.inode : header?.kind === 'read' ? header.inode : inode);
    const ingest = new LogIngest(this.pool, this.store.chunkBytes, from, (batch, pos) => this.commit(r, batch, { inode: cursorInode(), pos, path: r.path }));
    const take = (d: Buffer): Promise<void> | void => {
      if (!header) {
        head = head.length ? Buffer.concat([head, d]) : d;
        const nl = head.indexOf(10);
        if (nl < 0) {
          if (head.length > 4096) throw new Error('unexpected answer from the log read (no header line)');
          return;
        }
        header = parseHeader(head.subarray(0, nl).toString('latin1'));
        d = head.subarray(nl + 1);
        if (!d.length) return;
      }
      received += d.length;
      return ingest.push(d);
    };
    // never throw from the stream's data handler: a rejected promise ends the command with the error
    const onStdout = (d: Buffer): Promise<void> | void => {
      try {
        return take(d);
      } catch (err) {
        return Promise.reject(err as Error);
      }
    };

    const started = Date.now();
    let outcome: 'ok' | 'error' = 'ok';
    let message = '';
    try {
      const res = await this.ssh.runOn(r.conn, command, { onStdout, commandTimeoutMs: WORKER_COMMAND_TIMEOUT_MS, signal: r.signal });
      if (res.code !== 0) throw new Error(`the log read on ${r.p.name} exited with ${res.code ?? res.signal}: ${res.stderr.trim().slice(0, 300)}`);
      const h = header as Header | null; // set by the data handler
      if (!h) throw new Error('no answer from the log read');
      await ingest.flush();
      message = `exit 0, ${received} bytes`;
      if (h.kind === 'read') {
        r.budget -= received;
        // a rotated file read to its end: its last line (no newline after it) counts, and the cursor moves on
        if (finishTo && received === h.n && from + received === h.size) {
          await ingest.finish((batch) => this.commit(r, batch, { ...finishTo, path: r.path }));
        }
      }
      return h;
    } catch (err) {
      outcome = 'error';
      message = (err as Error).message;
      throw err;
    } finally {
      // An operator's run (firewall.runWorker) audits its commands; the scheduled run only reads, so it
      // audits nothing (its runs show on the proxies' cursors: last_read, last_error; docs/firewall.md).
      if (r.actor) await this.ssh.recordCommand(r.target, command, { actor: r.actor }, started, outcome, message).catch(() => undefined);
    }
  }

  /** Stores one batch and moves the cursor (one transaction), keeping the run's counts and the bad-line sample. */
  private async commit(r: ProxyRead, batch: LogBatch, to: CursorTo) {
    if (to.inode === r.cursor.inode && to.pos === r.cursor.pos && !batch.length && !batch.bad) return;
    let sample: WorkerBadLine[] | null = null;
    if (batch.bad) {
      const at = new Date().toISOString();
      r.sample = [...r.sample, ...batch.badSamples.map((b) => ({ ...b, at }))].slice(-LOG_BAD_SAMPLE_MAX);
      sample = r.sample;
    }
    await this.store.commit(r.src, batch, r.cursor, to, batch.bad, sample);
    r.cursor = { inode: to.inode, pos: to.pos };
    r.result.lines += batch.length;
    r.result.bad_lines += batch.bad;
  }

  private async cursorRow(proxyId: number): Promise<LogCursorEntity> {
    const found = await this.cursors.findOne({ where: { proxy_id: proxyId } });
    if (found) return found;
    try {
      await this.cursors.insert({ proxy_id: proxyId, path: '', inode: '', pos: 0, lines: 0, bad_lines: 0, bad_sample: null, last_read: null, last_error: null });
    } catch {
      // another instance made it first
    }
    return this.cursors.findOneOrFail({ where: { proxy_id: proxyId } });
  }

  // ------------------------------------------------------------------------------------------
  // Retention

  /** Removes entries and counters older than FIREWALL_LOG_RETENTION_HOURS (in batches). */
  removeExpired(signal?: AbortSignal) {
    const before = Math.floor(Date.now() / 1000) - this.cfg.firewallLogRetentionHours * 3600;
    return this.store.removeBefore(before, { signal });
  }

  /** The retention job (FirewallRetentionJob): where CRON_ENABLED is on, on one instance at a time. */
  async scheduledRetention() {
    if (!this.cfg.cronEnabled) return null;
    if (!(await this.leases.acquire(RETENTION_LEASE, RETENTION_LEASE_MS))) return null;
    const r = await this.removeExpired();
    if (r.entries || r.counters) this.log.log(`retention: ${r.entries} entries and ${r.counters} counters removed`);
    return r;
  }

  private emit(e: WorkerStatusEvent) {
    this.realtime.emit('firewall.worker', e, Role.admin);
  }
}

const isRead = (p: ServerView) => p.type === PROXY_TYPE && p.status === 1 && p.read_nginx_log_firewall === 1;

function parseSample(text: string | null): WorkerBadLine[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as WorkerBadLine[]) : [];
  } catch {
    return [];
  }
}
