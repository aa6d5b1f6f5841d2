import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import type { Response } from 'express';
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
    const res = host.switchToHttp().getResponse<Response>();
    const f = toFailure(err);
    if (f.unexpected) this.log.error((err as Error)?.stack ?? String(err));
    if (res.headersSent) return;
    res.status(f.httpStatus).json(f.envelope);
  }
}
