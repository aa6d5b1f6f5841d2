import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'socket.io';
import type { ClientChannel } from 'ssh2';
import type { z } from 'zod';
import {
  CONSOLE_CONFIG_TYPE, CONSOLE_PER_SOCKET, CONSOLE_TAIL_LINES, ConsoleCloseArgs, ConsoleOpenArgs, parseConsoleApp,
  type ConsoleApp, type ConsoleDataEvent, type ConsoleOpenResult, type ConsoleStatusEvent,
} from '../../contracts/deploy.js';
import { Role } from '../../contracts/roles.js';
import type { Actor } from '../../core/auth/actor.js';
import { AppError, notFound, tooMany } from '../../core/errors.js';
import { CHANNEL_ROLE_MESSAGE, LiveChannels, type LiveChannel } from '../../core/realtime/live-channels.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SshService, type SshConnection } from '../../core/ssh/ssh.service.js';
import { CfgConfigsService } from '../cfg-configs/cfg-configs.service.js';
import { SrvService } from '../srv/srv.service.js';

/** Nodes one console tails at most. */
export const CONSOLE_MAX_NODES = 20;
/** Tails open in this process at most (each holds an SSH connection of SshService's bound of 64). */
export const CONSOLE_MAX_TAILS = 32;
/** Output of one node is sent at most this often, in one event (a burst of 150 lines is one message). */
const FLUSH_MS = 50;
/** Characters of one node's output buffered for a slow socket before the oldest are dropped. */
const BUFFER_MAX = 256 * 1024;

interface Tail {
  node: string;
  conn: SshConnection | null;
  channel: ClientChannel | null;
  closed: boolean;
}
interface Console {
  key: string;
  socket: Socket;
  /** The stream to the socket (LiveChannels): ends the console when the socket's role no longer allows it, or it disconnects. */
  channel: LiveChannel;
  tails: Tail[];
}

/**
 * `tail -n 150 -F` of a log path (checked by CONSOLE_LOG_PATH, quoted anyway) that ends when the
 * channel does: the shell waits on stdin, which closes with the channel, then stops the tail (a tail
 * of a quiet log would otherwise only notice its closed output at its next write).
 */
export const tailCommand = (path: string) =>
  `tail -n ${CONSOLE_TAIL_LINES} -F '${path.replace(/'/g, `'\\''`)}' & t=$!; read _; kill $t 2>/dev/null`;

/**
 * The server console (000 §2 "Server console", §7 "a write event that runs a process-log tail for 150
 * lines"): an app named by a cluster config row `console_app` (`name|/log/path[|types]`) is tailed with
 * `tail -n 150 -F` on each node of those server types (on), each node's output streamed to the socket
 * that asked, until that socket closes the console, disconnects or its session ends (SocketSessions
 * disconnects the sockets of an ended session; the disconnect closes every tail of the socket).
 */
@Injectable()
export class ConsoleService implements OnApplicationShutdown {
  private readonly log = new Logger('ServerConsole');
  private readonly consoles = new Map<string, Console>();
  private tailsOpen = 0;

  constructor(
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly cfgs: CfgConfigsService,
    private readonly channels: LiveChannels,
  ) {}

  onApplicationShutdown() {
    for (const key of [...this.consoles.keys()]) this.close(key, 'Console stopped');
  }

  @Rpc('deploy.getConsoleApps', { role: Role.admin, summary: "Apps the server console can tail, from the cluster config rows of type 'console_app' (name|/log/path[|types]): [{name, path, types}]" })
  async apps(): Promise<ConsoleApp[]> {
    const rows = await this.cfgs.getConfigs({ type: CONSOLE_CONFIG_TYPE });
    const out = new Map<string, ConsoleApp>();
    for (const r of rows) {
      const app = parseConsoleApp(r.value);
      if (app && !out.has(app.name)) out.set(app.name, app);
    }
    return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Opens a console on this socket: one tail per node. Answers once the nodes are known; output follows as events. */
  async open(socket: Socket, actor: Actor, a: z.output<typeof ConsoleOpenArgs>): Promise<ConsoleOpenResult> {
    const app = (await this.apps()).find((x) => x.name === a.app);
    if (!app) throw notFound(`Unknown app '${a.app}': add a cluster config row of type '${CONSOLE_CONFIG_TYPE}'`);
    const natural = new Intl.Collator('en', { numeric: true });
    const nodes = (await this.srv.getList())
      .filter((s) => app.types.includes(s.type) && s.status === 1)
      .sort((x, y) => natural.compare(x.name, y.name));
    if (!nodes.length) throw new AppError(422, `No server of type ${app.types.join(', ')} is on for '${app.name}'`, 'rules');
    if (nodes.length > CONSOLE_MAX_NODES) throw new AppError(422, `'${app.name}' would tail ${nodes.length} nodes; at most ${CONSOLE_MAX_NODES}`, 'rules');
    const mine = [...this.consoles.values()].filter((c) => c.socket.id === socket.id).length;
    if (mine >= CONSOLE_PER_SOCKET) throw tooMany(`At most ${CONSOLE_PER_SOCKET} consoles at once: close one first`);
    if (this.tailsOpen + nodes.length > CONSOLE_MAX_TAILS) throw tooMany('Too many server consoles are open: try again later');

    const key = randomBytes(8).toString('hex');
    const channel = this.channels.open(socket, {
      kind: 'server_console', minRole: Role.admin,
      onEnd: (why) => this.close(key, why === 'role' ? CHANNEL_ROLE_MESSAGE : why === 'disconnect' ? 'Disconnected' : 'Closed'),
    });
    const con: Console = { key, socket, channel, tails: nodes.map((n) => ({ node: n.name, conn: null, channel: null, closed: false })) };
    this.consoles.set(key, con);
    this.tailsOpen += nodes.length;
    const command = tailCommand(app.path);
    nodes.forEach((n, i) => void this.start(con, con.tails[i], n.Id, command, actor));
    return { key, app: app.name, path: app.path, nodes: nodes.map((n) => ({ Id: n.Id, name: n.name })) };
  }

  /** Stops every tail of a console and tells its socket (`server_console.end`). */
  close(key: string, reason = 'Closed'): boolean {
    const con = this.consoles.get(key);
    if (!con) return false;
    this.consoles.delete(key);
    this.tailsOpen -= con.tails.length;
    for (const t of con.tails) this.stopTail(t);
    con.channel.emitEnd('server_console.end', { key, reason });
    con.channel.end();
    return true;
  }

  /** Closes a console of this socket (another socket's key is refused as unknown). */
  closeFor(socket: Socket, a: z.output<typeof ConsoleCloseArgs>): { key: string; closed: true } {
    const con = this.consoles.get(a.key);
    if (!con || con.socket.id !== socket.id) throw notFound('No such console on this connection');
    this.close(a.key);
    return { key: a.key, closed: true };
  }

  /** Tails open now (for tests and status). */
  get openTails() {
    return this.tailsOpen;
  }

  private status(con: Console, node: string, state: ConsoleStatusEvent['state'], error?: string) {
    con.channel.emit('server_console.status', { key: con.key, node, state, ...(error ? { error } : {}) } satisfies ConsoleStatusEvent);
  }

  private async start(con: Console, t: Tail, Id: number, command: string, actor: Actor) {
    this.status(con, t.node, 'connecting');
    const started = Date.now();
    let target;
    try {
      target = await this.srv.sshTarget(Id);
      const conn = await this.ssh.connect(target, { actor });
      if (t.closed) { conn.close(); return; }
      t.conn = conn;
      await this.ssh.recordCommand(target, command, { actor }, started, 'ok', 'server console tail started');
      conn.client.exec(command, (err, ch) => {
        if (err) {
          this.status(con, t.node, 'error', err.message);
          return this.stopTail(t);
        }
        if (t.closed) { ch.close(); return; }
        t.channel = ch;
        this.status(con, t.node, 'live');
        let buf = '';
        let timer: ReturnType<typeof setTimeout> | null = null;
        const flush = () => {
          timer = null;
          if (!buf || t.closed) return;
          con.channel.emit('server_console.data', { key: con.key, node: t.node, data: buf } satisfies ConsoleDataEvent);
          buf = '';
        };
        const onData = (d: Buffer) => {
          buf += d.toString('utf8');
          if (buf.length > BUFFER_MAX) buf = buf.slice(-BUFFER_MAX);
          if (!timer) timer = setTimeout(flush, FLUSH_MS);
        };
        ch.on('data', onData);
        ch.stderr.on('data', onData);
        ch.on('close', () => {
          if (timer) clearTimeout(timer);
          flush();
          if (!t.closed) this.status(con, t.node, 'closed');
          this.stopTail(t);
        });
      });
    } catch (err) {
      const msg = (err as Error).message;
      if (target) await this.ssh.recordCommand(target, command, { actor }, started, 'error', msg).catch(() => undefined);
      if (!t.closed) this.status(con, t.node, 'error', msg);
      this.log.warn(`console ${t.node}: ${msg}`);
    }
  }

  private stopTail(t: Tail) {
    t.closed = true;
    try { t.channel?.close(); } catch { /* already closed */ }
    t.conn?.close();
    t.channel = null;
    t.conn = null;
  }
}
