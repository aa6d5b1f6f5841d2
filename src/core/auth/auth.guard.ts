import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { WsException } from '@nestjs/websockets';
import type { FastifyRequest } from 'fastify';
import type { Socket } from 'socket.io';
import { MSG } from '../../contracts/messages.js';
import { roleAllows } from '../../contracts/roles.js';
import { forbidden, unauthorized } from '../errors.js';
import { SocketSessions } from '../realtime/socket-sessions.service.js';
import { IS_PUBLIC, REQUIRED_ROLE, type Actor } from './actor.js';
import { AuthService } from './auth.service.js';

export type AuthedRequest = FastifyRequest & { actor?: Actor };

export function clientIp(req: FastifyRequest): string {
  return (req.ip ?? req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/**
 * Global guard (APP_GUARD): every REST route and socket message needs a live session unless marked
 * @Public(), and a role at least as strong as its @RequireRole(). Deny by default.
 *
 * A socket message is checked against the session as it is now, not the actor of the handshake:
 * SocketSessions.check re-reads the session with its user (expiry, active flag, role), stores the
 * current actor in `socket.data.actor` for the handler, and ends the socket when the session is over.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector, private readonly auth: AuthService, private readonly sockets: SocketSessions) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets);
    const need = this.reflector.getAllAndOverride<number | undefined>(REQUIRED_ROLE, targets);

    if (ctx.getType() === 'ws') {
      const client = ctx.switchToWs().getClient<Socket>();
      // A refused message is answered on its acknowledgement too (401/403 envelope), besides the 'exception' event,
      // so a client that waits for the answer is not left waiting.
      const refuse = (code: 401 | 403, message: string) => {
        const ack = ctx.getArgs().find((x, i) => i > 1 && typeof x === 'function') as ((e: unknown) => void) | undefined;
        ack?.({ status: 'error', message, code });
        return new WsException(message);
      };
      if (!client.data.actor) throw refuse(401, MSG.sessionRequired);
      const actor = await this.sockets.check(client);
      if (!actor) throw refuse(401, MSG.sessionRequired);
      if (need !== undefined && !roleAllows(actor.role, need)) throw refuse(403, MSG.forbidden);
      return true;
    }

    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const header = req.headers['user'];
    const hash = Array.isArray(header) ? header[0] : header;
    if (hash) {
      const actor = await this.auth.verify(hash);
      if (actor) req.actor = { ...actor, ip: clientIp(req) };
    }
    if (isPublic) return true;
    if (!req.actor) throw unauthorized(MSG.sessionRequired);
    if (need !== undefined && !roleAllows(req.actor.role, need)) throw forbidden(MSG.forbidden);
    return true;
  }
}
