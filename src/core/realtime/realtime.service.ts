import { Injectable } from '@nestjs/common';
import type { Namespace, RemoteSocket, Server, Socket } from 'socket.io';
import { roleRoom, ROLE_ROOM_LEVELS, userRoleRoom, type DeployLogsEvents, type ServerEvents } from '../../contracts/events.js';

/**
 * Pushes typed events to connected operators. Role rooms make "admins only" a room name, which the
 * Redis adapter carries across instances. The server is attached by the session gateway at init.
 */
@Injectable()
export class RealtimeService {
  private server?: Server;

  attach(server: Server) {
    this.server = server;
  }

  /** The socket.io server once the gateways are up (undefined before). */
  get io(): Server | undefined {
    return this.server;
  }

  /**
   * A namespace of its own for peers that are not operators (the ants of docs/ant.md): it gets no session
   * socket, no role room and none of these events; its owner authenticates it with its own middleware.
   * Null before the gateways are up.
   */
  peerNamespace(name: string): Namespace | null {
    if (!name.startsWith('/') || name === '/') throw new Error(`peerNamespace: '${name}' is not a namespace of its own`);
    return this.server?.of(name) ?? null;
  }

  /**
   * A message to one peer socket of a peer namespace (an ant woken for a task). Never to an operator's
   * session socket: those get events through the role rooms and live channels only.
   */
  emitToPeer(socket: Socket, event: string, payload: unknown): void {
    if (socket.nsp.name === '/' || !this.server || socket.nsp.server !== this.server) throw new Error(`emitToPeer: '${socket.nsp.name}' is not a peer namespace`);
    socket.emit(event, payload);
  }

  /** The operator sockets whose role is at least `minRole`, on every instance (read only: to list them). */
  async operatorSockets(minRole: (typeof ROLE_ROOM_LEVELS)[number]): Promise<RemoteSocket<Record<string, never>, any>[]> {
    return this.server ? this.server.in(roleRoom(minRole)).fetchSockets() : [];
  }

  /** Rooms a socket of this role (and user) joins on connect, and is moved to when the role changes. */
  roomsFor(role: number, uid?: number): string[] {
    const levels = ROLE_ROOM_LEVELS.filter((level) => role <= level);
    return [...levels.map(roleRoom), ...(uid === undefined ? [] : levels.map((l) => userRoleRoom(uid, l)))];
  }

  /** Every role-bound room of a user (what a role change may take a socket out of). */
  allRoomsOf(uid: number): string[] {
    return [...ROLE_ROOM_LEVELS.map(roleRoom), ...ROLE_ROOM_LEVELS.map((l) => userRoleRoom(uid, l))];
  }

  /** Sends to every connected socket whose role is at least as strong as `minRole` (1, 10 or 100). */
  emit<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K], minRole: (typeof ROLE_ROOM_LEVELS)[number]) {
    this.server?.to(roleRoom(minRole)).emit(event as string, payload);
  }

  /** `deploy_logs_{server name}` (named per server) to the sockets of `minRole` and stronger. */
  emitNamed<K extends keyof DeployLogsEvents>(event: K, payload: DeployLogsEvents[K], minRole: (typeof ROLE_ROOM_LEVELS)[number]) {
    this.server?.to(roleRoom(minRole)).emit(event, payload);
  }

  /** Sends to one user's sockets whose role still meets `minRole` (progress of work they started). */
  emitToUser<K extends keyof ServerEvents>(uid: number, event: K, payload: ServerEvents[K], minRole: (typeof ROLE_ROOM_LEVELS)[number]) {
    this.server?.to(userRoleRoom(uid, minRole)).emit(event as string, payload);
  }
}
