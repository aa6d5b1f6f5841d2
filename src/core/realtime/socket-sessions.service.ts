import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Server, Socket } from 'socket.io';
import { In, type Repository } from 'typeorm';
import {
  SESSION_END_MESSAGES, sessionRoom, userRoom, type ServerEvents, type SessionEndReason,
} from '../../contracts/events.js';
import type { Actor } from '../auth/actor.js';
import { SessionEntity } from '../auth/user.entity.js';
import { LiveChannels } from './live-channels.js';
import { RealtimeService } from './realtime.service.js';

/** How often each instance re-reads the sessions of its own sockets (the safety net behind the pushes). */
export const SOCKET_SWEEP_MS = 60_000;
/** The server-side message (through the Redis adapter) that tells the other instances to re-read a user's sockets. */
const RECHECK_USER = 'session.recheck_user';
/** setTimeout's longest delay; a later expiry is re-armed when the timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A session as it is now: live with its current actor, or ended with the reason. */
export type SessionState = { live: true; actor: Actor; expiresAt: number } | { live: false; reason: SessionEndReason };

const stateOf = (s: SessionEntity | null | undefined, now = Date.now()): SessionState => {
  if (!s) return { live: false, reason: 'revoked' };
  if (s.expires_at.getTime() <= now) return { live: false, reason: 'expired' };
  const u = s.user;
  if (!u || !u.active) return { live: false, reason: 'deactivated' };
  return { live: true, actor: { uid: u.uid, login: u.login, name: u.name, role: u.role, sessionId: s.Id }, expiresAt: s.expires_at.getTime() };
};

/**
 * Keeps every socket bound to its session as it is now (docs/architecture.md, "Realtime").
 *
 * - On connect a socket joins `session:<id>`, `user:<uid>` and the rooms of its role.
 * - Ending a session (logout, expiry, deactivation, password reset) sends `session.ended` to its room
 *   and disconnects every socket in it; a role or name change moves the user's sockets between role
 *   rooms and sends `session.changed`. These go through the socket.io adapter (`to(room).emit`,
 *   `in(room).disconnectSockets/socketsLeave/socketsJoin`), so with the Redis adapter they reach the
 *   sockets on every instance, in the order they were sent (one publishing connection).
 * - Every socket message is checked against the database first (AuthGuard -> `check`: one indexed
 *   query, session joined with its user), which also refreshes `socket.data.actor`; a socket whose
 *   session is gone is ended on the spot, whatever happened to the push.
 * - Each socket has a timer at its session's expiry, and each instance re-reads the sessions of its
 *   own sockets every minute (`sweep`), so an idle socket (a terminal) closes even when no push
 *   arrived (Redis down, a row changed by hand).
 */
@Injectable()
export class SocketSessions implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('SocketSessions');
  private readonly timers = new WeakMap<Socket, ReturnType<typeof setTimeout>>();
  private sweeper?: ReturnType<typeof setInterval>;

  constructor(
    private readonly realtime: RealtimeService,
    private readonly channels: LiveChannels,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
  ) {}

  onApplicationBootstrap() {
    this.sweeper = setInterval(() => void this.sweep().catch((e: Error) => this.log.warn(`sweep failed: ${e.message}`)), SOCKET_SWEEP_MS);
    this.sweeper.unref();
  }

  /** The socket.io server is up (SessionGateway.afterInit): listen for the other instances' re-check requests. */
  listen(server: Server) {
    server.on(RECHECK_USER, (uid: unknown) => {
      if (typeof uid === 'number') void this.recheckUser(uid).catch((e: Error) => this.log.warn(`re-check of user ${uid} failed: ${e.message}`));
    });
  }

  onModuleDestroy() {
    clearInterval(this.sweeper);
  }

  /** The session as it is now (expiry, the user's active flag, current role and name). */
  async state(sessionId: number | undefined): Promise<SessionState> {
    if (!sessionId) return { live: false, reason: 'revoked' };
    return stateOf(await this.sessions.findOne({ where: { Id: sessionId }, relations: { user: true } }));
  }

  // ---------------------------------------------------------------------------------------------
  // One socket (this instance)

  /** A new socket: joins its rooms, then re-reads its session (a revocation may have raced the handshake). */
  async track(client: Socket): Promise<void> {
    const actor = client.data.actor as Actor | undefined;
    if (!actor?.sessionId) {
      client.disconnect(true);
      return;
    }
    client.join([sessionRoom(actor.sessionId), userRoom(actor.uid), ...this.realtime.roomsFor(actor.role, actor.uid)]);
    client.once('disconnect', () => clearTimeout(this.timers.get(client)));
    const now = await this.check(client, { announce: true });
    if (now) this.emitTo(client, 'session.changed', { role: now.role, name: now.name });
  }

  /**
   * Checks a socket against its session as it is now: refreshes `socket.data.actor`, moves the socket
   * when its role changed, ends it (session.ended + disconnect) when the session is over. Answers the
   * current actor, or null when the socket was ended.
   */
  async check(client: Socket, opts: { announce?: boolean } = {}): Promise<Actor | null> {
    const before = client.data.actor as Actor | undefined;
    if (!before) return null;
    return this.apply(client, await this.state(before.sessionId), opts);
  }

  private apply(client: Socket, st: SessionState, opts: { announce?: boolean } = {}): Actor | null {
    const before = client.data.actor as Actor;
    if (!st.live) {
      this.endSocket(client, st.reason);
      return null;
    }
    const actor: Actor = { ...st.actor, ip: before.ip };
    client.data.actor = actor;
    // Streams this socket holds (terminals, consoles, follows) end here when the role no longer allows them.
    this.channels.enforce(client, actor.role);
    if (actor.role !== before.role || actor.name !== before.name) {
      this.moveSocket(client, actor);
      if (!opts.announce) this.emitTo(client, 'session.changed', { role: actor.role, name: actor.name });
    }
    this.armExpiry(client, st.expiresAt);
    return actor;
  }

  private endSocket(client: Socket, reason: SessionEndReason) {
    clearTimeout(this.timers.get(client));
    if (!client.connected) return;
    this.emitTo(client, 'session.ended', { reason, message: SESSION_END_MESSAGES[reason] });
    client.disconnect(true);
  }

  private moveSocket(client: Socket, actor: Actor) {
    const keep = new Set(this.realtime.roomsFor(actor.role, actor.uid));
    for (const room of this.realtime.allRoomsOf(actor.uid)) if (!keep.has(room)) void client.leave(room);
    client.join([...keep]);
  }

  private armExpiry(client: Socket, expiresAt: number) {
    clearTimeout(this.timers.get(client));
    if (!client.connected) return; // a check that finished after the disconnect: nothing to watch
    const delay = Math.min(Math.max(expiresAt - Date.now(), 0) + 10, MAX_TIMER_MS);
    const timer = setTimeout(() => void this.check(client).catch(() => client.disconnect(true)), delay);
    timer.unref();
    this.timers.set(client, timer);
  }

  private emitTo<K extends keyof ServerEvents>(client: Socket, event: K, payload: ServerEvents[K]) {
    client.emit(event as string, payload);
  }

  /** Re-reads the sessions of every socket of this instance in one query; ends or moves the ones that changed. */
  async sweep(): Promise<void> {
    const io = this.realtime.io;
    if (!io) return;
    const sockets = [...io.of('/').sockets.values()].filter((s) => (s.data.actor as Actor | undefined)?.sessionId);
    if (!sockets.length) return;
    const ids = [...new Set(sockets.map((s) => (s.data.actor as Actor).sessionId!))];
    const rows = new Map((await this.sessions.find({ where: { Id: In(ids) }, relations: { user: true } })).map((r) => [r.Id, r]));
    const now = Date.now();
    for (const s of sockets) if (s.connected) this.apply(s, stateOf(rows.get((s.data.actor as Actor).sessionId!), now));
  }

  // ---------------------------------------------------------------------------------------------
  // Pushed from the places that change sessions and users (every instance, through the adapter)

  /** One session ended (logout): its sockets are told and disconnected, on every instance. */
  endSession(sessionId: number, reason: SessionEndReason) {
    this.endRoom(sessionRoom(sessionId), reason);
  }

  /** Every session of a user ended (deactivation, password reset). */
  endUser(uid: number, reason: SessionEndReason) {
    this.endRoom(userRoom(uid), reason);
  }

  private endRoom(room: string, reason: SessionEndReason) {
    const io = this.realtime.io;
    if (!io) return;
    // The event and the disconnect travel in order (locally, and through Redis on one connection),
    // so a client reads why before it is closed.
    io.to(room).emit('session.ended', { reason, message: SESSION_END_MESSAGES[reason] } satisfies ServerEvents['session.ended']);
    io.in(room).disconnectSockets(true);
  }

  /**
   * A user's role or name changed: their sockets move to the rooms of the new role and are told, on
   * every instance (adapter operations); then every instance re-reads that user's sockets, which ends
   * the streams the new role no longer allows (LiveChannels). Without Redis there is one instance; with
   * it, a lost re-check is caught by the next message's check or the sweep.
   */
  userChanged(uid: number, role: number, name: string) {
    const io = this.realtime.io;
    if (!io) return;
    const room = userRoom(uid);
    const keep = this.realtime.roomsFor(role, uid);
    const leave = this.realtime.allRoomsOf(uid).filter((r) => !keep.includes(r));
    if (leave.length) io.in(room).socketsLeave(leave);
    io.in(room).socketsJoin(keep);
    io.to(room).emit('session.changed', { role, name } satisfies ServerEvents['session.changed']);
    void this.recheckUser(uid).catch((e: Error) => this.log.warn(`re-check of user ${uid} failed: ${e.message}`));
    const adapter = io.of('/').adapter as { serverSideEmitWithAck?: unknown };
    if (typeof adapter.serverSideEmitWithAck === 'function') io.serverSideEmit(RECHECK_USER, uid);
  }

  /** Re-reads the session of each socket of this user on this instance (ends, moves and trims them). */
  async recheckUser(uid: number): Promise<void> {
    const io = this.realtime.io;
    const ids = io?.of('/').adapter.rooms.get(userRoom(uid));
    if (!io || !ids?.size) return;
    const sockets = [...ids].map((id) => io.of('/').sockets.get(id)).filter((s): s is Socket => !!s?.connected);
    await Promise.all(sockets.map((s) => this.check(s)));
  }
}
