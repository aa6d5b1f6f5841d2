import { ConnectedSocket, SubscribeMessage, WebSocketGateway, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import type { Actor } from '../core/auth/actor.js';
import { RealtimeService } from '../core/realtime/realtime.service.js';
import { SocketSessions } from '../core/realtime/socket-sessions.service.js';

/**
 * The base channel: each socket joins its session, user and role rooms (SocketSessions, which also
 * ends and moves sockets as sessions and roles change); a client can ask who it is connected as.
 */
@WebSocketGateway()
export class SessionGateway implements OnGatewayInit, OnGatewayConnection {
  constructor(private readonly realtime: RealtimeService, private readonly sessions: SocketSessions) {}

  afterInit(server: Server) {
    this.realtime.attach(server);
    this.sessions.listen(server);
  }

  async handleConnection(client: Socket) {
    await this.sessions.track(client).catch(() => client.disconnect(true));
  }

  /** The actor as it is now (the guard re-read it for this message). */
  @SubscribeMessage('session.whoami')
  whoami(@ConnectedSocket() client: Socket) {
    const actor = client.data.actor as Actor;
    return { uid: actor.uid, name: actor.name, role: actor.role, status: client.data.status as string };
  }
}
