import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import { ConsoleCloseArgs, ConsoleOpenArgs } from '../contracts/deploy.js';
import type { Envelope } from '../contracts/envelope.js';
import { Role } from '../contracts/roles.js';
import { RequireRole, type Actor } from '../core/auth/actor.js';
import { parseInput, socketAnswer } from '../core/errors.js';
import { RpcRegistry } from '../core/rpc/rpc.registry.js';
import { ConsoleService } from '../modules/deploy/console.service.js';

/**
 * Deploy and server console socket messages (000 §7 "deploy (type web or web_test, host)", "the server
 * console sends a write event that runs a process-log tail for 150 lines"), admins only: the guard
 * re-reads the session and role for every message. `deploy` runs `srv/action.deploy` through the
 * registry (validation, audit) and acknowledges with its envelope when every node has finished; the
 * lines arrive meanwhile as `deploy_logs_{server name}`. `server_console.write {app}` opens a console
 * on this socket (ack: {key, app, path, nodes}); output comes as `server_console.data` and
 * `server_console.status`; `server_console.unsubscribe {key}` closes it, and so does a disconnect.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class DeployGateway {
  private readonly log = new Logger('DeployGateway');

  constructor(private readonly registry: RpcRegistry, private readonly consoles: ConsoleService) {}

  @SubscribeMessage('deploy')
  deploy(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return this.registry.call('srv/action.deploy', body, { actor: c.data.actor as Actor });
  }

  @SubscribeMessage('server_console.write')
  open(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => this.consoles.open(c, c.data.actor as Actor, parseInput(ConsoleOpenArgs, body ?? {})), this.log);
  }

  @SubscribeMessage('server_console.unsubscribe')
  close(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => this.consoles.closeFor(c, parseInput(ConsoleCloseArgs, body ?? {})), this.log);
  }
}
