import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { Envelope } from '../contracts/envelope.js';
import { Role } from '../contracts/roles.js';
import { MassWriteArgs, TerminalConnectArgs, TerminalKeyArgs, TerminalResizeArgs, TerminalWriteArgs } from '../contracts/terminal.js';
import { RequireRole, type Actor } from '../core/auth/actor.js';
import { parseInput, socketAnswer } from '../core/errors.js';
import { TerminalService } from '../modules/terminal/terminal.service.js';

/**
 * Terminals (000 §7 node_control.*), admins only. The guard re-reads the session for every message
 * (a signed-out or demoted admin is refused before the handler); each handler validates its body and
 * acknowledges with an envelope ({status: 'ok', result} or {status, message, code}). Output and status
 * arrive as `node_control.data` and `node_control.status` events on the socket that opened the shell.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class TerminalGateway {
  private readonly log = new Logger('TerminalGateway');

  constructor(private readonly terminal: TerminalService) {}

  private answer(fn: () => unknown): Promise<Envelope> {
    return socketAnswer(fn, this.log);
  }

  @SubscribeMessage('node_control.connect')
  connect(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.answer(() => this.terminal.connect(c, c.data.actor as Actor, parseInput(TerminalConnectArgs, body ?? {})));
  }

  @SubscribeMessage('node_control.write')
  write(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.answer(() => this.terminal.write(c, parseInput(TerminalWriteArgs, body ?? {})));
  }

  @SubscribeMessage('node_control.resize')
  resize(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.answer(() => this.terminal.resize(c, parseInput(TerminalResizeArgs, body ?? {})));
  }

  @SubscribeMessage('node_control.get_status')
  getStatus(@ConnectedSocket() c: Socket) {
    return this.answer(() => this.terminal.getStatus(c));
  }

  @SubscribeMessage('node_control.unsubscribe')
  unsubscribe(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.answer(() => this.terminal.unsubscribe(c, parseInput(TerminalKeyArgs, body ?? {}).key));
  }

  @SubscribeMessage('node_control.mass_write')
  massWrite(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.answer(() => this.terminal.massWrite(c, c.data.actor as Actor, parseInput(MassWriteArgs, body ?? {})));
  }
}
