import { Inject, Injectable, Logger } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Paged } from '../../contracts/auth.js';
import {
  DEPLOY_CONFIG_TYPES, DEPLOY_HIDDEN_NAME, DEPLOY_HISTORY_PAGE_SIZE, DEPLOY_LABELS, DEPLOY_LINE_MAX, DEPLOY_MARKER_TEXT, DEPLOY_TIMEOUT_S,
  DeployArgs, DeployHistoryArgs, deployLogEvent, type DeployHost, type DeployLogEvent, type DeployMarker, type DeployNodeResult, type DeployResult,
  type DeployRunView, type DeployType,
} from '../../contracts/deploy.js';
import { Role } from '../../contracts/roles.js';
import { PARENT_TYPE, WEB_TYPE, type ServerView } from '../../contracts/srv.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { AppError, conflict, notFound } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SshService } from '../../core/ssh/ssh.service.js';
import { CfgConfigsService } from '../cfg-configs/cfg-configs.service.js';
import { SrvService } from '../srv/srv.service.js';
import { DeployRunEntity } from './deploy-run.entity.js';

/** Whether a server takes part in deploys: a web server (type 8), on, without 'dev' in its name (000 §2). */
export const isDeployNode = (s: Pick<ServerView, 'type' | 'status' | 'name'>) =>
  s.type === WEB_TYPE && s.status === 1 && !s.name.toLowerCase().includes(DEPLOY_HIDDEN_NAME);

/** Splits streamed output into lines (a partial line waits for the next chunk). */
export class LineSplitter {
  private rest = '';
  constructor(private readonly onLine: (line: string) => void) {}
  push(chunk: string) {
    const text = this.rest + chunk;
    const parts = text.split(/\r?\n/);
    this.rest = parts.pop() ?? '';
    if (this.rest.length > DEPLOY_LINE_MAX) { this.onLine(this.rest); this.rest = ''; }
    for (const p of parts) this.onLine(p);
  }
  end() {
    if (this.rest) this.onLine(this.rest);
    this.rest = '';
  }
}

/**
 * Deploy (000 §2 /srv/deploy, §4 Deploy, §7 deploy, deploy_logs_{server name}): runs the command of the
 * chosen type (cluster config rows `deploy_web` / `deploy_web_test`, a `{type}.{host}` row overriding
 * for one host) over SSH on every web server of the host, at most DEPLOY_CONCURRENCY at once, one dead
 * node never stopping the others; each output line goes to the admins as `deploy_logs_{server name}`
 * between a start and an end marker (a test pass that exits 0 also sends the test marker). Every deploy
 * is recorded in `deploy_runs` and each node's command is audited by SshService.
 */
@Injectable()
export class DeployService {
  private readonly log = new Logger('Deploy');
  /** Hosts with a deploy under way on this instance. */
  private readonly running = new Set<string>();

  constructor(
    @InjectRepository(DeployRunEntity) private readonly runs: Repository<DeployRunEntity>,
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly cfgs: CfgConfigsService,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  @Rpc('deploy.getHosts', { role: Role.admin, summary: "Hosts (servers of type 0) with their web servers (type 8, on, no 'dev' in the name): [{Id, name, nodes: [{Id, name}]}], hosts without such nodes left out" })
  async getHosts(): Promise<DeployHost[]> {
    const all = await this.srv.getList();
    const natural = new Intl.Collator('en', { numeric: true });
    return all
      .filter((s) => s.type === PARENT_TYPE)
      .map((p) => ({
        Id: p.Id,
        name: p.name,
        nodes: all.filter((s) => s.cod === p.Id && isDeployNode(s)).map((s) => ({ Id: s.Id, name: s.name })).sort((a, b) => natural.compare(a.name, b.name)),
      }))
      .filter((h) => h.nodes.length > 0)
      .sort((a, b) => natural.compare(a.name, b.name));
  }

  /** The command of a deploy type for a host: a `{config type}.{host}` row, else the `{config type}` row. */
  async commandFor(type: DeployType, host: string): Promise<string> {
    const base = DEPLOY_CONFIG_TYPES[type];
    const cmd = (await this.cfgs.firstValue(`${base}.${host}`)) ?? (await this.cfgs.firstValue(base));
    if (!cmd || !cmd.trim()) throw new AppError(422, DEPLOY_LABELS.noCommand(base), 'rules', { type: DEPLOY_LABELS.noCommand(base) });
    return cmd;
  }

  @Rpc('srv/action.deploy', {
    role: Role.admin, write: true, input: DeployArgs,
    summary: "{type: 'web'|'web_test', host}: runs the deploy or test command (cluster config deploy_web / deploy_web_test) on every web server of the host (no 'dev'), streaming deploy_logs_{server name}; answers when all finish {Id, nodes: [{name, ok, code, error?}]}; 409 while one runs for that host",
  })
  async deploy(a: z.output<typeof DeployArgs>, ctx?: RpcContext): Promise<DeployResult> {
    const all = await this.srv.getList();
    const parent = all.find((s) => s.type === PARENT_TYPE && s.name === a.host);
    if (!parent) throw notFound(DEPLOY_LABELS.unknownHost(a.host));
    auditTarget('host', parent.name, parent.Id);
    const natural = new Intl.Collator('en', { numeric: true });
    const nodes = all.filter((s) => s.cod === parent.Id && isDeployNode(s)).sort((x, y) => natural.compare(x.name, y.name));
    if (!nodes.length) throw new AppError(422, DEPLOY_LABELS.noNodes(a.host), 'rules', { host: DEPLOY_LABELS.noNodes(a.host) });
    const command = await this.commandFor(a.type, a.host);
    if (this.running.has(a.host)) throw conflict(DEPLOY_LABELS.busy(a.host));
    this.running.add(a.host);
    if (ctx?.signal) setMaxListeners(0, ctx.signal); // one abort listener per node in flight
    const started = Date.now();
    try {
      const row = await this.runs.save(this.runs.create({
        type: a.type, host: a.host, uid: ctx?.actor?.uid || null, login: ctx?.actor?.login ?? null, started_at: new Date(started), duration_ms: null, ok: null, nodes: null,
      }));
      const results = await this.ssh.fanOut(nodes, (s) => this.runNode(s, a.type, a.host, command, ctx), { concurrency: this.cfg.deploy.concurrency, signal: ctx?.signal });
      const out: DeployNodeResult[] = results.map((r) => (r.ok ? r.value : { name: r.item.name, ok: false, code: null, error: r.error }));
      await this.runs.update({ Id: row.Id }, { duration_ms: Date.now() - started, ok: out.every((n) => n.ok) ? 1 : 0, nodes: JSON.stringify(out) });
      auditTarget('host', parent.name, parent.Id); // the nodes' lookups named themselves meanwhile; the entry is the host's
      return { Id: row.Id, nodes: out };
    } finally {
      this.running.delete(a.host);
    }
  }

  /** One node: start marker, the command's lines, test marker when a test pass exits 0, end marker. Never throws. */
  private async runNode(s: ServerView, type: DeployType, host: string, command: string, ctx?: RpcContext): Promise<DeployNodeResult> {
    const send = (line: string, extra: Partial<DeployLogEvent> = {}) =>
      this.realtime.emitNamed(deployLogEvent(s.name), { type, host, line: line.slice(0, DEPLOY_LINE_MAX), ...extra } satisfies DeployLogEvent, Role.admin);
    const marker = (m: DeployMarker, extra: Partial<DeployLogEvent> = {}) => send(DEPLOY_MARKER_TEXT[m], { marker: m, ...extra });
    marker('start');
    const lines = new LineSplitter((l) => send(l));
    const decoder = new TextDecoder();
    let result: DeployNodeResult;
    try {
      const target = await this.srv.sshTarget(s.Id);
      // stderr joins stdout so the card shows both in order.
      const r = await this.ssh.exec(target, `exec 2>&1\n${command}`, {
        actor: ctx?.actor ?? null, signal: ctx?.signal, commandTimeoutMs: DEPLOY_TIMEOUT_S * 1000,
        onStdout: (chunk) => lines.push(decoder.decode(chunk, { stream: true })),
      });
      lines.push(decoder.decode());
      lines.end();
      const code = r.code ?? -1;
      result = code === 0 ? { name: s.name, ok: true, code } : { name: s.name, ok: false, code, error: r.signal ? `killed by ${r.signal}` : `exit code ${code}` };
    } catch (err) {
      lines.end();
      const error = (err as Error).message;
      send(error);
      result = { name: s.name, ok: false, code: null, error };
    }
    if (type === 'web_test' && result.ok) marker('test');
    marker('end', { code: result.code, ok: result.ok, ...(result.error ? { error: result.error } : {}) });
    if (!result.ok) this.log.warn(`deploy ${type} ${host}/${s.name}: ${result.error}`);
    return result;
  }

  @Rpc('deploy.getHistory', { role: Role.admin, input: DeployHistoryArgs, summary: `{page?, host?, type?}: deploys, newest first, ${DEPLOY_HISTORY_PAGE_SIZE} a page: {list: [{Id, type, host, uid, login, started_at, duration_ms, ok: 1|0|null (running), nodes: [{name, ok, code, error?}]}], count, page, limit}` })
  async history(a: z.output<typeof DeployHistoryArgs>): Promise<Paged<DeployRunView>> {
    const where = { ...(a.host ? { host: a.host } : {}), ...(a.type ? { type: a.type } : {}) };
    const [rows, count] = await this.runs.findAndCount({ where, order: { Id: 'DESC' }, skip: (a.page - 1) * DEPLOY_HISTORY_PAGE_SIZE, take: DEPLOY_HISTORY_PAGE_SIZE });
    return {
      list: rows.map((r) => ({
        Id: r.Id, type: r.type as DeployType, host: r.host, uid: r.uid, login: r.login,
        started_at: (r.started_at ?? new Date(0)).toISOString(), duration_ms: r.duration_ms, ok: r.ok,
        nodes: r.nodes ? (JSON.parse(r.nodes) as DeployNodeResult[]) : [],
      })),
      count, page: a.page, limit: DEPLOY_HISTORY_PAGE_SIZE,
    };
  }
}
