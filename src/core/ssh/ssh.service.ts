import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Client, type ClientChannel } from 'ssh2';
import { In, type Repository } from 'typeorm';
import type { SshFailure } from '../../contracts/srv.js';
import { AuditService, type AuditInput } from '../audit/audit.service.js';
import { AppError, conflict, notFound } from '../errors.js';
import { SshHostKeyEntity } from './host-key.entity.js';
import { fingerprintOf, hostKeyAlgorithms, keyTypeOf } from './host-keys.js';

/** Where and how to log in. Secrets are plain here: callers open them from the SecretBox just before use. */
export interface SshTarget {
  host: string;
  port: number;
  username: string;
  password?: string | null;
  privateKey?: string | null;
  passphrase?: string | null;
  /** A name for messages and audit entries (the server's name). */
  label?: string;
}

export interface SshCallOptions {
  /** Who asked: recorded with every command. null for scheduled work. */
  actor?: AuditInput['actor'];
  /** Bound on TCP connect + handshake + authentication. */
  connectTimeoutMs?: number;
  /** Bound on a command's run. */
  commandTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Written to the command's standard input, which is then closed (e.g. an `ipset restore` script); or
   * a function handed the channel, which writes and ends it later (after reading some of the output).
   */
  stdin?: string | Buffer | ((channel: { write(data: string | Buffer): boolean; end(data?: string | Buffer): void }) => void);
  /**
   * Streams standard output instead of collecting it (no 1 MB cap; `stdout` is then empty): each chunk
   * is handed over in order, and the channel is paused while the returned promise is pending, so a
   * slow consumer (a parser, a database write) holds the remote side back instead of buffering.
   */
  onStdout?: (chunk: Buffer) => void | Promise<void>;
}

export interface SshConnection {
  client: Client;
  host: string;
  port: number;
  fingerprint: string;
  /** True when this connect pinned the host key (first successful connect). */
  pinnedNow: boolean;
  connectMs: number;
  close(): void;
}

export interface ExecResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface HostKeyInfo {
  host: string;
  port: number;
  fingerprint: string;
  key_type: string;
  pending_fingerprint: string | null;
}

export type FanOutResult<T, R> = { item: T; ok: true; value: R } | { item: T; ok: false; error: string; reason: SshFailure };

export const SSH_CONNECT_TIMEOUT_MS = 10_000;
export const SSH_COMMAND_TIMEOUT_MS = 30_000;
/** Connections open at once in this process, whatever asks (fan-out, terminals, tests). */
export const SSH_MAX_CONNECTIONS = 64;
export const SSH_FANOUT_CONCURRENCY = 10;
const MAX_OUTPUT = 1024 * 1024;

/** A failed SSH attempt: 502 'http' (504 on time-out; 422 'rules' for missing credentials, `config`) with the reason kept for the UI in fields.reason. */
export class SshError extends AppError {
  constructor(readonly reason: SshFailure, message: string) {
    super(reason === 'timeout' ? 504 : reason === 'config' ? 422 : 502, message, reason === 'config' ? 'rules' : 'http', { reason });
  }
}

/** Counting semaphore: bounds connections process-wide and fan-outs per call. */
export class Semaphore {
  private queue: Array<() => void> = [];
  constructor(private free: number) {}
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw new SshError('error', 'Cancelled');
    if (this.free > 0) {
      this.free--;
    } else {
      await new Promise<void>((resolve, reject) => {
        const go = () => { signal?.removeEventListener('abort', onAbort); resolve(); };
        const onAbort = () => { this.queue = this.queue.filter((q) => q !== go); reject(new SshError('error', 'Cancelled')); };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.queue.push(go);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next();
      else this.free++;
    };
  }
}

const where = (t: Pick<SshTarget, 'host' | 'port'>) => (t.host.includes(':') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`);

/**
 * The one SSH client of the console (ssh2): bounded time-outs, a process-wide connection bound and a
 * bounded fan-out, host keys pinned on first successful connect and refused with a clear message when
 * they change (until an admin accepts the new key), and every command audited. Servers, terminals,
 * deploy and log viewing all go through it.
 */
@Injectable()
export class SshService implements OnApplicationShutdown {
  private readonly log = new Logger('Ssh');
  private readonly slots = new Semaphore(SSH_MAX_CONNECTIONS);
  private readonly live = new Set<Client>();

  constructor(
    @InjectRepository(SshHostKeyEntity) private readonly keys: Repository<SshHostKeyEntity>,
    private readonly audit: AuditService,
  ) {}

  onApplicationShutdown() {
    for (const c of this.live) c.end();
    this.live.clear();
  }

  /** Opens an authenticated connection (the caller closes it). Throws SshError with the reason. */
  async connect(target: SshTarget, opts: SshCallOptions = {}): Promise<SshConnection> {
    this.checkTarget(target);
    const release = await this.slots.acquire(opts.signal);
    const started = Date.now();
    const timeoutMs = opts.connectTimeoutMs ?? SSH_CONNECT_TIMEOUT_MS;
    const pin = await this.keys.findOne({ where: { host: target.host, port: target.port } });
    const client = new Client();
    let offered: Buffer | null = null;
    let mismatch = false;
    let timedOut = false;

    try {
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const done = (err?: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          opts.signal?.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve();
        };
        // ssh2's readyTimeout covers the handshake; this also bounds a TCP connect that never answers.
        const timer = setTimeout(() => { timedOut = true; client.end(); client.destroy(); done(new Error('timeout')); }, timeoutMs + 250);
        const onAbort = () => { client.destroy(); done(new SshError('error', 'Cancelled')); };
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        client.once('ready', () => done());
        client.on('error', (err) => done(err));
        client.once('close', () => done(new Error('Connection closed before it was ready')));
        try {
          client.connect({
            host: target.host,
            port: target.port,
            username: target.username,
            password: target.password || undefined,
            privateKey: target.privateKey || undefined,
            passphrase: target.passphrase || undefined,
            readyTimeout: timeoutMs,
            keepaliveInterval: 15_000,
            keepaliveCountMax: 3,
            tryKeyboard: false,
            algorithms: { serverHostKey: hostKeyAlgorithms(pin?.key_type) as never },
            hostVerifier: (key: Buffer) => {
              offered = key;
              if (!pin) return true;
              if (fingerprintOf(key) === pin.fingerprint) return true;
              mismatch = true;
              return false;
            },
          });
        } catch (err) {
          done(err); // e.g. a private key ssh2 cannot parse
        }
      });
    } catch (err) {
      client.destroy();
      release();
      const offeredKey = offered as Buffer | null;
      if (mismatch && pin && offeredKey) {
        await this.recordPending(pin, offeredKey);
        throw new SshError(
          'hostkey',
          `Host key of ${where(target)} has changed: pinned ${pin.fingerprint}, now offered ${fingerprintOf(offeredKey)}. ` +
            'Connection refused until an admin accepts the new key.',
        );
      }
      throw this.classify(err, target, timeoutMs, timedOut);
    }

    this.live.add(client);
    // Errors after ready (keepalive time-out, reset) end the connection; they must never go unhandled.
    client.on('error', (err) => this.log.warn(`ssh ${where(target)}: ${err.message}`));
    client.once('close', () => { this.live.delete(client); release(); });
    const key = offered as unknown as Buffer;
    let pinnedNow = false;
    if (!pin) {
      try {
        pinnedNow = await this.pin(target, key);
      } catch (err) {
        client.end();
        throw err;
      }
    }
    return {
      client,
      host: target.host,
      port: target.port,
      fingerprint: fingerprintOf(key),
      pinnedNow,
      connectMs: Date.now() - started,
      close: () => client.end(),
    };
  }

  /** Runs one command on an open connection, bounded in time and output. Not audited: use exec(). */
  runOn(conn: SshConnection, command: string, opts: SshCallOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    const timeoutMs = opts.commandTimeoutMs ?? SSH_COMMAND_TIMEOUT_MS;
    return new Promise<ExecResult>((resolve, reject) => {
      let settled = false;
      let stream: ClientChannel | null = null;
      const finish = (err: Error | null, r?: ExecResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(r!);
      };
      const timer = setTimeout(() => {
        stream?.close();
        finish(new SshError('timeout', `Command on ${where(conn)} timed out after ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const onAbort = () => { stream?.close(); finish(new SshError('error', 'Cancelled')); };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      conn.client.exec(command, (err, ch) => {
        if (err) return finish(new SshError('error', `Could not run the command on ${where(conn)}: ${err.message}`));
        stream = ch;
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let outLen = 0;
        let errLen = 0;
        let pending: Promise<void> = Promise.resolve();
        const onStdout = opts.onStdout;
        if (onStdout) {
          ch.on('data', (d: Buffer) => {
            const r = onStdout(d);
            if (r && typeof r.then === 'function') {
              ch.pause();
              pending = pending.then(() => r).then(() => { ch.resume(); }, (err: Error) => { ch.close(); finish(err); });
            }
          });
        } else ch.on('data', (d: Buffer) => { if (outLen < MAX_OUTPUT) { out.push(d); outLen += d.length; } });
        ch.stderr.on('data', (d: Buffer) => { if (errLen < MAX_OUTPUT) { errOut.push(d); errLen += d.length; } });
        if (typeof opts.stdin === 'function') opts.stdin(ch);
        else if (opts.stdin !== undefined) ch.end(opts.stdin);
        ch.on('close', (code: number | null, signal?: string) => void pending.then(() =>
          finish(null, {
            code: code ?? null,
            signal: signal ?? null,
            stdout: Buffer.concat(out).subarray(0, MAX_OUTPUT).toString('utf8'),
            stderr: Buffer.concat(errOut).subarray(0, MAX_OUTPUT).toString('utf8'),
            ms: Date.now() - started,
          }),
        ));
      });
    });
  }

  /** Connects, runs one command, disconnects; the command is audited with its outcome. */
  async exec(target: SshTarget, command: string, opts: SshCallOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    let conn: SshConnection | null = null;
    try {
      conn = await this.connect(target, opts);
      const r = await this.runOn(conn, command, opts);
      await this.recordCommand(target, command, opts, started, 'ok', `exit ${r.code ?? r.signal}`);
      return r;
    } catch (err) {
      await this.recordCommand(target, command, opts, started, 'error', (err as Error).message);
      throw err;
    } finally {
      conn?.close();
    }
  }

  /**
   * The connection test: connect, run `uname -a`, disconnect; audited. Answers the remote hostname,
   * the whole uname line, total latency and the connect part, and the host key's fingerprint.
   */
  async test(target: SshTarget, opts: SshCallOptions = {}) {
    const started = Date.now();
    const command = 'uname -a';
    let conn: SshConnection | null = null;
    try {
      conn = await this.connect(target, opts);
      const r = await this.runOn(conn, command, opts);
      if (r.code !== 0) throw new SshError('error', `'${command}' on ${where(target)} exited with ${r.code ?? r.signal}: ${r.stderr.trim().slice(0, 200)}`);
      const uname = r.stdout.trim();
      const result = {
        hostname: uname.split(/\s+/)[1] ?? '',
        uname,
        latency_ms: Date.now() - started,
        connect_ms: conn.connectMs,
        fingerprint: conn.fingerprint,
        pinned_now: conn.pinnedNow,
      };
      await this.recordCommand(target, command, opts, started, 'ok', `exit 0${conn.pinnedNow ? `, host key pinned ${conn.fingerprint}` : ''}`);
      return result;
    } catch (err) {
      await this.recordCommand(target, command, opts, started, 'error', (err as Error).message);
      throw err;
    } finally {
      conn?.close();
    }
  }

  /** Audits a command run on a node (terminals and other callers holding a connection use this too). */
  recordCommand(target: Pick<SshTarget, 'host' | 'port' | 'username' | 'label'>, command: string, opts: Pick<SshCallOptions, 'actor'>, started: number, outcome: 'ok' | 'error', message?: string) {
    return this.audit.record({
      actor: opts.actor ?? null,
      method: 'ssh.exec',
      args: { host: target.host, port: target.port, user: target.username, server: target.label, command: command.slice(0, 500) },
      outcome,
      message: message ?? null,
      started,
    });
  }

  /**
   * Runs fn over items with at most `concurrency` at once (each SSH connection also takes a slot of
   * the process-wide bound). Never throws: one result per item, in order.
   */
  async fanOut<T, R>(items: T[], fn: (item: T, i: number) => Promise<R>, opts: { concurrency?: number; signal?: AbortSignal } = {}): Promise<FanOutResult<T, R>[]> {
    const out: FanOutResult<T, R>[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const i = next++;
        const item = items[i];
        if (opts.signal?.aborted) { out[i] = { item, ok: false, error: 'Cancelled', reason: 'error' }; continue; }
        try {
          out[i] = { item, ok: true, value: await fn(item, i) };
        } catch (err) {
          out[i] = { item, ok: false, error: (err as Error).message, reason: err instanceof SshError ? err.reason : 'error' };
        }
      }
    };
    const n = Math.max(1, Math.min(opts.concurrency ?? SSH_FANOUT_CONCURRENCY, items.length));
    await Promise.all(Array.from({ length: n }, worker));
    return out;
  }

  /** The same command on many targets, bounded; each command audited. */
  execMany(targets: SshTarget[], command: string, opts: SshCallOptions & { concurrency?: number } = {}) {
    return this.fanOut(targets, (t) => this.exec(t, command, opts), opts);
  }

  // ------------------------------------------------------------------------------------------
  // Host keys

  async hostKeys(pairs: Array<{ host: string; port: number }>): Promise<Map<string, HostKeyInfo>> {
    const hosts = [...new Set(pairs.map((p) => p.host).filter(Boolean))];
    const out = new Map<string, HostKeyInfo>();
    for (let i = 0; i < hosts.length; i += 500) {
      const rows = await this.keys.find({ where: { host: In(hosts.slice(i, i + 500)) } });
      for (const r of rows) out.set(`${r.host}|${r.port}`, { host: r.host, port: r.port, fingerprint: r.fingerprint, key_type: r.key_type, pending_fingerprint: r.pending_fingerprint });
    }
    return out;
  }

  async hostKey(host: string, port: number): Promise<HostKeyInfo | null> {
    return (await this.hostKeys([{ host, port }])).get(`${host}|${port}`) ?? null;
  }

  /**
   * Pins the refused key offered by host:port. When `fingerprint` is given it must be the one pending
   * (the admin accepts what they were shown, not whatever came later). Audited.
   */
  async acceptPending(host: string, port: number, fingerprint: string | undefined, actor: AuditInput['actor']): Promise<{ fingerprint: string; previous: string }> {
    const row = await this.keys.findOne({ where: { host, port } });
    if (!row || !row.pending_key || !row.pending_fingerprint) throw notFound(`No changed host key is waiting for ${where({ host, port })}`);
    if (fingerprint && fingerprint !== row.pending_fingerprint) {
      throw conflict(`The key waiting for ${where({ host, port })} is ${row.pending_fingerprint}, not ${fingerprint}: test the connection again`);
    }
    const previous = row.fingerprint;
    const key = Buffer.from(row.pending_key, 'base64');
    await this.keys.update({ Id: row.Id }, {
      key_type: keyTypeOf(key), fingerprint: row.pending_fingerprint, public_key: row.pending_key,
      pending_key: null, pending_fingerprint: null, pending_seen: null, updated_at: new Date(),
    });
    await this.audit.record({ actor, method: 'ssh.hostkey.accept', args: { host, port, previous, fingerprint: row.pending_fingerprint }, outcome: 'ok' });
    return { fingerprint: row.pending_fingerprint, previous };
  }

  /** Forgets the pinned key of host:port (the next successful connect pins again). */
  async forget(host: string, port: number): Promise<void> {
    await this.keys.delete({ host, port });
  }

  private async pin(target: SshTarget, key: Buffer): Promise<boolean> {
    const now = new Date();
    const fp = fingerprintOf(key);
    try {
      await this.keys.insert({ host: target.host, port: target.port, key_type: keyTypeOf(key), fingerprint: fp, public_key: key.toString('base64'), pending_fingerprint: null, pending_key: null, pending_seen: null, created_at: now, updated_at: now });
      this.log.log(`pinned host key of ${where(target)}: ${fp}`);
      return true;
    } catch (err) {
      // Another connect pinned it meanwhile: fine if it is the same key.
      const row = await this.keys.findOne({ where: { host: target.host, port: target.port } });
      if (row?.fingerprint === fp) return false;
      if (row) {
        await this.recordPending(row, key);
        throw new SshError('hostkey', `Host key of ${where(target)} has changed: pinned ${row.fingerprint}, now offered ${fp}. Connection refused until an admin accepts the new key.`);
      }
      throw err;
    }
  }

  private async recordPending(row: SshHostKeyEntity, key: Buffer) {
    await this.keys.update({ Id: row.Id }, { pending_key: key.toString('base64'), pending_fingerprint: fingerprintOf(key), pending_seen: new Date() });
  }

  private checkTarget(t: SshTarget) {
    if (!t.host) throw new SshError('config', 'No IP address is set for this server');
    if (!t.username) throw new SshError('config', 'No SSH login is set for this server');
    if (!t.password && !t.privateKey) throw new SshError('config', 'No SSH password or private key is stored for this server');
    if (!(t.port >= 1 && t.port <= 65535)) throw new SshError('config', `SSH port ${t.port} is out of range`);
  }

  private classify(err: unknown, t: SshTarget, timeoutMs: number, timedOut: boolean): SshError {
    if (err instanceof SshError) return err;
    const e = err as Error & { code?: string | number; level?: string };
    const secs = Math.round(timeoutMs / 100) / 10;
    if (timedOut || e.level === 'client-timeout' || e.code === 'ETIMEDOUT') return new SshError('timeout', `Timed out after ${secs} s connecting to ${where(t)}`);
    if (e.level === 'client-authentication') return new SshError('auth', `Authentication failed for ${t.username}@${where(t)}`);
    if (e.code === 'ECONNREFUSED') return new SshError('refused', `Connection refused by ${where(t)}`);
    if (e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return new SshError('unreachable', `${where(t)} is unreachable (${e.code})`);
    if (e.code === 'ECONNRESET') return new SshError('error', `Connection reset by ${where(t)}`);
    if (/privateKey|private key|passphrase|Cannot parse/i.test(e.message ?? '')) return new SshError('config', `The stored private key cannot be used: ${e.message}`);
    return new SshError('error', `SSH to ${where(t)} failed: ${e.message ?? String(err)}`);
  }
}
