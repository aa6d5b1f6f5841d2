import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import type { FastifyReply } from 'fastify';
import type { Socket } from 'socket.io';
import { toFailure } from '../errors.js';

/**
 * The one place failures become answers: an envelope with a clear message and the right status.
 * Unexpected errors are logged with their stack and answered as a bare 'Internal error'.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly log = new Logger('Http');

  catch(err: unknown, host: ArgumentsHost) {
    if (host.getType() === 'ws') {
      const client = host.switchToWs().getClient<Socket>();
      const message = err instanceof WsException ? String(err.getError()) : toFailure(err).envelope.message;
      if (!(err instanceof WsException) && toFailure(err).unexpected) this.log.error((err as Error)?.stack ?? String(err));
      client.emit('exception', { status: 'error', message });
      return;
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const f = toFailure(err);
    if (f.unexpected) this.log.error((err as Error)?.stack ?? String(err));
    if (reply.sent || reply.raw.headersSent) return;
    // A body refused for its size is not read any further: the connection closes after the answer.
    if (f.httpStatus === 413) reply.header('Connection', 'close');
    reply.status(f.httpStatus).send(f.envelope);
  }
}
