import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import {
  AppLogsArgs, DeployGlobalArgs, LOG_DEFAULT_LINES, LOG_DEFAULT_TYPE, LogsFileArgs, LogsIdArgs, LogsOpenArgs, keepLogLine,
  type AppLogEntry, type AppLogsResult, type DeployGlobalResult, type DeployNodeResult, type DeployRes, type DeployTestRes,
  type LogClusterView, type LogFile, type LogFilesResult, type LogNodeView, type LogOpenResult, type LogsClustersView,
} from '../../contracts/logs.js';
import { Role } from '../../contracts/roles.js';
import { WEB_CLUSTER_TYPE, type AgentTarget } from '../../contracts/srv.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { AppError } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { CfgConfigsService } from '../cfg-configs/cfg-configs.service.js';
import { SrvService } from '../srv/srv.service.js';
import { AgentAnswerError, AgentClient, type AgentEvent } from '../../core/outside/agent.client.js';

/** Application log files on the nodes: JSON, one entry a line (docs/agent.md "Application logs"). */
export const APP_LOG_FILE = /\.(jsonl|ndjson|json\.log)$/i;
const APP_LOG_LINES = 1000;
const APP_LOG_FILES_PER_NODE = 20;
const APP_LOG_DEFAULT_LIMIT = 200;

const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const enc = (name: string) => name.split('/').map(encodeURIComponent).join('/');
const message = (err: unknown) => (err instanceof AppError ? err.message : 'Unexpected error');

/**
 * Log viewing on the nodes (000 §2 "Logs", §4, §5, §8) and 'Deploy configs' (000 §2 /srv/configs_global,
 * §4 "Global deploy"), through the node agents (docs/agent.md). Admin only.
 */
@Injectable()
export class LogsService {
  constructor(
    private readonly srv: SrvService,
    private readonly configs: CfgConfigsService,
    private readonly agents: AgentClient,
    private readonly realtime: RealtimeService,
  ) {}

  private async target(Id: number): Promise<AgentTarget> {
    const [t] = await this.srv.agentTargets(this.agents.defaultPort, [Id]);
    auditTarget('server', t.name, t.Id);
    return t;
  }

  private nodeView = (t: AgentTarget): LogNodeView => ({ Id: t.Id, name: t.name, type: t.type, ip: t.ip, agent_url: t.url, has_key: !!t.key });

  @Rpc('logs.getClusters', { role: Role.admin, summary: "WEB clusters (type 2) with their nodes (WEB 8 / Node 9 under the same parent), for /logs?host=: {clusters: [{Id, name, nodes}], free: nodes of no cluster}" })
  async getClusters(): Promise<LogsClustersView> {
    const all = await this.srv.agentTargets(this.agents.defaultPort);
    const clusters = new Map<number, LogClusterView>();
    for (const c of await this.srv.getList({ type: WEB_CLUSTER_TYPE })) clusters.set(c.Id, { Id: c.Id, name: c.name, nodes: [] });
    const free: LogNodeView[] = [];
    for (const t of all) {
      const c = t.cluster ? clusters.get(t.cluster.Id) : undefined;
      if (c) c.nodes.push(this.nodeView(t));
      else free.push(this.nodeView(t));
    }
    return { clusters: [...clusters.values()], free };
  }

  @Rpc('logs.getFiles', { role: Role.admin, input: LogsIdArgs, summary: "{Id}: the node's log files through its agent: {host, files: [{name, size (bytes), mtime}]}; the host must be the node (000 §5)" })
  async getFiles(a: z.output<typeof LogsIdArgs>, ctx?: Pick<RpcContext, 'signal'>): Promise<LogFilesResult> {
    const t = await this.target(a.Id);
    const r = await this.agents.call<LogFile[]>(t, 'GET', '/sync/logs', { signal: ctx?.signal });
    const files = Array.isArray(r.r.res) ? r.r.res.filter((f) => f && typeof f.name === 'string').map((f) => ({ name: f.name, size: Number(f.size) || 0, mtime: Number(f.mtime) || 0 })) : [];
    return { host: r.host, files };
  }

  @Rpc('logs.open', { role: Role.admin, input: LogsOpenArgs, summary: "{Id, name, lines? (200), type? (output|error)}: the file's last lines {host, name, type, file, lines}; type error reads the error counterpart of name (pm2 {app}-out.log -> {app}-error.log, .out -> .err; file names it; none: 404); lines with 'no such file or directory' or shorter than 2 characters left out (000 §5); a missing file: 404 'File not found'" })
  async open(a: z.output<typeof LogsOpenArgs>, ctx?: Pick<RpcContext, 'signal'>): Promise<LogOpenResult> {
    const t = await this.target(a.Id);
    const r = await this.agents.call<string[]>(t, 'GET', `/sync/logs/open/${enc(a.name)}`, { query: { lines: a.lines ?? LOG_DEFAULT_LINES, type: a.type ?? LOG_DEFAULT_TYPE }, signal: ctx?.signal });
    const lines = Array.isArray(r.r.res) ? r.r.res.filter((l): l is string => typeof l === 'string').filter(keepLogLine) : [];
    const type = a.type ?? LOG_DEFAULT_TYPE;
    return { host: r.host, name: a.name, type, file: typeof r.name === 'string' ? r.name : a.name, lines };
  }

  @Rpc('logs.remove', { role: Role.admin, write: true, input: LogsFileArgs, summary: "{Id, name}: deletes the file on the node: {host, res: 'ok'} (000 §8: anything else is shown as an alert)" })
  async remove(a: z.output<typeof LogsFileArgs>): Promise<{ host: string; res: unknown }> {
    const t = await this.target(a.Id);
    const r = await this.agents.call<string>(t, 'POST', `/sync/logs/del/${enc(a.name)}`);
    return { host: r.host, res: r.r.res };
  }

  @Rpc('logs.clearAll', { role: Role.admin, write: true, input: LogsIdArgs, summary: "{Id}: deletes every log file of the node: {host, res: 'ok', deleted}" })
  async clearAll(a: z.output<typeof LogsIdArgs>): Promise<{ host: string; res: unknown; deleted: number }> {
    const t = await this.target(a.Id);
    const r = await this.agents.call<string>(t, 'POST', '/sync/logs/del_all');
    return { host: r.host, res: r.r.res, deleted: Number(r.deleted) || 0 };
  }

  @Rpc('logs.getAppLogs', { role: Role.admin, input: AppLogsArgs, summary: '{Id?, level?, q?, limit? (200)}: application log entries (000 §3 Log entry: level, ip, date, data, url, ref, post) from the JSON-line files (*.jsonl, *.ndjson, *.json.log) of every node (or one), newest first; nodes that failed in errors' })
  async getAppLogs(a: z.output<typeof AppLogsArgs>, ctx?: Pick<RpcContext, 'signal'>): Promise<AppLogsResult> {
    const targets = a.Id ? await this.srv.agentTargets(this.agents.defaultPort, [a.Id]) : await this.srv.agentTargets(this.agents.defaultPort);
    const entries: AppLogEntry[] = [];
    const errors: AppLogsResult['errors'] = [];
    const q = a.q?.trim().toLowerCase();
    await Promise.all(targets.map(async (t) => {
      try {
        const list = await this.agents.call<LogFile[]>(t, 'GET', '/sync/logs', { signal: ctx?.signal });
        const files = (Array.isArray(list.r.res) ? list.r.res : []).filter((f) => APP_LOG_FILE.test(f.name)).slice(0, APP_LOG_FILES_PER_NODE);
        for (const f of files) {
          const r = await this.agents.call<string[]>(t, 'GET', `/sync/logs/open/${enc(f.name)}`, { query: { lines: APP_LOG_LINES }, signal: ctx?.signal });
          for (const line of Array.isArray(r.r.res) ? r.r.res : []) {
            let o: Record<string, unknown>;
            try { o = JSON.parse(line) as Record<string, unknown>; } catch { continue; }
            if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
            const e: AppLogEntry = { node: t.name, file: f.name, level: str(o.level).toLowerCase(), ip: str(o.ip), date: str(o.date ?? o.time), data: str(o.data ?? o.msg ?? o.message), url: str(o.url), ref: str(o.ref), post: str(o.post) };
            if (a.level && e.level !== a.level) continue;
            if (q && ![e.ip, e.data, e.url, e.ref, e.post, e.date].some((v) => v.toLowerCase().includes(q))) continue;
            entries.push(e);
          }
        }
      } catch (err) {
        if (a.Id) throw err;
        errors.push({ Id: t.Id, name: t.name, error: message(err) });
      }
    }));
    const time = (d: string) => { const n = Date.parse(d); return Number.isNaN(n) ? 0 : n; };
    entries.sort((x, y) => time(y.date) - time(x.date));
    return { entries: entries.slice(0, a.limit ?? APP_LOG_DEFAULT_LIMIT), errors };
  }

  /** Follows a file on a node (the socket gateway relays the events); ends when `signal` aborts. */
  async *follow(a: z.output<typeof LogsFileArgs>, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const t = await this.target(a.Id);
    yield* this.agents.stream(t, `/sync/logs/follow/${enc(a.name)}`, signal);
  }

  @Rpc('cfg.deployGlobalConfig', { role: Role.admin, write: true, input: DeployGlobalArgs, summary: "{test}: sends the cluster configs to every node's agent (WEB 8 and Node 9 switched on); test: what would change, else writes them and reloads. {test, nodes: [{Id, name, ok, res?, error?}]}; one failing node never stops the others; run?: progress tag — a cfg.deploy_global event to the caller's sockets as each node answers" })
  async deployGlobalConfig(a: z.output<typeof DeployGlobalArgs>, ctx?: Pick<RpcContext, 'actor'>): Promise<DeployGlobalResult> {
    const rows = (await this.configs.getConfigs()).map((r) => ({ type: r.type, value: r.value }));
    const nodes = (await this.srv.agentTargets(this.agents.defaultPort)).filter((t) => t.type !== WEB_CLUSTER_TYPE);
    const active = new Set((await this.srv.getList({ type: [8, 9] })).filter((s) => s.status === 1).map((s) => s.Id));
    const path = a.test ? '/sync/deploy_global_config/test' : '/sync/deploy_global_config';
    const targets = nodes.filter((n) => active.has(n.Id));
    // Progress to the caller's sockets: once at the start, then one event per node as it answers.
    const uid = ctx?.actor?.uid;
    let done = 0;
    const progress = (node: DeployNodeResult | null) => {
      if (!uid) return;
      this.realtime.emitToUser(uid, 'cfg.deploy_global', { run: a.run ?? null, test: a.test, total: targets.length, done, node }, Role.admin);
    };
    progress(null);
    const out = await Promise.all(targets.map(async (t): Promise<DeployNodeResult> => {
      let result: DeployNodeResult;
      try {
        const r = await this.agents.call<DeployTestRes | DeployRes>(t, 'POST', path, { body: { configs: rows } });
        result = { Id: t.Id, name: t.name, ok: true, res: r.r.res };
      } catch (err) {
        const res = err instanceof AgentAnswerError && err.answer.r.res && typeof err.answer.r.res === 'object' ? (err.answer.r.res as DeployTestRes) : undefined;
        result = { Id: t.Id, name: t.name, ok: false, ...(res ? { res } : {}), error: message(err) };
      }
      done++;
      progress(result);
      return result;
    }));
    return { test: a.test, nodes: out };
  }
}
