/**
 * The monitoring collector (issue 10 "Collecting", docs/monitoring.md "Collecting"): one round reads
 * every server with status 1 and SSH credentials over the SshService, one command per server, at most
 * MONITOR_CONCURRENCY at once, and writes one minute row per server (all null when it could not be
 * read: a gap). Connections are kept open between rounds for up to MONITOR_POOL_SIZE servers and
 * reused; each server's turn is bounded (connect + command time-out), so a dead server costs its
 * time-out once and never stalls the round. After a round the tiers roll up and 'update_nginx' tells
 * every signed-in screen to refresh. The scheduled rounds run on one instance at a time (lease).
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MONITOR_METRICS, type CollectResult } from '../../contracts/monitoring.js';
import { Role } from '../../contracts/roles.js';
import { missingSshCredential, type ServerView } from '../../contracts/srv.js';
import { LeaseService } from '../../core/lease.service.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SSH_MAX_CONNECTIONS, SshError, SshService, type SshConnection } from '../../core/ssh/ssh.service.js';
import { SrvService } from '../srv/srv.service.js';
import { MonitoringStore, type MinuteRow, type MinuteSample } from './monitoring-store.service.js';

/** The one command of a round: load averages and processes, cores, memory, the CPU counters. */
export const COLLECT_COMMAND = "cat /proc/loadavg; nproc; grep -E '^(MemTotal|MemAvailable):' /proc/meminfo; head -1 /proc/stat";
export const COLLECT_LEASE = 'monitoring-collect';
export const PRUNE_LEASE = 'monitoring-prune';
/** Connections the rest of the console (terminals, deploy, tests) can always open beside the collector's. */
const SSH_HEADROOM = 8;

/** CPU time counters of /proc/stat's first line: busy (all but idle and iowait) and total, in ticks. */
export interface CpuTicks {
  busy: number;
  total: number;
}
export interface ParsedSample {
  sample: Omit<MinuteSample, 'cpu_busy_pct'>;
  cpu: CpuTicks | null;
}

/** Reads the command's output; throws when the load line is not there (not a Linux /proc). */
export function parseCollect(out: string): ParsedSample {
  const lines = out.split('\n').map((l) => l.trim()).filter(Boolean);
  const la = /^(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)\/(\d+)/.exec(lines[0] ?? '');
  if (!la) throw new Error(`unexpected answer (no /proc/loadavg line): ${out.slice(0, 200)}`);
  const cores = lines.find((l) => /^\d+$/.test(l));
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`).exec(lines.find((l) => l.startsWith(`${name}:`)) ?? '');
    return m ? Number(m[1]) : null;
  };
  const total = kb('MemTotal');
  const avail = kb('MemAvailable');
  const statLine = lines.find((l) => /^cpu\s/.test(l));
  let cpu: CpuTicks | null = null;
  if (statLine) {
    const f = statLine.split(/\s+/).slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
    if (f.length >= 4 && f.every(Number.isFinite)) {
      const sum = f.reduce((a, b) => a + b, 0);
      cpu = { busy: sum - f[3] - (f[4] ?? 0), total: sum };
    }
  }
  return {
    sample: {
      la1: Number(la[1]), la5: Number(la[2]), la15: Number(la[3]),
      procs_running: Number(la[4]), procs_total: Number(la[5]),
      cores: cores ? Number(cores) : null,
      mem_used_pct: total && avail !== null ? Math.round(((total - avail) / total) * 10_000) / 100 : null,
    },
    cpu,
  };
}

/** CPU busy share (%) between two readings of the counters; null without a previous one or when they went back (a reboot). */
export function cpuBusyPct(prev: CpuTicks | undefined, now: CpuTicks | null): number | null {
  if (!prev || !now) return null;
  const dt = now.total - prev.total;
  const db = now.busy - prev.busy;
  if (dt <= 0 || db < 0) return null;
  return Math.round((db / dt) * 10_000) / 100;
}

interface Pooled {
  conn: SshConnection;
  key: string;
  alive: boolean;
}

const hasCredentials = (s: ServerView) => s.status === 1 && missingSshCredential(s) === null;
const keyOf = (s: ServerView) => `${s.ip || s.ip_local}|${s.sshport}|${s.sshlogin}`;

@Injectable()
export class MonitoringCollector implements OnApplicationShutdown {
  private readonly log = new Logger('MonitoringCollector');
  private readonly pool = new Map<number, Pooled>();
  private readonly prevCpu = new Map<number, CpuTicks>();
  private chain: Promise<unknown> = Promise.resolve();
  private pending = 0;
  /** Connections the collector holds now and at most since start (bench, docs). */
  readonly stats = { open: 0, peak: 0, connects: 0, reused: 0 };

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly store: MonitoringStore,
    private readonly realtime: RealtimeService,
    private readonly leases: LeaseService,
  ) {}

  onApplicationShutdown() {
    for (const p of this.pool.values()) p.conn.close();
    this.pool.clear();
  }

  /** Pooled connections at most: never so many that a round's fresh connects could wait on the process-wide bound. */
  get poolLimit(): number {
    return Math.max(0, Math.min(this.cfg.monitoring.poolSize, SSH_MAX_CONNECTIONS - this.cfg.monitoring.concurrency - SSH_HEADROOM));
  }

  @Rpc('monitoring.collectNow', {
    role: Role.admin, write: true,
    summary: '{}: runs one collection round now (after the one going on in this instance): [{Id, name, ok, cpu_la?, error?, reason?}] per server with status 1 (reason: the SSH failure, or no_credentials when it has no address, login or password/key and was not tried); rolls the tiers up and emits update_nginx',
  })
  collectNow(_a?: unknown, ctx?: RpcContext): Promise<CollectResult[]> {
    return this.run(ctx?.signal);
  }

  /** A round now, after the one going on in this instance if any. */
  run(signal?: AbortSignal): Promise<CollectResult[]> {
    this.pending++;
    const r = this.chain.then(() => this.round(signal));
    this.chain = r.catch(() => undefined).finally(() => { this.pending--; });
    return r;
  }

  /** The scheduled round (MonitoringCollectJob): CRON_ENABLED, one instance (the lease), never two at once here. */
  async scheduledRound(): Promise<CollectResult[] | null> {
    if (!this.cfg.cronEnabled || this.pending > 0) return null;
    const ttl = Math.max(2 * this.cfg.monitoring.intervalMs, 120_000);
    if (!(await this.leases.acquire(COLLECT_LEASE, ttl))) {
      this.dropPool(new Set()); // another instance collects: hold no connections here
      return null;
    }
    return this.run();
  }

  /** The retention job (MonitoringRetentionJob): prunes each tier past its retention; CRON_ENABLED, one instance (lease). */
  async scheduledPrune() {
    if (!this.cfg.cronEnabled) return null;
    if (!(await this.leases.acquire(PRUNE_LEASE, 30 * 60_000))) return null;
    const r = await this.store.prune();
    if (r.minute || r.hour || r.day || r.week) this.log.log(`pruned rows: ${JSON.stringify(r)}`);
    return r;
  }

  private async round(signal?: AbortSignal): Promise<CollectResult[]> {
    const ts = this.store.nowMin();
    const on = (await this.srv.getList({})).filter((s) => s.status === 1);
    const servers = on.filter(hasCredentials);
    this.dropPool(new Set(servers.map((s) => s.Id)));
    const out = await this.ssh.fanOut(servers, (s) => this.readOne(s, signal), { concurrency: this.cfg.monitoring.concurrency, signal });
    const rows: MinuteRow[] = [];
    const results: CollectResult[] = out.map((r) => {
      if (r.ok) {
        rows.push({ server_id: r.item.Id, ts, ...r.value });
        return { Id: r.item.Id, name: r.item.name, ok: true, cpu_la: r.value.la1 ?? undefined };
      }
      rows.push({ server_id: r.item.Id, ts, ...nullSample() });
      return { Id: r.item.Id, name: r.item.name, ok: false, error: r.error, reason: r.reason };
    });
    await this.store.writeMinutes(rows);
    try {
      await this.store.rollup();
    } catch (err) {
      this.log.warn(`rollup: ${(err as Error).message}`);
    }
    const ok = results.filter((r) => r.ok).length;
    const failed = results.filter((r) => !r.ok);
    // No audit entry: a round only reads (background jobs audit what they change, not that they ran;
    // docs/monitoring.md). An operator's collectNow is audited by the RPC registry like any write.
    this.realtime.emit('update_nginx', { at: new Date().toISOString(), servers: results.length, ok }, Role.user);
    if (failed.length) this.log.warn(`round: ${ok}/${results.length} servers read; ${failed.length} gaps`);
    // Servers on but not tried (no address, login or password/key): answered with the reason, so
    // "Collect now" says why instead of "0 of 0"; they get no gap row (nothing was tried).
    const read = new Map(results.map((r) => [r.Id, r]));
    return on.map((s) => read.get(s.Id) ?? { Id: s.Id, name: s.name, ok: false, error: missingSshCredential(s)!, reason: 'no_credentials' as const });
  }

  /** One server's turn: a pooled connection (or a new one), the command, the sample. Bounded in time. */
  private async readOne(s: ServerView, outer?: AbortSignal): Promise<MinuteSample> {
    const { sshTimeoutMs } = this.cfg.monitoring;
    const deadline = AbortSignal.timeout(2 * sshTimeoutMs + 1000);
    const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
    const key = keyOf(s);
    let entry = this.pool.get(s.Id);
    if (entry && (!entry.alive || entry.key !== key)) {
      entry.conn.close();
      this.pool.delete(s.Id);
      entry = undefined;
    }
    let stdout: string;
    try {
      if (entry) {
        this.stats.reused++;
        try {
          stdout = await this.exec(entry.conn, signal);
        } catch (err) {
          // a pooled connection that died quietly: once more on a fresh one
          if (deadline.aborted || outer?.aborted) throw err;
          entry.conn.close();
          this.pool.delete(s.Id);
          entry = undefined;
          stdout = await this.fresh(s, key, signal);
        }
      } else stdout = await this.fresh(s, key, signal);
    } catch (err) {
      if (deadline.aborted && !(err instanceof SshError && err.reason === 'timeout')) throw new SshError('timeout', `${s.name}: no answer within ${Math.round((2 * sshTimeoutMs + 1000) / 1000)} s`);
      throw err;
    }
    const parsed = parseCollect(stdout);
    const cpu = cpuBusyPct(this.prevCpu.get(s.Id), parsed.cpu);
    if (parsed.cpu) this.prevCpu.set(s.Id, parsed.cpu);
    return { ...parsed.sample, cpu_busy_pct: cpu };
  }

  private async fresh(s: ServerView, key: string, signal: AbortSignal): Promise<string> {
    const target = await this.srv.sshTarget(s.Id);
    const conn = await this.ssh.connect(target, { connectTimeoutMs: this.cfg.monitoring.sshTimeoutMs, signal });
    this.stats.connects++;
    this.stats.open++;
    this.stats.peak = Math.max(this.stats.peak, this.stats.open);
    const entry: Pooled = { conn, key, alive: true };
    conn.client.once('close', () => {
      this.stats.open--;
      entry.alive = false;
      if (this.pool.get(s.Id) === entry) this.pool.delete(s.Id);
    });
    try {
      const out = await this.exec(conn, signal);
      if (this.pool.size < this.poolLimit && !this.pool.has(s.Id)) this.pool.set(s.Id, entry);
      else conn.close();
      return out;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  private async exec(conn: SshConnection, signal: AbortSignal): Promise<string> {
    const r = await this.ssh.runOn(conn, COLLECT_COMMAND, { commandTimeoutMs: this.cfg.monitoring.sshTimeoutMs, signal });
    if (r.code !== 0 && !r.stdout) throw new Error(`the command exited with ${r.code ?? r.signal}: ${r.stderr.trim().slice(0, 200)}`);
    return r.stdout;
  }

  /** Closes pooled connections of servers not in `keep` (removed, switched off, or another instance collects). */
  private dropPool(keep: Set<number>) {
    for (const [id, p] of this.pool) {
      if (keep.has(id)) continue;
      p.conn.close();
      this.pool.delete(id);
    }
    for (const id of this.prevCpu.keys()) if (!keep.has(id)) this.prevCpu.delete(id);
  }
}

function nullSample(): MinuteSample {
  return Object.fromEntries(MONITOR_METRICS.map((m) => [m, null])) as MinuteSample;
}
