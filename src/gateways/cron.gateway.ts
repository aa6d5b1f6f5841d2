import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { Envelope } from '../contracts/envelope.js';
import { Role } from '../contracts/roles.js';
import { RequireRole, type Actor } from '../core/auth/actor.js';
import { RpcRegistry } from '../core/rpc/rpc.registry.js';

/**
 * Cron socket messages of 000 §7, admins only. Each runs the RPC method of the same name through the
 * registry (validation, audit of the state-changing ones) and acknowledges with its envelope
 * ({status: 'ok', result} or {status, message}). Live `cron.status` events go to the admins' room
 * (RealtimeService), so every admin socket is subscribed on connect.
 *
 * `client.data.actor` is the actor as it is now: the guard re-reads the session for every message
 * (SocketSessions.check) before the handler runs, so a demoted or signed-out admin is refused here.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class CronGateway {
  constructor(private readonly registry: RpcRegistry) {}

  private call(name: string, client: Socket, args: unknown): Promise<Envelope> {
    return this.registry.call(name, args, { actor: client.data.actor as Actor });
  }

  @SubscribeMessage('cron.getStatus')
  getStatus(@ConnectedSocket() c: Socket) {
    return this.call('cron.getStatus', c, undefined);
  }

  @SubscribeMessage('cron.reload')
  reload(@ConnectedSocket() c: Socket) {
    return this.call('cron.reload', c, undefined);
  }

  @SubscribeMessage('cron.kill')
  kill(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('cron.kill', c, body);
  }

  @SubscribeMessage('cron.executeTask')
  executeTask(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('cron.executeTask', c, body);
  }

  @SubscribeMessage('cron.getServiceStatus')
  getServiceStatus(@ConnectedSocket() c: Socket) {
    return this.call('cron.getServiceStatus', c, undefined);
  }

  @SubscribeMessage('cron.setServiceStatus')
  setServiceStatus(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('cron.setServiceStatus', c, body);
  }
}
