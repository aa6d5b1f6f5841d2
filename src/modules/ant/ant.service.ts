import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  AntAddAiAccountArgs, AntAddTaskArgs, AntCreateTokenArgs, AntGetUniquenessArgs, AntTokenIdArgs, ProxyAddArgs,
  type AiAccountView, type AntAddTaskResult, type AntCommandResult, type AntConnection, type AntCreateTokenResult,
  type AntLogResult, type AntTaskStat, type AntTaskView, type AntTokenView, type AntUniquenessRow, type AntWaitTask,
  type AntWorkerStatus, type ProxyAddResult, type ProxyView, type UsedProxyStatus,
} from '../../contracts/ant.js';
import { choice, id, int } from '../../contracts/fields.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { AntSettingsService } from './ant-settings.service.js';
import { AntTokensService } from './ant-tokens.service.js';
import { AntUniquenessEntity } from './ant.entities.js';
import { AntHubService } from './hub/ant-hub.service.js';
import { AiAccountsService } from './proxies/ai-accounts.service.js';
import { ProxiesService } from './proxies/proxies.service.js';
import { TaskQueueService } from './queue/task-queue.service.js';

const Empty = z.union([z.object({}).passthrough(), z.undefined(), z.null()]).transform(() => ({}));
const AntIdArgs = z.object({ id: z.string().trim().min(1, 'id is required').max(64) });
const OnlyStepArgs = z.object({ only_step: z.union([z.string().max(500), z.number()]).transform(String) });
const UsedProxyArgs = z.object({ status: choice([0, 1, 2] as const, 'status') });
const GetLogArgs = AntIdArgs.extend({
  lines: int(1, 5000, 'lines').default(100),
  type: z.enum(['out', 'err']).default('out'),
});
const AiIdArgs = z.object({ Id: id() });

/**
 * The operator side of the hub (issue 24; docs/ant.md): one RPC method per realtime message of 001 §7
 * (`ant.` + the message name; src/gateways/ant.gateway.ts maps each socket message to its method), plus
 * tokens, tasks, uniqueness results and AI accounts. Admins only.
 */
@Injectable()
export class AntService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hub: AntHubService,
    private readonly settings: AntSettingsService,
    private readonly tokens: AntTokensService,
    private readonly queue: TaskQueueService,
    private readonly proxies: ProxiesService,
    private readonly ai: AiAccountsService,
  ) {}

  // --- worker switch, only-step, proxy usage -----------------------------------------------------

  @Rpc('ant.get_worker_status', { role: Role.admin, input: Empty, summary: "get_worker_status: {status: 'ok'|'stop', time, instance}" })
  workerStatus(): Promise<AntWorkerStatus> {
    return this.settings.worker(this.hub.instance);
  }

  @Rpc('ant.worker_start', { role: Role.admin, write: true, input: Empty, summary: 'worker_start: starts the hand-out of tasks (every instance); answers and broadcasts worker_status' })
  async workerStart(): Promise<AntWorkerStatus> {
    const s = await this.settings.setWorker(true, this.hub.instance);
    this.hub.wake();
    this.hub.broadcast('worker_status', s);
    return s;
  }

  @Rpc('ant.worker_stop', { role: Role.admin, write: true, input: Empty, summary: 'worker_stop: stops the hand-out (tasks under lease are finished); answers and broadcasts worker_status' })
  async workerStop(): Promise<AntWorkerStatus> {
    const s = await this.settings.setWorker(false, this.hub.instance);
    this.hub.broadcast('worker_status', s);
    return s;
  }

  @Rpc('ant.get_only_step', { role: Role.admin, input: Empty, summary: "get_only_step: {only_step} ('' every step)" })
  async getOnlyStep(): Promise<{ only_step: string }> {
    return { only_step: await this.settings.onlyStep() };
  }

  @Rpc('ant.set_only_step', { role: Role.admin, write: true, input: OnlyStepArgs, summary: 'set_only_step {only_step}: comma-separated steps, entries not above 0 dropped, empty = all (001 §5); broadcasts set_only_step' })
  async setOnlyStep(a: z.output<typeof OnlyStepArgs>): Promise<{ only_step: string }> {
    const only_step = await this.settings.setOnlyStep(a.only_step);
    this.hub.broadcast('set_only_step', { only_step });
    this.hub.wake();
    return { only_step };
  }

  @Rpc('ant.server.get_status_used_proxy', { role: Role.admin, input: Empty, summary: 'server.get_status_used_proxy: {status} 0 Not used, 1 Used, 2 Used unique' })
  async getUsedProxy(): Promise<{ status: UsedProxyStatus }> {
    return { status: await this.settings.usedProxy() };
  }

  @Rpc('ant.server.set_status_used_proxy', { role: Role.admin, write: true, input: UsedProxyArgs, summary: 'server.set_status_used_proxy {status: 0|1|2}: with 1 or 2 every task goes through a proxy; broadcasts server.change' })
  async setUsedProxy(a: z.output<typeof UsedProxyArgs>): Promise<{ status: UsedProxyStatus }> {
    const status = await this.settings.setUsedProxy(a.status as UsedProxyStatus);
    this.hub.broadcast('server.change', { status_used_proxy: status });
    this.hub.wake();
    return { status };
  }

  // --- tasks ---------------------------------------------------------------------------------

  @Rpc('ant.ant_get_task_list', { role: Role.admin, input: Empty, summary: 'ant_get_task_list: the first 15 queued tasks [{Id, step, item, time}]' })
  taskList(): Promise<AntTaskView[]> {
    return this.queue.list();
  }

  @Rpc('ant.reload_task_list', { role: Role.admin, input: Empty, summary: 'reload_task_list: the task list again; also broadcast as task_list' })
  async reloadTaskList(): Promise<AntTaskView[]> {
    const list = await this.queue.list();
    this.hub.broadcast('task_list', list);
    return list;
  }

  @Rpc('ant.task.getStats', { role: Role.admin, input: Empty, summary: 'task.getStats: queued tasks per step [{step, description, count}]' })
  stats(): Promise<AntTaskStat[]> {
    return this.queue.stats();
  }

  @Rpc('ant.get_list_wait_task', { role: Role.admin, input: Empty, summary: 'get_list_wait_task: tasks under lease or waiting for a retry' })
  waitList(): Promise<AntWaitTask[]> {
    return this.queue.waitList();
  }

  @Rpc('ant.addTask', { role: Role.admin, write: true, input: AntAddTaskArgs, summary: '{step, item}: queues a task (the same step and item answers the existing one, duplicate: true): {Id, step, item, time, duplicate}' })
  async addTask(a: z.output<typeof AntAddTaskArgs>): Promise<AntAddTaskResult> {
    const r = await this.queue.add(a.step, a.item);
    auditTarget('ant_task', `${a.step}:${a.item.slice(0, 100)}`, r.task.Id);
    if (!r.duplicate) this.hub.tasksChanged(1);
    return { ...r.task, duplicate: r.duplicate };
  }

  @Rpc('ant.getUniqueness', { role: Role.admin, input: AntGetUniquenessArgs, summary: '{Id_book?}: uniqueness results (step 22): [{Id_book, url, similarity}] highest first' })
  async getUniqueness(a: z.output<typeof AntGetUniquenessArgs>): Promise<AntUniquenessRow[]> {
    const rows = await this.db.getRepository(AntUniquenessEntity).find({
      where: { result: 1, ...(a.Id_book ? { Id_book: a.Id_book } : {}) },
      order: { similarity_ppm: 'DESC', Id_book: 'ASC' },
      take: 1000,
    });
    return rows.map((r) => ({ Id_book: r.Id_book, url: r.url, similarity: r.similarity_ppm / 1_000_000 }));
  }

  // --- connections and commands ----------------------------------------------------------------

  @Rpc('ant.get_list_connections', { role: Role.admin, input: Empty, summary: 'get_list_connections: every ant connection of every instance (disconnected ones with isDisconnect)' })
  connections(): Promise<AntConnection[]> {
    return this.hub.connections();
  }

  @Rpc('ant.ant_start', { role: Role.admin, write: true, input: AntIdArgs, summary: "ant_start {id}: the ant's answer within 5 s {id, ok, message}" })
  start(a: z.output<typeof AntIdArgs>): Promise<AntCommandResult> {
    return this.cmd(a.id, 'hub.start');
  }

  @Rpc('ant.ant_stop', { role: Role.admin, write: true, input: AntIdArgs, summary: 'ant_stop {id}: {id, ok, message}' })
  stop(a: z.output<typeof AntIdArgs>): Promise<AntCommandResult> {
    return this.cmd(a.id, 'hub.stop');
  }

  @Rpc('ant.ant_reload', { role: Role.admin, write: true, input: AntIdArgs, summary: 'ant_reload {id}: the ant drops its task (back to the queue) and starts again if it was running: {id, ok, message}' })
  reload(a: z.output<typeof AntIdArgs>): Promise<AntCommandResult> {
    return this.cmd(a.id, 'hub.reload');
  }

  @Rpc('ant.ant_stop_all', { role: Role.admin, write: true, input: Empty, summary: 'ant_stop_all: stops every connected ant: [{id, ok, message}]' })
  stopAll(): Promise<AntCommandResult[]> {
    return this.hub.commandAll('hub.stop');
  }

  @Rpc('ant.ant_restart_all', { role: Role.admin, write: true, input: Empty, summary: 'ant_restart_all: reloads every connected ant: [{id, ok, message}]' })
  restartAll(): Promise<AntCommandResult[]> {
    return this.hub.commandAll('hub.reload');
  }

  @Rpc('ant.get_log', { role: Role.admin, input: GetLogArgs, summary: "get_log {id, lines? (100, 1-5000), type? ('out'|'err')}: the last lines of the ant's own log {id, type, lines, time}" })
  async getLog(a: z.output<typeof GetLogArgs>): Promise<AntLogResult> {
    try {
      return await this.hub.getLog(a.id, a.lines, a.type);
    } catch (err) {
      throw notFound((err as Error).message);
    }
  }

  private async cmd(id: string, cmd: 'hub.start' | 'hub.stop' | 'hub.reload'): Promise<AntCommandResult> {
    auditTarget('ant', id);
    const { answer: _a, ...r } = await this.hub.command(id, cmd, {});
    return r;
  }

  // --- proxies and AI accounts -----------------------------------------------------------------

  @Rpc('ant.get_proxy_list', { role: Role.admin, input: Empty, summary: 'get_proxy_list: [{Id, ip, login, pass (masked), fail_count, aside_until, last_error}]' })
  proxyList(): Promise<ProxyView[]> {
    return this.proxies.list();
  }

  @Rpc('ant.update_proxy_list', { role: Role.admin, input: Empty, summary: 'update_proxy_list: the proxy list again; also broadcast as proxy_list' })
  async updateProxyList(): Promise<ProxyView[]> {
    const list = await this.proxies.list();
    this.hub.broadcast('proxy_list', list);
    return list;
  }

  @Rpc('ant.addProxies', { role: Role.admin, write: true, input: ProxyAddArgs, summary: '{data: [{ip: "host:port", login, pass}]}: as POST /api/proxy/add (same ip:port updates): {message, inserted, updated, total}' })
  async addProxies(a: z.output<typeof ProxyAddArgs>): Promise<ProxyAddResult> {
    const r = await this.proxies.add(a.data);
    this.hub.broadcast('proxy_list', await this.proxies.list());
    this.hub.wake();
    return r;
  }

  @Rpc('ant.server.get_open_ai_account_preload_list', { role: Role.admin, input: Empty, summary: 'server.get_open_ai_account_preload_list: AI accounts [{Id, login, pass (masked), last_error, ttl_start, connects}]' })
  aiList(): Promise<AiAccountView[]> {
    return this.ai.list();
  }

  @Rpc('ant.server.open_ai.run_account_preload', { role: Role.admin, input: Empty, summary: 'server.open_ai.run_account_preload: re-reads the AI accounts and broadcasts server.open_ai.preload_list_change (docs/ant.md)' })
  async aiPreload(): Promise<AiAccountView[]> {
    const list = await this.ai.list();
    this.hub.broadcast('server.open_ai.preload_list_change', list);
    return list;
  }

  @Rpc('ant.server.open_ai.reset_account_error', { role: Role.admin, write: true, input: AiIdArgs, summary: 'server.open_ai.reset_account_error {Id}: clears last_error and ttl_start; broadcasts the list' })
  async aiReset(a: z.output<typeof AiIdArgs>): Promise<AiAccountView> {
    const v = await this.ai.resetError(a.Id);
    this.hub.broadcast('server.open_ai.preload_list_change', await this.ai.list());
    return v;
  }

  @Rpc('ant.addAiAccount', { role: Role.admin, write: true, input: AntAddAiAccountArgs, summary: '{login, pass}: adds an AI account (same login: new pass), the pass sealed: the account, pass masked' })
  async addAi(a: z.output<typeof AntAddAiAccountArgs>): Promise<AiAccountView> {
    const v = await this.ai.add(a.login, a.pass);
    this.hub.broadcast('server.open_ai.preload_list_change', await this.ai.list());
    return v;
  }

  // --- tokens ----------------------------------------------------------------------------------

  @Rpc('ant.createToken', { role: Role.admin, write: true, input: AntCreateTokenArgs, summary: '{name}: a new ant token, answered once: {Id, name, token} (only its hash is stored)' })
  async createToken(a: z.output<typeof AntCreateTokenArgs>): Promise<AntCreateTokenResult> {
    const r = await this.tokens.create(a.name);
    auditTarget('ant_token', r.name, r.Id);
    return r;
  }

  @Rpc('ant.listTokens', { role: Role.admin, input: Empty, summary: 'the ant tokens [{Id, name, created, last_used, revoked}] (never the token)' })
  listTokens(): Promise<AntTokenView[]> {
    return this.tokens.list();
  }

  @Rpc('ant.revokeToken', { role: Role.admin, write: true, input: AntTokenIdArgs, summary: '{Id}: revokes an ant token; its ants are disconnected at once' })
  async revokeToken(a: z.output<typeof AntTokenIdArgs>): Promise<AntTokenView> {
    const v = await this.tokens.revoke(a.Id);
    auditTarget('ant_token', v.name, v.Id);
    this.hub.disconnectToken(v.Id);
    return v;
  }
}
