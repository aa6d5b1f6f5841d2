import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Namespace, Socket } from 'socket.io';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import {
  ANT_COMMAND_TIMEOUT_MS, ANT_CONNECTIONS_DEBOUNCE_MS, ANT_NAMESPACE, ANT_OPERATOR_MESSAGES, ANT_TASK_LIST_DEBOUNCE_MS,
  antShingles, type AntBookShingles, type AntCommandResult, type AntConnection, type AntLeasedTask,
  type AntLogResult, type AntLogType, type AntServerEvents, type AntStatus, type HubToAnt,
} from '../../../contracts/ant.js';
import { SOCKET_CLIENT_STATUS } from '../../../contracts/constants.js';
import { RealtimeService } from '../../../core/realtime/realtime.service.js';
import { AntSettingsService } from '../ant-settings.service.js';
import { AntTokensService } from '../ant-tokens.service.js';
import { ProxiesService } from '../proxies/proxies.service.js';
import { TaskQueueService } from '../queue/task-queue.service.js';

/** How often each instance returns expired leases to the queue. */
const SWEEP_MS = 5_000;
/** Disconnected ants kept per instance for the Disconnect list. */
const KEEP_DISCONNECTED = 100;
const BOOKS_PAGE = 50;

/** What a connected ant sends, checked (an ant is a program on the network: its input is validated like any other). */
const StatusIn = z.object({ isStop: z.boolean(), status: z.enum(['work', 'wait', 'stop']), steps: z.array(z.number().int()).max(100).default([]) });
const NextIn = z.object({ steps: z.array(z.number().int()).max(100).optional() }).default({});
const LeaseIn = z.object({ Id: z.number().int().positive(), lease: z.string().min(1).max(64) });
const Url = z.string().min(1).max(2000);
const DoneIn = LeaseIn.extend({
  ms: z.number().min(0).max(86_400_000).default(0),
  out: z.object({
    tasks: z.array(z.object({ step: z.number().int().positive().max(1000), item: z.string().min(1).max(2000) })).max(5000).optional(),
    page: z.object({ url: Url, title: z.string().max(2000), text: z.string().max(200_000) }).optional(),
    marks: z.array(z.object({ url: Url, Id_book: z.number().int().positive(), similarity: z.number().min(0).max(1) })).max(1000).optional(),
    result: z.object({ url: Url }).optional(),
  }).default({}),
});
const FailIn = LeaseIn.extend({ error: z.string().max(2000), proxyError: z.boolean().optional(), final: z.boolean().optional() });
const ShinglesIn = z.object({ after: z.number().int().min(0).default(0) }).default({ after: 0 });
const LogIn = z.object({ type: z.enum(['out', 'err']), lines: z.array(z.string().max(10_000)).max(1000) });

interface Local {
  socket: Socket;
  conn: AntConnection;
  steps: number[];
  /** The proxy of the task being worked (for failure counting). */
  proxyId: number | null;
  /** Its last request for a task got none: a wake-up is worth sending it. */
  idle: boolean;
  /** An ant_change to operators is due (changes of one ant within CHANGE_MS go out as one). */
  changeTimer?: NodeJS.Timeout;
}

/** Changes of one ant within this many ms reach operators as one ant_change (the page debounces 1 s). */
const CHANGE_MS = 100;

type Ack = (answer: unknown) => void;

/**
 * The ant hub (docs/ant.md "Hub"): the ANT_NAMESPACE socket.io namespace on the console's port,
 * authenticated by ant token; hands tasks out of the shared database queue with leases; keeps each
 * ant's connection view in `socket.data.conn` (read across instances with fetchSockets through the
 * Redis adapter); sends hub→ant commands with acknowledgement deadlines (they reach an ant on any
 * instance: the adapter carries acks); tells operators (admins' room) what changed.
 */
@Injectable()
export class AntHubService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('AntHub');
  readonly instance = `${hostname()}-${randomUUID().slice(0, 8)}`;
  private nsp?: Namespace;
  private readonly local = new Map<string, Local>();
  private disconnected: AntConnection[] = [];
  private sweep?: NodeJS.Timeout;
  private taskTimer?: NodeJS.Timeout;
  private listTimer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly realtime: RealtimeService,
    private readonly tokens: AntTokensService,
    private readonly settings: AntSettingsService,
    private readonly queue: TaskQueueService,
    private readonly proxies: ProxiesService,
  ) {}

  onApplicationBootstrap() {
    const nsp = this.realtime.peerNamespace(ANT_NAMESPACE);
    if (!nsp) {
      this.log.warn('No socket.io server: the ant hub is off');
      return;
    }
    this.nsp = nsp;
    nsp.use(async (socket, next) => {
      const token = await this.tokens.verify(socket.handshake.auth?.token).catch(() => null);
      if (!token) return next(new Error('Invalid ant token'));
      socket.data.tokenId = token.Id;
      socket.data.tokenName = token.name;
      next();
    });
    nsp.on('connection', (socket) => this.onConnect(socket));
    if (this.cfg.redisUrl) {
      // The other instances' Disconnect lists, for get_list_connections.
      nsp.on('ant:disconnected', (cb: (list: AntConnection[]) => void) => cb(this.disconnected));
      // Tasks queued on another instance: wake as many of this instance's idle ants.
      nsp.on('ant:wake', (n: number) => {
        this.queue.arrived();
        this.wakeLocal(Number(n));
      });
    }
    this.sweep = setInterval(() => void this.expire(), SWEEP_MS);
    this.sweep.unref();
  }

  async onModuleDestroy() {
    clearInterval(this.sweep);
    clearTimeout(this.taskTimer);
    clearTimeout(this.listTimer);
    for (const l of this.local.values()) l.socket.disconnect(true);
  }

  // ------------------------------------------------------------------------------------------
  // Ant side

  private onConnect(socket: Socket) {
    const a = socket.handshake.auth ?? {};
    const name = typeof a.name === 'string' && a.name.trim() ? a.name.trim().slice(0, 64) : String(socket.data.tokenName);
    const host = typeof a.host === 'string' && a.host.trim() ? a.host.trim().slice(0, 190) : socket.handshake.address;
    const now = Date.now();
    const conn: AntConnection = {
      id: socket.id, host, name, worker: this.instance, status: 'stop', isStop: true, isDisconnect: false,
      time: now, updateList: now, count_send: 0, avg_time_work: 0, proxy: null, task: null,
    };
    socket.data.conn = conn;
    void socket.join(`ant-token:${socket.data.tokenId}`);
    const l: Local = { socket, conn, steps: [], proxyId: null, idle: false };
    this.local.set(socket.id, l);
    this.log.log(`ant ${name} (${host}) connected as ${socket.id}`);

    const on = <S extends z.ZodType>(event: string, schema: S, fn: (v: z.output<S>) => Promise<unknown> | unknown) => {
      socket.on(event, async (raw: unknown, ack?: Ack) => {
        const cb = typeof ack === 'function' ? ack : typeof raw === 'function' ? (raw as Ack) : undefined;
        const p = schema.safeParse(typeof raw === 'function' ? undefined : raw);
        if (!p.success) {
          const message = `Bad ${event}: ${p.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
          this.log.warn(`${socket.id}: ${message}`);
          return cb?.({ ok: false, message });
        }
        try {
          const answer = await fn(p.data); // not inside cb?.(...): without an ack the call would be skipped
          cb?.(answer);
        } catch (err) {
          this.log.warn(`${event} from ${socket.id} failed: ${(err as Error).message}`);
          cb?.({ ok: false, message: (err as Error).message });
        }
      });
    };
    on('ant.status', StatusIn, async (v) => {
      l.steps = v.steps;
      // A stopped ant lets go of its 'Used unique' proxy.
      if (v.isStop) await this.proxies.releaseOwner(socket.id);
      this.change(l, { isStop: v.isStop, status: v.status as AntStatus });
      return { ok: true };
    });
    on('ant.next', NextIn, async (v) => {
      // idle from the answer on (not during the call: a wake-up sent meanwhile would find no listener)
      const r = await this.next(l, v.steps).catch((err: unknown) => { l.idle = true; throw err; });
      l.idle = !r.task;
      return r;
    });
    on('ant.heartbeat', LeaseIn, async (v) => {
      const until = await this.queue.renew(v.Id, v.lease);
      return { ok: until !== null, leaseUntil: until ?? 0 };
    });
    on('ant.done', DoneIn, async (v) => {
      const ok = await this.queue.complete(v.Id, v.lease, v.out);
      if (ok) {
        if (l.proxyId) await this.proxies.worked(l.proxyId);
        const n = l.conn.count_send + 1;
        this.change(l, { count_send: n, avg_time_work: Math.round((l.conn.avg_time_work * (n - 1) + v.ms) / n), task: null });
        this.tasksChanged(v.out.tasks?.length ?? 0);
      }
      return ok ? { ok } : { ok, message: 'The lease of this task is no longer held' };
    });
    on('ant.fail', FailIn, async (v) => {
      if (v.proxyError && l.proxyId) await this.proxies.failed(l.proxyId, v.error);
      const ok = await this.queue.fail(v.Id, v.lease, v.error, v.final);
      this.change(l, { task: null });
      this.tasksChanged(0);
      if (v.proxyError) this.realtime.emit('proxy_list', await this.proxies.list(), 1);
      return { ok };
    });
    on('ant.book_shingles', ShinglesIn, (v) => this.bookShingles(v.after));
    on('ant.log', LogIn, (v) => {
      if (v.lines.length) this.realtime.emit('stream_logs', { id: socket.id, type: v.type as AntLogType, lines: v.lines }, 1);
    });
    // An ant may not send operator messages (those go over an operator's session socket, role 1).
    const operator = new Set<string>(ANT_OPERATOR_MESSAGES);
    socket.onAny((event: string, ...args: unknown[]) => {
      if (!operator.has(event)) return;
      const cb = args.at(-1);
      if (typeof cb === 'function') (cb as Ack)({ status: 'error', code: 403, message: 'Ants cannot send operator messages' });
    });
    socket.on('disconnect', (reason) => void this.onDisconnect(l, reason));
    this.realtime.emit('ant_change', conn, 1);
    this.listChanged();
  }

  private async onDisconnect(l: Local, reason: string) {
    this.local.delete(l.socket.id);
    clearTimeout(l.changeTimer);
    const back = await this.queue.releaseOwner(l.socket.id).catch(() => 0);
    await this.proxies.releaseOwner(l.socket.id).catch(() => undefined);
    l.conn = { ...l.conn, isDisconnect: true, status: 'disconnect', time: Date.now(), updateList: Date.now(), task: null };
    this.disconnected = [l.conn, ...this.disconnected.filter((c) => c.id !== l.conn.id)].slice(0, KEEP_DISCONNECTED);
    this.log.log(`ant ${l.conn.name} (${l.socket.id}) disconnected (${reason}); ${back} task(s) back to the queue`);
    this.realtime.emit('ant_change', l.conn, 1);
    this.listChanged();
    if (back) this.tasksChanged(back);
  }

  private change(l: Local, patch: Partial<AntConnection>) {
    l.conn = { ...l.conn, ...patch, updateList: Date.now() };
    l.socket.data.conn = l.conn;
    l.changeTimer ??= setTimeout(() => {
      l.changeTimer = undefined;
      if (this.local.has(l.socket.id)) this.realtime.emit('ant_change', l.conn, 1);
    }, CHANGE_MS);
  }

  /** Hands the next task to a connected ant: the worker switch on, the ant started, a step allowed, a proxy when the mode asks for one. */
  private async next(l: Local, asked?: number[]): Promise<{ task: AntLeasedTask | null; message?: string }> {
    if (l.conn.isStop) return { task: null, message: 'The ant is stopped' };
    const settings = await this.settings.handOut();
    if (!settings.worker) return { task: null, message: 'The worker is stopped' };
    const only = settings.onlyStep;
    let steps = asked?.length ? asked : l.steps;
    if (only.length) steps = steps.length ? steps.filter((s) => only.includes(s)) : only;
    if (!steps.length) return { task: null, message: 'No step of this ant is allowed by only-step' };
    const mode = settings.usedProxy;
    const proxy = await this.proxies.pick(l.socket.id, mode);
    if (mode !== 0 && !proxy) return { task: null, message: 'No proxy available' };
    const t = await this.queue.lease(l.socket.id, l.conn.name, steps);
    if (!t) return { task: null };
    l.proxyId = proxy?.Id ?? null;
    const task: AntLeasedTask = { Id: t.Id, step: t.step, item: t.item, time: t.time, lease: t.lease, leaseUntil: t.lease_until, attempts: t.attempts, proxy };
    if (t.step === 3) {
      const page = await this.queue.page(t.item);
      if (page) task.data = { text: page.body ?? '', title: page.title ?? '' };
    }
    this.change(l, { status: 'work', task: { Id: t.Id, step: t.step, item: t.item, time: t.time }, proxy: proxy?.ip ?? null });
    this.tasksChanged(0);
    return { task };
  }

  /** Hashed shingles of every book page, 50 books a call (docs/ant.md "Similarity"). */
  private async bookShingles(after: number): Promise<{ books: AntBookShingles[]; next: number | null; version: string }> {
    const ids: { Id_book: number | string }[] = await this.db.query(
      'SELECT DISTINCT bid AS Id_book FROM pages WHERE bid > ? ORDER BY bid ASC LIMIT ?', [after, BOOKS_PAGE + 1]);
    const page = ids.slice(0, BOOKS_PAGE).map((r) => Number(r.Id_book));
    const books: AntBookShingles[] = [];
    if (page.length) {
      const rows: { bid: number | string; num: number | string; body: string | null }[] = await this.db.query(
        `SELECT bid, num, body FROM pages WHERE bid IN (${page.map(() => '?').join(',')}) ORDER BY bid, num`, page);
      const by = new Map<number, AntBookShingles>();
      for (const r of rows) {
        const bid = Number(r.bid);
        let b = by.get(bid);
        if (!b) by.set(bid, (b = { Id_book: bid, pages: [] }));
        const text = String(r.body ?? '').replace(/<[^>]*>/g, ' ');
        b.pages.push({ num: Number(r.num), shingles: antShingles(text) });
      }
      books.push(...by.values());
    }
    const [v] = await this.db.query('SELECT COUNT(*) AS n, MAX(bid) AS m, SUM(LENGTH(body)) AS s FROM pages');
    const version = createHash('sha256').update(`${v?.n}:${v?.m}:${v?.s}`).digest('hex').slice(0, 16);
    return { books, next: ids.length > BOOKS_PAGE ? page[page.length - 1] : null, version };
  }

  // ------------------------------------------------------------------------------------------
  // Operator side (AntService's RPC methods call these)

  /** Every connection: connected ones of every instance (their socket data), then the Disconnect lists. */
  async connections(): Promise<AntConnection[]> {
    if (!this.nsp) return [];
    const sockets = await this.nsp.fetchSockets();
    const live = sockets.map((s) => s.data.conn as AntConnection).filter(Boolean);
    // The operators' own console sockets (status 'moder', SOCKET_CLIENT_STATUS) are listed too, without buttons.
    {
      for (const s of await this.realtime.operatorSockets(1)) {
        if (s.data.status !== SOCKET_CLIENT_STATUS) continue;
        const actor = s.data.actor as { name?: string; login?: string } | undefined;
        const time = Date.parse(s.handshake.time) || 0;
        live.push({
          id: s.id, host: s.handshake.address, name: actor?.name ?? actor?.login ?? 'operator', worker: '', status: 'moder',
          isStop: false, isDisconnect: false, time, updateList: time, count_send: 0, avg_time_work: 0, proxy: null, task: null,
        });
      }
    }
    let gone = [...this.disconnected];
    if (this.cfg.redisUrl) {
      try {
        const others = (await Promise.race([
          this.nsp.serverSideEmitWithAck('ant:disconnected'),
          new Promise((_r, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
        ])) as AntConnection[][];
        for (const list of others) gone.push(...list);
      } catch {
        /* an instance did not answer in time: its Disconnect list is left out */
      }
    }
    const liveIds = new Set(live.map((c) => c.id));
    gone = gone.filter((c) => !liveIds.has(c.id)).sort((a, b) => b.time - a.time);
    return [...live.sort((a, b) => a.time - b.time), ...gone];
  }

  /** A hub→ant command with its deadline; the ant may be on any instance. */
  async command<K extends keyof HubToAnt>(id: string, cmd: K, args: HubToAnt[K]['args']): Promise<AntCommandResult & { answer?: HubToAnt[K]['result'] }> {
    if (!this.nsp) return { id, ok: false, message: 'The ant hub is off' };
    try {
      const answers = (await this.nsp.to(id).timeout(ANT_COMMAND_TIMEOUT_MS).emitWithAck(cmd, args)) as HubToAnt[K]['result'][];
      if (!answers.length) return { id, ok: false, message: 'Ant not connected' };
      const a = answers[0] as { ok?: boolean; message?: string } | undefined;
      return { id, ok: a?.ok !== false, message: a?.message ?? 'ok', answer: answers[0] };
    } catch {
      return { id, ok: false, message: `No answer within ${ANT_COMMAND_TIMEOUT_MS} ms` };
    }
  }

  async commandAll(cmd: 'hub.stop' | 'hub.reload'): Promise<AntCommandResult[]> {
    const live = (await this.connections()).filter((c) => !c.isDisconnect && c.status !== 'moder');
    return Promise.all(live.map(async (c) => {
      const { answer: _a, ...r } = await this.command(c.id, cmd, {});
      return r;
    }));
  }

  async getLog(id: string, lines: number, type: AntLogType): Promise<AntLogResult> {
    const r = await this.command(id, 'hub.get_log', { lines, type });
    if (!r.ok || !r.answer) throw Object.assign(new Error(r.message), { status: 404 });
    return { id, type, lines: r.answer.lines ?? [], time: Date.now() };
  }

  /** An operator event to the admins' room (every instance). */
  broadcast<K extends keyof AntServerEvents>(event: K, payload: AntServerEvents[K]) {
    this.realtime.emit(event, payload as never, 1);
  }

  /**
   * Ants should ask for a task again. `n` tasks arrived (or came back): up to `n` idle ants of each
   * instance are woken (an ant that is working asks by itself when it is done, and one not woken asks
   * within its idle poll); without `n` (the worker switched on, only-step or the proxies changed) every
   * idle ant is. Waking all ants for every task queued made them all ask at once, nearly all in vain.
   */
  wake(n = Infinity) {
    if (n <= 0) return;
    this.wakeLocal(n);
    if (this.cfg.redisUrl) this.nsp?.serverSideEmit('ant:wake', Number.isFinite(n) ? n : 1e9);
  }

  private wakeLocal(n: number) {
    for (const l of this.local.values()) {
      if (n <= 0) break;
      if (!l.idle || l.conn.isStop) continue;
      l.idle = false;
      this.realtime.emitToPeer(l.socket, 'hub.wake', {});
      n--;
    }
  }

  /** The queue changed: operators get the task list and stats (debounced); `wake` tasks are ready for ants. */
  tasksChanged(wake: number) {
    this.wake(wake);
    if (this.taskTimer) return;
    this.taskTimer = setTimeout(() => {
      this.taskTimer = undefined;
      void this.pushTasks().catch(() => undefined);
    }, ANT_TASK_LIST_DEBOUNCE_MS);
    this.taskTimer.unref();
  }

  async pushTasks() {
    this.realtime.emit('task_list', await this.queue.list(), 1);
    this.realtime.emit('task.stats', await this.queue.stats(), 1);
    this.realtime.emit('list_wait_task', await this.queue.waitList(), 1);
  }

  private listChanged() {
    if (this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = undefined;
      void this.connections().then((l) => this.realtime.emit('ant_list', l, 1)).catch(() => undefined);
    }, ANT_CONNECTIONS_DEBOUNCE_MS);
    this.listTimer.unref();
  }

  /** Ants of a revoked token are disconnected (on every instance). */
  disconnectToken(tokenId: number) {
    this.nsp?.in(`ant-token:${tokenId}`).disconnectSockets(true);
  }

  private async expire() {
    const n = await this.queue.expire().catch(() => 0);
    if (n) {
      this.log.log(`${n} expired lease(s): task(s) back to the queue`);
      this.tasksChanged(n);
    }
  }
}
