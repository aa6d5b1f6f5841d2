import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { maskSecrets, maskSecretText } from './audit/mask.js';

/**
 * Structured JSON logs (pino) behind Nest's LoggerService, so framework, database and app logs share
 * one format: one JSON object a line. Every line goes through the audit log's masking
 * (src/core/audit/mask.ts): secret-looking fields become '***', URL credentials and secret query
 * parameters and `name=value` pairs are masked, in the message and in every field. The database logs through here too (database/typeorm-logger.ts), never
 * with query parameters.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  /** `destination`: where the lines go (stdout by default; tests pass a stream to read them). */
  constructor(level = 'info', destination?: DestinationStream) {
    this.pino = pino(
      {
        level,
        base: { app: 'ops-console' },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { log: (obj) => maskSecrets(obj) as Record<string, unknown> },
        hooks: {
          logMethod(args, method) {
            // The message (and printf-style arguments) of a line: URL credentials and secret name=value pairs masked.
            for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = maskSecretText(args[i] as string);
            return method.apply(this, args);
          },
        },
      },
      destination,
    );
  }

  private ctx(optional: unknown[]) {
    const last = optional[optional.length - 1];
    return typeof last === 'string' ? { context: last } : {};
  }

  /** A message that is an object is logged as its fields (masked), not as '[object Object]'. */
  private write(level: 'info' | 'warn' | 'debug' | 'trace', message: unknown, optional: unknown[]) {
    if (message && typeof message === 'object' && !(message instanceof Error)) this.pino[level]({ ...this.ctx(optional), data: message });
    else this.pino[level](this.ctx(optional), message instanceof Error ? message.message : String(message));
  }

  log(message: unknown, ...optional: unknown[]) { this.write('info', message, optional); }
  error(message: unknown, ...optional: unknown[]) {
    const stack = typeof optional[0] === 'string' && optional.length > 1 ? { stack: optional[0] } : message instanceof Error && message.stack ? { stack: message.stack } : {};
    this.pino.error({ ...this.ctx(optional), ...stack }, message instanceof Error ? message.message : String(message));
  }
  warn(message: unknown, ...optional: unknown[]) { this.write('warn', message, optional); }
  debug(message: unknown, ...optional: unknown[]) { this.write('debug', message, optional); }
  verbose(message: unknown, ...optional: unknown[]) { this.write('trace', message, optional); }
  fatal(message: unknown, ...optional: unknown[]) { this.pino.fatal(this.ctx(optional), String(message)); }
}
