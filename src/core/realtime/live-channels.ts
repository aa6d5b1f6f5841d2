import { Injectable, Logger } from '@nestjs/common';
import type { Socket } from 'socket.io';
import type { ServerEvents } from '../../contracts/events.js';
import { MSG } from '../../contracts/messages.js';
import type { Actor } from '../auth/actor.js';
import { AppError, forbidden } from '../errors.js';

/** Why a live channel ended, when the channel did not end by itself. */
export type ChannelEndReason = 'role' | 'disconnect' | 'closed';

/** The end message a channel's owner sends with its `*_end` / closed status when the role ended it. */
export const CHANNEL_ROLE_MESSAGE = 'Your role no longer allows this: the stream was closed';

export interface ChannelOptions {
  /** What kind of stream this is (terminal, server_console, logs.follow, ...): for counts, logs and tests. */
  kind: string;
  /** The weakest role that may receive it (lower is stronger: 1 admins only). */
  minRole: number;
  /**
   * Releases what the channel holds (a shell, a tail, a follow). Called once: when the socket's role no
   * longer meets `minRole`, when the socket disconnects, or after `end()`. The owner may still send its
   * end event through `channel.emitEnd` here.
   */
  onEnd: (reason: ChannelEndReason) => void;
}

/** A stream from the server to one socket, registered with the role it needs. */
export interface LiveChannel {
  readonly kind: string;
  readonly socket: Socket;
  /** False once ended: every later send is dropped. */
  readonly open: boolean;
  /** Sends one event of the stream; dropped (false) when the channel ended or the socket's role no longer meets it. */
  emit<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K]): boolean;
  /** The stream's last event (its `*_end` or closed status): sent once even after the channel ended, while the socket is connected. */
  emitEnd<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K]): void;
  /** Ends the channel from the owner's side (the stream ended by itself or was closed by the user). */
  end(): void;
}

/**
 * The one way a socket-bound stream reaches a socket (docs/architecture.md, "Realtime"). A channel is
 * opened with the role it needs; every send checks that the socket's actor (refreshed by SocketSessions
 * on every message, on every role push and by the sweep) still meets it, and SocketSessions calls
 * `enforce` whenever it learns a socket's role, so a demoted operator's shells, tails and follows end at
 * once, on every instance. Broadcasts to role rooms are the other way (RealtimeService), and the room
 * moves of SocketSessions already take a demoted socket out of them.
 */
@Injectable()
export class LiveChannels {
  private readonly log = new Logger('LiveChannels');
  private readonly bySocket = new Map<Socket, Set<Channel>>();
  /** Sockets with our 'disconnect' listener: one per socket, however often its channels come and go. */
  private readonly watched = new WeakSet<Socket>();

  /** Registers a stream to `socket`; refused (403) when the socket's role does not meet `minRole` now, or it is closed. */
  open(socket: Socket, opts: ChannelOptions): LiveChannel {
    if (!meets(socket, opts.minRole)) throw forbidden(MSG.forbidden);
    if (!socket.connected) throw new AppError(409, 'The connection is closed', 'error');
    let set = this.bySocket.get(socket);
    if (!set) {
      set = new Set();
      this.bySocket.set(socket, set);
    }
    if (!this.watched.has(socket)) {
      this.watched.add(socket);
      socket.once('disconnect', () => this.endAll(socket, 'disconnect'));
    }
    const ch = new Channel(socket, opts, () => {
      set.delete(ch);
      if (!set.size && this.bySocket.get(socket) === set) this.bySocket.delete(socket);
    });
    set.add(ch);
    return ch;
  }

  /** The socket's role is now `role` (SocketSessions after every check, push and sweep): ends what it no longer allows. */
  enforce(socket: Socket, role: number) {
    for (const ch of [...(this.bySocket.get(socket) ?? [])]) {
      if (role > ch.minRole) {
        this.log.log(`${ch.kind} on socket ${socket.id} ended: role ${role} no longer meets ${ch.minRole}`);
        ch.finish('role');
      }
    }
  }

  private endAll(socket: Socket, reason: ChannelEndReason) {
    for (const ch of [...(this.bySocket.get(socket) ?? [])]) ch.finish(reason);
    this.bySocket.delete(socket);
  }

  /** Open channels on this instance (of one kind, or in all): tests and status. */
  count(kind?: string): number {
    let n = 0;
    for (const set of this.bySocket.values()) for (const ch of set) if (!kind || ch.kind === kind) n++;
    return n;
  }
}

const meets = (socket: Socket, minRole: number) => {
  const actor = socket.data.actor as Actor | undefined;
  return !!actor && actor.role <= minRole;
};

class Channel implements LiveChannel {
  readonly kind: string;
  readonly minRole: number;
  private ended = false;
  private endSent = false;

  constructor(readonly socket: Socket, private readonly opts: ChannelOptions, private readonly unregister: () => void) {
    this.kind = opts.kind;
    this.minRole = opts.minRole;
  }

  get open() {
    return !this.ended;
  }

  emit<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K]): boolean {
    if (this.ended || !this.socket.connected || !meets(this.socket, this.minRole)) return false;
    this.socket.emit(event as string, payload);
    return true;
  }

  emitEnd<K extends keyof ServerEvents>(event: K, payload: ServerEvents[K]) {
    if (this.endSent || !this.socket.connected) return;
    this.endSent = true;
    this.socket.emit(event as string, payload);
  }

  end() {
    this.finish('closed');
  }

  finish(reason: ChannelEndReason) {
    if (this.ended) return;
    this.ended = true;
    this.unregister();
    try {
      this.opts.onEnd(reason);
    } catch (err) {
      new Logger('LiveChannels').warn(`${this.kind}: ending failed: ${(err as Error).message}`);
    }
  }
}
