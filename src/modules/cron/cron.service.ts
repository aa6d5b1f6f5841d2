import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import type { z } from 'zod';
import type { Paged } from '../../contracts/auth.js';
import {
  actionArgument, actionCmdOf, actionName, CRON_DEFAULTS, CRON_FIELDS, CRON_LABELS, CronCmdError, CronGetArgs, CronIdArgs, CronRunsArgs, CronSaveArgs, CronServiceArgs,
  fillCronSecrets, parseCronCmd, serializeCronCmd, validateCronTask, type CronAction, type CronCmd, type CronSecrets, type CronRunView, type CronServiceStatus, type CronStatus, type CronTask, type CronTaskInput,
  type CronTaskView,
} from '../../contracts/cron.js';
import { Role, roleAllows } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { UserEntity } from '../../core/auth/user.entity.js';
import { SecretBox } from '../../core/crypto/secret-box.js';
import { AppError, fromZod, notFound } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { RpcRegistry } from '../../core/rpc/rpc.registry.js';
import { CronEngine } from './cron-engine.js';
import { CronHistory } from './cron-history.js';
import { CronTaskEntity } from './cron.entities.js';
import { openSecrets, resolveSecrets, sealSecrets } from './cron-secret.js';

export const toCronTask = (t: CronTaskEntity): CronTask => ({
  Id: t.Id, name: t.name, second: t.second, minute: t.minute, hour: t.hour, day: t.day, month: t.month, week: t.week,
  cmd: t.cmd, suspended: t.suspended ? 1 : 0, added: t.added.toISOString(), uid: t.uid,
});

/**
 * Cron tasks (000 §3, §5, §7): list, one, save, delete, and the engine's controls (status, reload,
 * kill, run now, the service switch) plus each task's run history. The socket messages of 000 §7 run
 * these same methods (src/gateways/cron.gateway.ts).
 */
@Injectable()
export class CronService {
  constructor(
    @InjectRepository(CronTaskEntity) private readonly tasks: Repository<CronTaskEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly engine: CronEngine,
    private readonly history: CronHistory,
    private readonly registry: RpcRegistry,
    private readonly box: SecretBox,
  ) {}

  private async views(rows: CronTaskEntity[]): Promise<CronTaskView[]> {
    const uids = [...new Set(rows.map((r) => r.uid).filter((u): u is number => !!u))];
    const users = uids.length ? await this.users.find({ select: { uid: true, login: true }, where: { uid: In(uids) } }) : [];
    const login = new Map(users.map((u) => [u.uid, u.login]));
    return rows.map((r) => {
      const { Id: _, ...state } = this.engine.stateNow(r.Id);
      return { ...toCronTask(r), ...state, saved_by: r.uid ? (login.get(r.uid) ?? null) : null };
    });
  }

  @Rpc('cfg.getAppCron', { role: Role.admin, input: CronGetArgs, summary: '{Id?}: one cron task with its live state, or (without Id) every task by Id: {Id, name, second..week, cmd, suspended, added, uid, saved_by, running, started, last_start, last_end, last_status, last_message, last_duration_ms, next_run}' })
  async get(a: z.output<typeof CronGetArgs>): Promise<CronTaskView | CronTaskView[]> {
    if (a.Id === undefined) return this.views(await this.tasks.find({ order: { Id: 'ASC' } }));
    const t = await this.tasks.findOne({ where: { Id: a.Id } });
    if (!t) throw notFound(`Cron task ${a.Id} not found`);
    return (await this.views([t]))[0];
  }

  /**
   * Checks the merged task: 000 §5 (Name and CMD required), each schedule field, the cmd's shape, and
   * for an action that it exists, that the saving admin may call it and that it accepts the arguments
   * (`real`: the cmd with its stored secrets filled in, null when they cannot be opened).
   */
  private check(t: CronTaskInput, ctx: RpcContext, errors: Record<string, string>, real: () => CronCmd | null) {
    if (!errors.cmd) {
      const cmd = parseCronCmd(t.cmd);
      if (cmd.kind === 'action') {
        const name = actionName(cmd);
        const m = this.registry.get(name);
        const withSecrets = real();
        if (!m) errors.cmd = `cmd: unknown action '${name}' (path=${cmd.path}|method=${cmd.method} names no method of this console)`;
        else if (!roleAllows(ctx.actor.role, m.role)) errors.cmd = `cmd: your role may not run '${name}'`;
        else if (m.input && withSecrets?.kind === 'action') {
          const r = m.input.safeParse(actionArgument(withSecrets.args) ?? {});
          if (!r.success) errors.cmd = `cmd: arguments of '${name}': ${fromZod(r.error).message}`;
        }
      }
    }
    if (Object.keys(errors).length) throw new AppError(422, Object.values(errors).join('; '), 'rules', errors);
  }

  @Rpc('cron.getActions', { role: Role.admin, summary: "The console's methods a cron task can run (state-changing, canonical names, allowed to the caller), by name: [{name, cmd: 'path=..|method=..', summary, args: required argument names}]; the form suggests these" })
  getActions(_: unknown, ctx: RpcContext): CronAction[] {
    const out: CronAction[] = [];
    for (const m of this.registry.list()) {
      // Reads are left out (a task would only log their answer); aliases would list a method twice.
      if (!m.write || m.aliasOf || !roleAllows(ctx.actor.role, m.role)) continue;
      const cmd = actionCmdOf(m.name);
      if (!cmd) continue;
      // What a task without arg= lacks: the fields the method's input refuses when given nothing.
      const r = m.input?.safeParse({});
      const args = r && !r.success ? [...new Set(r.error.issues.map((i) => i.path.join('.') || 'arg'))] : [];
      out.push({ name: m.name, cmd, summary: m.summary ?? '', args });
    }
    return out;
  }

  /** The stored cmd of a task and its secrets, opened on demand (cron-secret.ts); null when the cmd does not parse. */
  private storedSecrets(old: CronTaskEntity | null): { cmd: CronCmd; secrets: () => CronSecrets } | null {
    if (!old) return null;
    let cmd: CronCmd;
    try { cmd = parseCronCmd(old.cmd); } catch { return null; }
    return {
      cmd,
      secrets: () => {
        try { return openSecrets(this.box, old.cmd_secret); } catch { throw new CronCmdError('the stored credentials cannot be decrypted (was SECRET_KEY changed?): type them again'); }
      },
    };
  }

  /**
   * The cmd to store and its sealed secrets (cron-secret.ts): a `curl=` URL's user part, secret query
   * parameters and secret arguments are sealed and the cmd keeps them masked; a `***` saved back keeps
   * the stored value when the task still goes to the same scheme, host and port (or action); a cmd
   * without them drops them. Also the cmd with the secrets, for the checks.
   */
  private sealSecrets(text: string, old: CronTaskEntity | null): { cmd: string; cmd_secret: string | null; real: CronCmd } {
    const r = resolveSecrets(parseCronCmd(text), this.storedSecrets(old));
    return { cmd: serializeCronCmd(r.masked), cmd_secret: sealSecrets(this.box, r.secrets), real: r.real };
  }

  @Rpc('cfg.saveAppCron', {
    role: Role.admin, write: true, input: CronSaveArgs, aliases: ['saveAppCron'],
    summary: "Cron task fields {Id?, name, second, minute, hour, day, month, week, cmd, suspended}: without Id creates (name and cmd required; schedule defaults 0 * * * * *), with Id changes the fields given; answers {Id, message: 'Save is ok!'}. Refused (422, naming the field) for a bad schedule field, an empty name or cmd, an unknown action",
  })
  async save(a: CronSaveArgs, ctx: RpcContext): Promise<{ Id: number; message: string }> {
    const old = a.Id !== undefined ? await this.tasks.findOne({ where: { Id: a.Id } }) : null;
    if (a.Id !== undefined && !old) throw notFound(`Cron task ${a.Id} not found`);
    if (old) auditTarget('cron task', old.name, old.Id);
    const merged: CronTaskInput = {
      name: (a.name ?? old?.name ?? '').trim(),
      cmd: (a.cmd ?? old?.cmd ?? '').trim(),
      ...Object.fromEntries(CRON_FIELDS.map((f) => [f, String(a[f] ?? old?.[f] ?? CRON_DEFAULTS[f]).trim()])),
    } as CronTaskInput;
    // The cmd as given (masked values are fine), then its secrets (refusals name the cmd), then the action's arguments with them.
    const errors = validateCronTask(merged) ?? {};
    let sealed: { cmd: string; cmd_secret?: string | null; real: CronCmd | null } | null = null;
    if (!errors.cmd) {
      try {
        if (a.cmd !== undefined) sealed = this.sealSecrets(merged.cmd, old);
        else {
          const was = this.storedSecrets(old);
          let real: CronCmd | null = null;
          try { real = was ? fillCronSecrets(was.cmd, was.secrets()) : null; } catch { /* not opened: the arguments are not checked */ }
          sealed = { cmd: serializeCronCmd(parseCronCmd(merged.cmd)), real };
        }
      } catch (err) {
        if (!(err instanceof CronCmdError)) throw err;
        errors.cmd = `cmd: ${err.message}`;
      }
    }
    this.check(merged, ctx, errors, () => sealed?.real ?? null);
    const { real: _, ...stored } = sealed!;
    const row: Partial<CronTaskEntity> = {
      ...merged,
      ...stored,
      suspended: a.suspended ?? old?.suspended ?? 0,
      uid: ctx.actor.uid,
    };
    let Id: number;
    if (old) {
      await this.tasks.update({ Id: old.Id }, { ...row, updated: new Date() });
      Id = old.Id;
    } else {
      const r = await this.tasks.insert({ ...row, added: new Date(), updated: null });
      Id = (r.identifiers[0] as { Id: number }).Id;
      auditTarget('cron task', merged.name, Id);
    }
    await this.engine.reload();
    return { Id, message: CRON_LABELS.saveOk };
  }

  @Rpc('cfg.appCronDelete', { role: Role.admin, write: true, input: CronIdArgs, aliases: ['deleteAppCron'], summary: "{Id} (or the Id): deletes a cron task, stops its schedule, kills a run in progress and drops its history; answers {Id, message: 'Delete is ok!'}" })
  async remove(a: z.output<typeof CronIdArgs>): Promise<{ Id: number; message: string }> {
    const t = await this.tasks.findOne({ where: { Id: a.Id } });
    if (!t) throw notFound(`Cron task ${a.Id} not found`);
    auditTarget('cron task', t.name, t.Id);
    await this.tasks.delete({ Id: a.Id });
    await this.engine.forget(a.Id);
    await this.history.forget(a.Id);
    await this.engine.reload();
    return { Id: a.Id, message: CRON_LABELS.deleteOk };
  }

  @Rpc('cron.getRuns', { role: Role.admin, input: CronRunsArgs, summary: "{Id, page?, limit?}: a task's run history, newest first: {list: [{Id, task_id, source: tick|manual, scheduled, started, ended, status: ok|error|killed|skipped, message, output (tail), duration_ms, instance, uid}], count, page, limit}" })
  async runs(a: z.output<typeof CronRunsArgs>): Promise<Paged<CronRunView>> {
    if (!(await this.tasks.exists({ where: { Id: a.Id } }))) throw notFound(`Cron task ${a.Id} not found`);
    return this.history.list(a.Id, a.page, a.limit);
  }

  @Rpc('cron.getStatus', { role: Role.admin, summary: '{service, scheduling, tasks: [{Id, running, started, last_start, last_end, last_status, last_message, last_duration_ms, next_run}]}' })
  status(): Promise<CronStatus> {
    return this.engine.status();
  }

  @Rpc('cron.reload', { role: Role.admin, write: true, summary: 'Re-reads the tasks and the service switch (after edits made elsewhere) on every instance; answers the status' })
  async reload(): Promise<CronStatus> {
    await this.engine.reload();
    return this.engine.status();
  }

  @Rpc('cron.kill', { role: Role.admin, write: true, input: CronIdArgs, summary: "{Id}: aborts the task's running request or signals its action to stop; the run is recorded as killed: {Id, killed, message}; 409 when it is not running" })
  kill(a: z.output<typeof CronIdArgs>) {
    return this.engine.kill(a.Id);
  }

  @Rpc('cron.executeTask', { role: Role.admin, write: true, input: CronIdArgs, summary: "{Id}: runs the task now, once (also when paused or with the service off); answers when it has started: {Id, message: 'Started'}; 409 when it is running" })
  async execute(a: z.output<typeof CronIdArgs>, ctx: RpcContext): Promise<{ Id: number; message: string }> {
    await this.engine.runNow(a.Id, ctx.actor.uid);
    return { Id: a.Id, message: 'Started' };
  }

  @Rpc('cron.getServiceStatus', { role: Role.admin, summary: '{service: 1 on | 0 off (persisted, every instance), scheduling: whether this instance runs schedules (CRON_ENABLED)}' })
  serviceStatus(): CronServiceStatus {
    return this.engine.serviceStatus();
  }

  @Rpc('cron.setServiceStatus', { role: Role.admin, write: true, input: CronServiceArgs, summary: '{service: 0|1} (or {status}): the cron service switch; off stops every schedule (running tasks finish); answers {service, scheduling}' })
  setService(a: z.output<typeof CronServiceArgs>): Promise<CronServiceStatus> {
    return this.engine.setService(a.service === 1);
  }
}
