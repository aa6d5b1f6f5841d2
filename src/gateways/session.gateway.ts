import { ConnectedSocket, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { Actor } from '../core/auth/actor.js';

/** The base channel: a client can ask who it is connected as (proves the handshake carried a session). */
@WebSocketGateway()
export class SessionGateway {
  @SubscribeMessage('session.whoami')
  whoami(@ConnectedSocket() client: Socket) {
    const actor = client.data.actor as Actor;
    return { uid: actor.uid, name: actor.name, role: actor.role, status: client.data.status as string };
  }
}
