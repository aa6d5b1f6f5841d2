import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';

/** Structured JSON logs (pino) behind Nest's LoggerService, so framework and app logs share one format. */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  constructor(level = 'info') {
    this.pino = pino({ level, base: { app: 'ops-console' }, timestamp: pino.stdTimeFunctions.isoTime });
  }

  private ctx(optional: unknown[]) {
    const last = optional[optional.length - 1];
    return typeof last === 'string' ? { context: last } : {};
  }
  log(message: unknown, ...optional: unknown[]) { this.pino.info(this.ctx(optional), String(message)); }
  error(message: unknown, ...optional: unknown[]) {
    const stack = typeof optional[0] === 'string' && optional.length > 1 ? { stack: optional[0] } : {};
    this.pino.error({ ...this.ctx(optional), ...stack }, message instanceof Error ? message.message : String(message));
  }
  warn(message: unknown, ...optional: unknown[]) { this.pino.warn(this.ctx(optional), String(message)); }
  debug(message: unknown, ...optional: unknown[]) { this.pino.debug(this.ctx(optional), String(message)); }
  verbose(message: unknown, ...optional: unknown[]) { this.pino.trace(this.ctx(optional), String(message)); }
}
