import { ConnectedSocket, SubscribeMessage, WebSocketGateway, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import type { Actor } from '../core/auth/actor.js';
import { RealtimeService } from '../core/realtime/realtime.service.js';

/** The base channel: joins each socket to its role rooms; a client can ask who it is connected as. */
@WebSocketGateway()
export class SessionGateway implements OnGatewayInit, OnGatewayConnection {
  constructor(private readonly realtime: RealtimeService) {}

  afterInit(server: Server) {
    this.realtime.attach(server);
  }

  handleConnection(client: Socket) {
    const actor = client.data.actor as Actor | undefined;
    if (actor) void client.join(this.realtime.roomsFor(actor.role));
  }

  @SubscribeMessage('session.whoami')
  whoami(@ConnectedSocket() client: Socket) {
    const actor = client.data.actor as Actor;
    return { uid: actor.uid, name: actor.name, role: actor.role, status: client.data.status as string };
  }
}
