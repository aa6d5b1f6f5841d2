import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { Envelope } from '../../contracts/envelope.js';
import { InvestSubscribeArgs, InvestUnsubscribeArgs } from '../../contracts/invest.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput, socketAnswer } from '../../core/errors.js';
import { InvestLiveService } from './services/live.service.js';

/**
 * The investment pattern channel (001 §7; docs/invest.md "Live updates"), every signed-in user like the
 * investment screens: `invest.subscribe {figis?, all?}` acknowledges `{sid}`; refreshed prices and coupon
 * schedules of those bonds then arrive as `invest.update {sid, prices, coupons, at}` on this socket only;
 * `invest.unsubscribe {sid}`, leaving the page or the socket going away ends it.
 */
@WebSocketGateway()
@RequireRole(Role.user)
export class InvestGateway {
  private readonly log = new Logger('InvestGateway');

  constructor(private readonly live: InvestLiveService) {}

  @SubscribeMessage('invest.subscribe')
  subscribe(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => this.live.subscribe(c, parseInput(InvestSubscribeArgs, body ?? {})), this.log);
  }

  @SubscribeMessage('invest.unsubscribe')
  unsubscribe(@ConnectedSocket() c: Socket, @MessageBody() body: unknown): Promise<Envelope> {
    return socketAnswer(() => this.live.unsubscribe(c, parseInput(InvestUnsubscribeArgs, body ?? {}).sid), this.log);
  }
}
