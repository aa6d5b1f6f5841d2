import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createReadStream, existsSync, rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { ClientChannel } from 'ssh2';
import type { Socket } from 'socket.io';
import { In, LessThan, type Repository } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Paged } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import {
  RecordingIdArgs, RecordingListArgs, TERMINAL_DEFAULT_COLS, TERMINAL_MSG, TERMINAL_ROWS,
  type MassWriteArgs, type MassWriteResult, type RecordingRow, type TerminalConnectArgs, type TerminalResizeArgs,
  type TerminalState, type TerminalStatus, type TerminalWriteArgs,
} from '../../contracts/terminal.js';
import { targetLabel } from '../../core/audit/audit-target.js';
import { AuditService } from '../../core/audit/audit.service.js';
import type { Actor } from '../../core/auth/actor.js';
import { AppError, notFound, tooMany } from '../../core/errors.js';
import { LeaseService } from '../../core/lease.service.js';
import { CHANNEL_ROLE_MESSAGE, LiveChannels, type LiveChannel } from '../../core/realtime/live-channels.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SshService, type SshConnection } from '../../core/ssh/ssh.service.js';
import { SrvService } from '../srv/srv.service.js';
import { CastRecorder } from './cast-recorder.js';
import { RecordingEntity } from './recording.entity.js';

/** The socket's send buffer counts as full past these (engine.io packets waiting, bytes in the WebSocket). */
const SOCKET_HIGH_PACKETS = 8;
const SOCKET_HIGH_BYTES = 256 * 1024;
/** While paused, how often the socket's buffer is looked at again. */
const RESUME_POLL_MS = 20;
const PRUNE_LEASE = 'terminal.recordings.prune';
/** A shell's output gathered for one send; past it the SSH stream is paused until the send. */
const FRAME_MAX = 32 * 1024;

interface Shell {
  key: number;
  name: string;
  socket: Socket;
  /** The stream to the socket (LiveChannels): ends the shell when the socket's role no longer allows terminals. */
  channel?: LiveChannel;
  actor: Actor;
  status: TerminalState;
  message: string;
  cols: number;
  rows: number;
  conn?: SshConnection;
  stream?: ClientChannel;
  recorder?: CastRecorder;
  recording: number | null;
  decoder: StringDecoder;
  idle?: ReturnType<typeof setTimeout>;
  /** Output gathered since the last send (one event per loop turn, not one per SSH packet). */
  pending: string[];
  pendingLen: number;
  flushQueued: boolean;
  /** Paused because `pending` is full (resumed by the next send). */
  held: boolean;
  /** Set once the shell is being closed (a connect still under way gives up when it sees this). */
  closing: boolean;
}

/** Per socket: its shells by key, and the pause of their output while the socket's buffer is full. */
interface SocketShells {
  shells: Map<number, Shell>;
  paused: boolean;
  poll?: ReturnType<typeof setInterval>;
}

/**
 * Interactive SSH shells for the browser's terminals (000 §2, §7 node_control.*; docs/terminals.md).
 *
 * Each socket holds its own shells, keyed by server Id: a key another socket opened is refused. A shell
 * is an ssh2 `shell` with a pty (xterm-256color) through the one SshService (host keys pinned, process-
 * wide connection bound), with the credentials opened from the SecretBox by SrvService.sshTarget.
 * Limits: shells per user and in all on this instance, an idle time-out (no input), clamped sizes,
 * and output paused while the socket's send buffer (or the recording's file buffer) is full. Closing
 * the socket (tab closed, sign-out, session expired: SocketSessions disconnects it) closes its shells.
 * Every session is recorded as asciicast v2 under DATA_DIR/recordings and indexed in term_recordings;
 * opening one is audited with a link to its recording; each mass-terminal line is audited per host.
 */
@Injectable()
export class TerminalService implements OnApplicationShutdown {
  private readonly log = new Logger('Terminal');
  private readonly sockets = new Map<Socket, SocketShells>();
  private readonly dir: string;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    @InjectRepository(RecordingEntity) private readonly recordings: Repository<RecordingEntity>,
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly audit: AuditService,
    private readonly leases: LeaseService,
    private readonly channels: LiveChannels,
  ) {
    this.dir = join(cfg.dataDir, 'recordings');
  }

  async onApplicationShutdown() {
    await Promise.all([...this.sockets.values()].flatMap((s) => [...s.shells.values()]).map((sh) => this.close(sh, 'Console stopped')));
  }

  // ---------------------------------------------------------------------------------------------
  // Counting

  private allShells(): Shell[] {
    return [...this.sockets.values()].flatMap((s) => [...s.shells.values()]);
  }

  /** Shells open or opening on this instance (for a user, or in all). */
  count(uid?: number): number {
    return this.allShells().filter((s) => uid === undefined || s.actor.uid === uid).length;
  }

  private of(socket: Socket): SocketShells {
    let s = this.sockets.get(socket);
    if (!s) {
      s = { shells: new Map(), paused: false };
      this.sockets.set(socket, s);
      socket.once('disconnect', () => void this.closeSocket(socket, TERMINAL_MSG.sessionEnded));
    }
    return s;
  }

  private shell(socket: Socket, key: number): Shell {
    const sh = this.sockets.get(socket)?.shells.get(key);
    if (!sh || sh.closing) throw new AppError(422, TERMINAL_MSG.notOpened(key), 'rules');
    return sh;
  }

  private statusOf(sh: Shell): TerminalStatus {
    return { key: sh.key, name: sh.name, status: sh.status, message: sh.message, recording: sh.recording, cols: sh.cols, rows: sh.rows };
  }

  private setStatus(sh: Shell, status: TerminalState, message = '') {
    sh.status = status;
    sh.message = message;
    sh.channel?.emit('node_control.status', this.statusOf(sh));
  }

  /** The shell's last status (closed or error): sent even when its channel was ended by a role change; then the channel ends. */
  private endStatus(sh: Shell, status: TerminalState, message: string) {
    sh.status = status;
    sh.message = message;
    sh.channel?.emitEnd('node_control.status', this.statusOf(sh));
    sh.channel?.end();
  }

  // ---------------------------------------------------------------------------------------------
  // Socket messages

  /** The shells of this socket with their live status (`node_control.get_status`). */
  getStatus(socket: Socket): TerminalStatus[] {
    return [...(this.sockets.get(socket)?.shells.values() ?? [])].map((sh) => this.statusOf(sh));
  }

  /**
   * Opens a shell on server Id for this socket (`node_control.connect`); answers once it is open. A key
   * this socket already has open answers its status. Over a limit: 429 with the limit in the message.
   */
  async connect(socket: Socket, actor: Actor, a: TerminalConnectArgs): Promise<TerminalStatus> {
    if (!socket.connected) throw new AppError(409, TERMINAL_MSG.sessionEnded, 'error'); // a message that outlived its socket
    const mine = this.of(socket);
    const existing = mine.shells.get(a.Id);
    if (existing && !existing.closing) return this.statusOf(existing);
    if (this.count(actor.uid) >= this.cfg.terminal.maxPerUser) throw tooMany(TERMINAL_MSG.perUser(this.cfg.terminal.maxPerUser));
    if (this.count() >= this.cfg.terminal.maxTotal) throw tooMany(TERMINAL_MSG.total(this.cfg.terminal.maxTotal));

    const sh: Shell = {
      key: a.Id, name: `#${a.Id}`, socket, actor, status: 'connecting', message: '',
      cols: a.cols ?? TERMINAL_DEFAULT_COLS, rows: a.rows ?? TERMINAL_ROWS,
      recording: null, decoder: new StringDecoder('utf8'), closing: false,
      pending: [], pendingLen: 0, flushQueued: false, held: false,
    };
    sh.channel = this.channels.open(socket, {
      kind: 'terminal', minRole: Role.admin,
      onEnd: (why) => void this.close(sh, why === 'role' ? CHANNEL_ROLE_MESSAGE : TERMINAL_MSG.sessionEnded),
    });
    mine.shells.set(a.Id, sh); // counts against the limits while it connects
    const started = Date.now();
    try {
      const target = await this.srv.sshTarget(a.Id);
      sh.name = target.label ?? sh.name;
      this.setStatus(sh, 'connecting');
      sh.conn = await this.ssh.connect(target, { actor });
      sh.conn.client.setNoDelay(true); // keystrokes go out at once (no Nagle delay on the echo)
      if (sh.closing || !socket.connected) throw new Error(TERMINAL_MSG.sessionEnded);
      sh.stream = await new Promise<ClientChannel>((res, rej) =>
        sh.conn!.client.shell({ term: 'xterm-256color', cols: sh.cols, rows: sh.rows }, (err, ch) => (err ? rej(err) : res(ch))),
      );
      if (sh.closing || !socket.connected) throw new Error(TERMINAL_MSG.sessionEnded);
      await this.startRecording(sh);
      this.wire(sh);
      this.setStatus(sh, 'open');
      await this.audit.record({
        actor, method: 'node_control.connect', started, outcome: 'ok',
        target: targetLabel('server', sh.name, sh.key),
        args: { Id: sh.key, server: sh.name, host: target.host, port: target.port, recording: sh.recording },
      });
      return this.statusOf(sh);
    } catch (err) {
      const message = (err as Error).message;
      await this.audit.record({ actor, method: 'node_control.connect', started, outcome: 'error', message, target: targetLabel('server', sh.name, sh.key), args: { Id: sh.key } });
      sh.stream?.close();
      sh.conn?.close();
      if (mine.shells.get(a.Id) === sh) mine.shells.delete(a.Id);
      sh.closing = true;
      this.endStatus(sh, 'error', message);
      await this.finishRecording(sh, message);
      throw err;
    }
  }

  /** Keystrokes to a shell this socket opened (`node_control.write`). */
  write(socket: Socket, a: TerminalWriteArgs): { key: number } {
    const sh = this.shell(socket, a.key);
    if (sh.status !== 'open' || !sh.stream) throw new AppError(422, TERMINAL_MSG.notOpened(a.key), 'rules');
    sh.stream.write(a.str);
    if (this.cfg.terminal.recordInput) sh.recorder?.input(a.str);
    this.touch(sh);
    return { key: a.key };
  }

  /** The browser's terminal size, clamped (`node_control.resize`). ssh2 takes rows first. */
  resize(socket: Socket, a: TerminalResizeArgs): TerminalStatus {
    const sh = this.shell(socket, a.key);
    if (sh.cols !== a.cols || sh.rows !== a.rows) {
      sh.cols = a.cols;
      sh.rows = a.rows;
      sh.stream?.setWindow(a.rows, a.cols, 0, 0);
      sh.recorder?.resize(a.cols, a.rows);
    }
    return this.statusOf(sh);
  }

  /** Closes one shell of this socket (`node_control.unsubscribe`). */
  async unsubscribe(socket: Socket, key: number): Promise<{ key: number; closed: boolean }> {
    const sh = this.shell(socket, key);
    await this.close(sh, TERMINAL_MSG.closedByUser);
    return { key, closed: true };
  }

  /**
   * The mass terminal: one line (Enter appended) to each listed shell of this socket, at once; each
   * line sent is audited once per host (who, the server, the line). Keys not open here are refused
   * one by one (the others are still written).
   */
  async massWrite(socket: Socket, actor: Actor, a: MassWriteArgs): Promise<MassWriteResult> {
    const keys = [...new Set(a.keys)];
    const out: MassWriteResult = { written: [], refused: [] };
    const sent: Shell[] = [];
    for (const key of keys) {
      const sh = this.sockets.get(socket)?.shells.get(key);
      if (!sh || sh.closing || sh.status !== 'open' || !sh.stream) {
        out.refused.push({ key, message: TERMINAL_MSG.notOpened(key) });
        continue;
      }
      sh.stream.write(a.line + '\r');
      if (this.cfg.terminal.recordInput) sh.recorder?.input(a.line + '\r');
      this.touch(sh);
      out.written.push(key);
      sent.push(sh);
    }
    const started = Date.now();
    await Promise.all(sent.map((sh) => this.audit.record({
      actor, method: 'node_control.mass_write', started, outcome: 'ok',
      target: targetLabel('server', sh.name, sh.key),
      args: { Id: sh.key, server: sh.name, line: a.line, recording: sh.recording },
    })));
    return out;
  }

  /** Closes every shell of a socket (disconnect: tab closed, sign-out, expiry). */
  async closeSocket(socket: Socket, reason: string) {
    const mine = this.sockets.get(socket);
    if (!mine) return;
    await Promise.all([...mine.shells.values()].map((sh) => this.close(sh, reason)));
    clearInterval(mine.poll);
    this.sockets.delete(socket);
  }

  // ---------------------------------------------------------------------------------------------
  // One shell

  private wire(sh: Shell) {
    const stream = sh.stream!;
    const onData = (d: Buffer) => {
      const data = sh.decoder.write(d);
      if (!data) return;
      sh.pending.push(data);
      sh.pendingLen += data.length;
      if (sh.pendingLen >= FRAME_MAX && !sh.held) {
        sh.held = true;
        stream.pause();
      }
      if (!sh.flushQueued) {
        sh.flushQueued = true;
        setImmediate(() => this.flush(sh));
      }
    };
    stream.on('data', onData);
    stream.stderr.on('data', onData);
    stream.on('close', () => void this.close(sh, TERMINAL_MSG.ended));
    stream.on('error', (err: Error) => this.log.warn(`shell ${sh.name}: ${err.message}`));
    this.touch(sh);
  }

  /**
   * Sends what a shell printed since the last turn of the event loop as one `node_control.data` (and
   * one recording event): no added delay for an echo, far fewer messages for a flood. A shell whose
   * gathered output reached FRAME_MAX was paused and goes on here (unless the socket is congested).
   */
  private flush(sh: Shell) {
    sh.flushQueued = false;
    if (!sh.pendingLen) return;
    const data = sh.pending.length === 1 ? sh.pending[0] : sh.pending.join('');
    sh.pending = [];
    sh.pendingLen = 0;
    sh.recorder?.output(data);
    sh.channel?.emit('node_control.data', { key: sh.key, data });
    if (sh.held) {
      sh.held = false;
      if (!this.sockets.get(sh.socket)?.paused) sh.stream?.resume();
    }
    this.checkPressure(sh.socket);
  }

  /** Input arrived: the idle time-out starts again. */
  private touch(sh: Shell) {
    clearTimeout(sh.idle);
    const ms = this.cfg.terminal.idleMs;
    sh.idle = setTimeout(() => void this.close(sh, TERMINAL_MSG.idle(ms)), ms);
    sh.idle.unref();
  }

  private async close(sh: Shell, reason: string) {
    if (sh.closing) return;
    sh.closing = true;
    clearTimeout(sh.idle);
    const rest = sh.decoder.end();
    if (rest) {
      sh.pending.push(rest);
      sh.pendingLen += rest.length;
    }
    this.flush(sh);
    sh.stream?.close();
    sh.conn?.close();
    const mine = this.sockets.get(sh.socket);
    if (mine?.shells.get(sh.key) === sh) mine.shells.delete(sh.key);
    if (sh.status !== 'error') this.endStatus(sh, 'closed', reason);
    else sh.channel?.end();
    await this.finishRecording(sh, reason);
  }

  /**
   * Backpressure: when the socket's send buffer (engine.io packets waiting plus the WebSocket's own
   * buffered bytes) or a recording's file buffer is full, every shell of the socket is paused; a short
   * poll resumes them once both have drained. The SSH window then holds the remote side back.
   */
  private checkPressure(socket: Socket) {
    const mine = this.sockets.get(socket);
    if (!mine || mine.paused || !this.congested(socket, mine)) return;
    mine.paused = true;
    for (const sh of mine.shells.values()) sh.stream?.pause();
    mine.poll = setInterval(() => {
      if (socket.connected && this.congested(socket, mine)) return;
      clearInterval(mine.poll);
      mine.paused = false;
      for (const sh of mine.shells.values()) if (!sh.held) sh.stream?.resume();
    }, RESUME_POLL_MS);
    mine.poll.unref();
  }

  private congested(socket: Socket, mine: SocketShells): boolean {
    const conn = socket.conn as unknown as { writeBuffer?: unknown[]; transport?: { socket?: { bufferedAmount?: number } } };
    const packets = conn.writeBuffer?.length ?? 0;
    const bytes = conn.transport?.socket?.bufferedAmount ?? 0;
    if (packets > SOCKET_HIGH_PACKETS || bytes > SOCKET_HIGH_BYTES) return true;
    for (const sh of mine.shells.values()) if (sh.recorder?.congested) return true;
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Recording

  private async startRecording(sh: Shell) {
    const now = new Date();
    const month = now.toISOString().slice(0, 7);
    const row = await this.recordings.save(this.recordings.create({
      server_id: sh.key, server_name: sh.name.slice(0, 190), uid: sh.actor.uid, login: (sh.actor.login ?? '').slice(0, 64),
      started_at: now, ended_at: null, file: '', bytes: 0, end_reason: null, truncated: 0,
    }));
    const file = `${month}/${row.Id}.cast`;
    await this.recordings.update({ Id: row.Id }, { file });
    sh.recording = row.Id;
    sh.recorder = new CastRecorder(join(this.dir, file), {
      version: 2, width: sh.cols, height: sh.rows, timestamp: Math.floor(now.getTime() / 1000),
      title: `${sh.name} (${sh.actor.login})`, env: { TERM: 'xterm-256color' },
    }, this.cfg.terminal.recordingMaxBytes);
  }

  private async finishRecording(sh: Shell, reason: string) {
    if (!sh.recorder || sh.recording === null) return;
    const rec = sh.recorder;
    sh.recorder = undefined;
    const bytes = await rec.close();
    if (rec.error) this.log.warn(`recording ${sh.recording} of ${sh.name}: ${rec.error.message}`);
    await this.recordings
      .update({ Id: sh.recording }, { ended_at: new Date(), bytes, end_reason: reason.slice(0, 190), truncated: rec.truncated ? 1 : 0 })
      .catch((err: Error) => this.log.warn(`recording ${sh.recording}: ${err.message}`));
  }

  private toRow(r: RecordingEntity): RecordingRow {
    return {
      Id: r.Id, server_id: r.server_id, server_name: r.server_name, uid: r.uid, login: r.login,
      started_at: r.started_at.toISOString(), ended_at: r.ended_at ? r.ended_at.toISOString() : null,
      bytes: r.bytes, end_reason: r.end_reason, truncated: r.truncated,
    };
  }

  @Rpc('terminal.recordings', { role: Role.admin, input: RecordingListArgs, summary: '{server_id?, uid?, page, limit}: terminal session recordings, newest first: {list: [{Id, server_id, server_name, uid, login, started_at, ended_at, bytes, end_reason, truncated}], count, page, limit}' })
  async list(a: z.output<typeof RecordingListArgs>): Promise<Paged<RecordingRow>> {
    const where: Record<string, number> = {};
    if (a.server_id) where.server_id = a.server_id;
    if (a.uid) where.uid = a.uid;
    const [rows, count] = await this.recordings.findAndCount({ where, order: { Id: 'DESC' }, skip: (a.page - 1) * a.limit, take: a.limit });
    return { list: rows.map((r) => this.toRow(r)), count, page: a.page, limit: a.limit };
  }

  @Rpc('terminal.recording', { role: Role.admin, input: RecordingIdArgs, summary: '{Id}: one recording\'s index row (the cast itself: GET /api/terminal/recordings/:Id/cast)' })
  async get(a: z.output<typeof RecordingIdArgs>): Promise<RecordingRow> {
    return this.toRow(await this.entity(a.Id));
  }

  private async entity(Id: number): Promise<RecordingEntity> {
    const r = await this.recordings.findOne({ where: { Id } });
    if (!r) throw notFound(`Recording ${Id} not found`);
    return r;
  }

  /** The cast file of a recording, as a stream (GET /api/terminal/recordings/:Id/cast). 404 when the row or file is gone. */
  async castStream(Id: number) {
    const r = await this.entity(Id);
    const path = resolve(this.dir, r.file);
    if (!r.file || !path.startsWith(resolve(this.dir) + sep) || !existsSync(path)) throw notFound(`The file of recording ${Id} is gone`);
    return { row: this.toRow(r), stream: createReadStream(path) };
  }

  /** Removes recordings (rows and files) started more than `days` ago (0: keeps all). Answers how many. */
  async prune(days = this.cfg.terminal.recordingRetentionDays, now = Date.now()): Promise<number> {
    if (days <= 0) return 0;
    const before = new Date(now - days * 86_400_000);
    let removed = 0;
    for (let round = 0; round < 1000; round++) {
      const rows = await this.recordings.find({ where: { started_at: LessThan(before) }, order: { Id: 'ASC' }, take: 500 });
      const done = rows.filter((r) => r.ended_at !== null);
      if (!done.length) break;
      for (const r of done) if (r.file) rmSync(resolve(this.dir, r.file), { force: true });
      await this.recordings.delete({ Id: In(done.map((r) => r.Id)) });
      removed += done.length;
      if (rows.length < 500) break;
    }
    return removed;
  }

  /** The retention job's call: one instance at a time (the lease), only where scheduled work runs. */
  async scheduledPrune(): Promise<number | null> {
    if (!this.cfg.cronEnabled) return null;
    if (!(await this.leases.acquire(PRUNE_LEASE, 30 * 60_000))) return null;
    const n = await this.prune();
    if (n) this.log.log(`removed ${n} recording(s) older than ${this.cfg.terminal.recordingRetentionDays} days`);
    return n;
  }
}
