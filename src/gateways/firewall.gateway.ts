import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { Envelope } from '../contracts/envelope.js';
import { Role } from '../contracts/roles.js';
import { RequireRole, type Actor } from '../core/auth/actor.js';
import { RpcRegistry } from '../core/rpc/rpc.registry.js';

/**
 * The firewall worker's status and start/stop channel (000 §4 "Firewall worker on/off via a realtime
 * message", §7 "a firewall worker status and start/stop channel"), admins only. Each message runs the
 * RPC method of the same name through the registry (validation, audit of the state-changing ones) and
 * acknowledges with its envelope. The `firewall.worker` event (switch set, run started or ended) goes
 * to the admins' room, which every admin socket joins on connect.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class FirewallGateway {
  constructor(private readonly registry: RpcRegistry) {}

  private call(name: string, client: Socket, args: unknown): Promise<Envelope> {
    return this.registry.call(name, args, { actor: client.data.actor as Actor });
  }

  @SubscribeMessage('firewall.getWorkerStatus')
  getWorkerStatus(@ConnectedSocket() c: Socket) {
    return this.call('firewall.getWorkerStatus', c, undefined);
  }

  @SubscribeMessage('firewall.setWorkerStatus')
  setWorkerStatus(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('firewall.setWorkerStatus', c, body);
  }

  @SubscribeMessage('firewall.runWorker')
  runWorker(@ConnectedSocket() c: Socket) {
    return this.call('firewall.runWorker', c, undefined);
  }

  // The neural score's training (Firewall II): progress arrives as the `firewall.train` event.
  @SubscribeMessage('firewall.train')
  train(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('firewall.train', c, body);
  }

  @SubscribeMessage('firewall.cancelTrain')
  cancelTrain(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('firewall.cancelTrain', c, body);
  }

  @SubscribeMessage('firewall.getTrainStatus')
  getTrainStatus(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('firewall.getTrainStatus', c, body);
  }

  @SubscribeMessage('firewall.getWorkerProxies')
  getWorkerProxies(@ConnectedSocket() c: Socket) {
    return this.call('firewall.getWorkerProxies', c, undefined);
  }
}
