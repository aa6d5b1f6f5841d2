import type { WorkerStatusEvent } from './firewall.js';
import type { TrainEvent } from './firewall-train.js';
import type { DeployGlobalProgressEvent, LogFollowEndEvent, LogLinesEvent } from './logs.js';
import type { UpdateNginxEvent } from './monitoring.js';
import type { TerminalDataEvent, TerminalStatus } from './terminal.js';
import type { ConsoleDataEvent, ConsoleStatusEvent, DeployLogEvent, RunOnceProgressEvent } from './deploy.js';
import type { NotificationView } from './notifications.js';
import type { InvestUpdateEvent } from './invest.js';
import type { AntServerEvents } from './ant.js';

/**
 * Every server-to-client socket event, typed in one map. Areas add their events here; the server's
 * RealtimeService and the UI's socket client both read it.
 */
export interface ServerEvents extends AntServerEvents {
  /** A message refused by the guard or failed in its handler. */
  exception: { status: 'error'; message: string };
  /** A server of the map was created, saved, switched, cloned or removed, or its host key changed. Admins only. */
  'srv.changed': SrvChangedEvent;
  /** SSL hosts were added, edited, removed or checked. Admins only. */
  'ssl.changed': SslChangedEvent;
  /** Cluster config rows were inserted, updated or removed. Admins only. */
  'cfg.configs_changed': ConfigsChangedEvent;
  /** The firewall worker's switch was set, or a run started or ended (with its per-proxy results). Admins only. */
  'firewall.worker': WorkerStatusEvent;
  /** A training of a host's neural score: 'start', 'progress' (throttled), then 'end', 'cancelled' or 'error'. Admins only. */
  'firewall.train': TrainEvent;
  /** A monitoring collection round ended (000 §7 'update_nginx'): open monitor screens refresh. Every signed-in user. */
  update_nginx: UpdateNginxEvent;
  /** Output of a shell this socket opened (node_control.connect), as it arrives. Only to that socket. */
  'node_control.data': TerminalDataEvent;
  /** A shell of this socket changed state (connecting, open, closed with the reason, error): live status per node (000 §4). */
  'node_control.status': TerminalStatus;
  /** Lines appended to a file this socket follows (`logs.follow`); truncated: the file was cut or rotated. That socket only. */
  'logs.lines': LogLinesEvent;
  /** A follow of this socket ended (agent gone, file removed, unfollowed). That socket only. */
  'logs.follow_end': LogFollowEndEvent;
  /**
   * The session's current role and display name: sent once on connect and again whenever an admin
   * changes them (the socket has already been moved to the rooms of the new role when it arrives).
   */
  'session.changed': { role: number; name: string };
  /** The session is over (signed out, expired, account deactivated, password reset): the socket is closed next. */
  'session.ended': { reason: SessionEndReason; message: string };
  /** Progress of an `srv.runOnce` call: to the calling user's sockets only. */
  'srv.run_once': RunOnceProgressEvent;
  /** Output of a server console's tail on one node: to the socket that opened it only. */
  'server_console.data': ConsoleDataEvent;
  /** A server console node connected, ended or failed: to the socket that opened it only. */
  'server_console.status': ConsoleStatusEvent;
  /** Progress of a `cfg.deployGlobalConfig` call ('Deploy configs'), one event per node as it answers: to the calling user's sockets only. */
  'cfg.deploy_global': DeployGlobalProgressEvent;
  /** Events between instances were lost (Redis was unreachable): open pages re-read what they show, as after a reconnect. */
  'realtime.resync': { reason: 'redis' };
  /** A server console ended on this socket (closed, every node gone, or the role no longer allows it). */
  'server_console.end': { key: string; reason: string };
  /** A notification for this user was stored (a todo alert): every open tab of the user shows it (docs/todo.md). */
  'notify.new': NotificationView;
  /** Notifications were marked read in one tab: the others update their unread count. That user's sockets only. */
  'notify.read': { Id: number | null; unread: number };
  /** Refreshed prices and coupon schedules of the bonds an investment page follows (`invest.subscribe`): that socket only (docs/invest.md). */
  'invest.update': InvestUpdateEvent;
}

/**
 * `deploy_logs_{server name}` (000 §7): one line, or a start/end/test marker, of a deploy on that
 * server; admins only. Named per server, so typed here apart from the fixed names of ServerEvents.
 */
export type DeployLogsEvents = Record<`deploy_logs_${string}`, DeployLogEvent>;

/** Why a session ended, as told to its sockets. */
export type SessionEndReason = 'logout' | 'expired' | 'deactivated' | 'password' | 'revoked';

export const SESSION_END_MESSAGES: Record<SessionEndReason, string> = {
  logout: 'Signed out',
  expired: 'Session expired: sign in again',
  deactivated: 'Account deactivated',
  password: 'Password changed: sign in again',
  revoked: 'Session ended: sign in again',
};

/** Payload of `srv.changed`: what happened to which server; clients re-read the map (and patch `status` at once). */
export interface SrvChangedEvent {
  action: 'create' | 'save' | 'status' | 'clone' | 'remove' | 'hostkey';
  Id: number;
  name: string;
  /** The new on/off value of a status switch. */
  status?: number;
  /** When the change was written (server ms): a page ignores an event older than one it already applied for that server. */
  at: number;
}

/** Payload of `ssl.changed`: the rows concerned; clients re-read the list. */
export interface SslChangedEvent {
  action: 'add' | 'edit' | 'remove' | 'check';
  Ids: number[];
}

/** Payload of `cfg.configs_changed`. */
export interface ConfigsChangedEvent {
  action: 'insert' | 'update' | 'remove';
  count: number;
}

/** Rooms every socket joins on connect: `min:1` holds admins, `min:10` content and stronger, ... */
export const ROLE_ROOM_LEVELS = [1, 10, 100] as const;
export const roleRoom = (level: number) => `min:${level}`;
/** Every socket of one session (for ending it), and of one user (for role changes and deactivation). */
export const sessionRoom = (sessionId: number) => `session:${sessionId}`;
export const userRoom = (uid: number) => `user:${uid}`;
/** A user's sockets whose role is at least as strong as `level`: progress of work a user started, kept to the role that may see it. */
export const userRoleRoom = (uid: number, level: number) => `user:${uid}:min:${level}`;
