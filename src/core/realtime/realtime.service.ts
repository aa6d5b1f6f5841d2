import { Injectable } from '@nestjs/common';
import type { Server } from 'socket.io';
import { roleRoom, ROLE_ROOM_LEVELS, type ServerEvents } from '../../contracts/events.js';

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

  /** Rooms a socket of this role joins on connect. */
  roomsFor(role: number): string[] {
    return ROLE_ROOM_LEVELS.filter((level) => role <= level).map(roleRoom);
  }

  /** Sends to every connected socket whose role is at least as strong as `minRole` (1, 10 or 100). */
  emit<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K], minRole: (typeof ROLE_ROOM_LEVELS)[number]) {
    this.server?.to(roleRoom(minRole)).emit(event as string, payload);
  }
}
