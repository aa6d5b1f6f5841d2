import { Inject, Injectable } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  RUN_ONCE_OUTPUT_MAX, RUN_ONCE_TIMEOUT_S, RunOnceArgs, type RunOnceGroup, type RunOnceProgressEvent, type RunOnceResult,
} from '../../contracts/deploy.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { notFound } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SshError, SshService } from '../../core/ssh/ssh.service.js';
import { SrvService } from '../srv/srv.service.js';

/** Progress events of one call are sent at most this often (the last one always). */
const PROGRESS_EVERY_MS = 200;

/** What one host gave: its output (stdout then stderr, one trailing newline dropped) and exit code. */
export interface HostOutput {
  name: string;
  output: string;
  code: number;
}

/**
 * Groups hosts by byte-identical output, as ClusterShell's `clubak -b`: groups by size (largest
 * first), then by their first host; hosts inside a group in natural order, codes alongside.
 */
export function groupOutputs(rows: HostOutput[]): RunOnceGroup[] {
  const byOutput = new Map<string, HostOutput[]>();
  for (const r of rows) {
    const list = byOutput.get(r.output);
    if (list) list.push(r);
    else byOutput.set(r.output, [r]);
  }
  const natural = new Intl.Collator('en', { numeric: true });
  const groups = [...byOutput.entries()].map(([output, list]) => {
    list.sort((a, b) => natural.compare(a.name, b.name));
    return { output, hosts: list.map((h) => h.name), codes: list.map((h) => h.code) };
  });
  groups.sort((a, b) => b.hosts.length - a.hosts.length || natural.compare(a.hosts[0], b.hosts[0]));
  return groups;
}

/** stdout then stderr, cut at RUN_ONCE_OUTPUT_MAX, one trailing newline dropped. */
export function outputOf(stdout: string, stderr: string): string {
  let out = stdout + stderr;
  if (out.length > RUN_ONCE_OUTPUT_MAX) out = `${out.slice(0, RUN_ONCE_OUTPUT_MAX)}\n[output cut at ${RUN_ONCE_OUTPUT_MAX} characters]`;
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/**
 * Run once (issue 11): one command on many servers as separate executions over SshService (its
 * process-wide connection bound, pinned host keys, one audit row per host with who, the server's name
 * and the command), at most `RUN_ONCE_CONCURRENCY` at once, each host bounded by the time-out
 * (connect + run). Answers the outputs grouped as `clubak -b` does, and the hosts that failed.
 */
@Injectable()
export class RunOnceService {
  constructor(
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  @Rpc('srv.runOnce', {
    role: Role.admin, write: true, input: RunOnceArgs,
    summary: '{ids, cmd, timeout?: s per host (60), run?: progress tag}: runs cmd once on each server (separate SSH executions, bounded concurrency, audited per host); answers {groups: [{output, hosts, codes}] (identical outputs together, as clubak -b), failed: [{name, error}]}; progress as srv.run_once events to the caller',
  })
  async runOnce(a: z.output<typeof RunOnceArgs>, ctx?: RpcContext): Promise<RunOnceResult> {
    const ids = [...new Set(a.ids)];
    const all = new Map((await this.srv.getList()).map((s) => [s.Id, s]));
    const missing = ids.filter((i) => !all.has(i));
    if (missing.length) throw notFound(`Unknown server${missing.length > 1 ? 's' : ''}: ${missing.slice(0, 10).join(', ')}`);
    const servers = ids.map((i) => all.get(i)!);
    const timeoutMs = (a.timeout ?? RUN_ONCE_TIMEOUT_S) * 1000;
    const actor = ctx?.actor ?? null;
    // One abort listener per host in flight on the caller's signal (and SshService's own): not a leak.
    if (ctx?.signal) setMaxListeners(0, ctx.signal);

    let done = 0;
    let lastSent = 0;
    const progress = (e: Omit<RunOnceProgressEvent, 'run' | 'total'>, force = false) => {
      if (!actor?.uid) return;
      const now = Date.now();
      if (!force && now - lastSent < PROGRESS_EVERY_MS) return;
      lastSent = now;
      this.realtime.emitToUser(actor.uid, 'srv.run_once', { run: a.run ?? null, total: servers.length, ...e }, Role.admin);
    };
    progress({ done: 0 }, true);

    const results = await this.ssh.fanOut(servers, async (s): Promise<HostOutput> => {
      // One time-out over connect and run: an abort at the deadline ends whichever is under way.
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      const onOuter = () => abort.abort();
      ctx?.signal?.addEventListener('abort', onOuter, { once: true });
      let good = false;
      try {
        const target = await this.srv.sshTarget(s.Id);
        const r = await this.ssh.exec(target, a.cmd, {
          actor, signal: abort.signal, connectTimeoutMs: Math.min(timeoutMs, 10_000), commandTimeoutMs: timeoutMs,
        });
        good = true;
        return { name: s.name, output: outputOf(r.stdout, r.stderr), code: r.code ?? -1 };
      } catch (err) {
        if (abort.signal.aborted && !ctx?.signal?.aborted) throw new SshError('timeout', `Timed out after ${timeoutMs / 1000} s`);
        throw err;
      } finally {
        clearTimeout(timer);
        ctx?.signal?.removeEventListener('abort', onOuter);
        done++;
        progress({ done, name: s.name, ok: good }, done === servers.length);
      }
    }, { concurrency: this.cfg.deploy.runOnceConcurrency, signal: ctx?.signal });

    const ok: HostOutput[] = [];
    const failed: RunOnceResult['failed'] = [];
    for (const r of results) {
      if (r.ok) ok.push(r.value);
      else failed.push({ name: r.item.name, error: r.error });
    }
    const natural = new Intl.Collator('en', { numeric: true });
    failed.sort((x, y) => natural.compare(x.name, y.name));
    // The nodes' lookups named themselves in the audit scope; the call's entry names them all.
    auditTarget(servers.length === 1 ? 'server' : 'servers', servers.map((s) => s.name).join(', '), servers.length === 1 ? servers[0].Id : null);
    return { groups: groupOutputs(ok), failed };
  }
}
