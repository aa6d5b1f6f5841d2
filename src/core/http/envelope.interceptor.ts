import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { RAW_RESPONSE } from './raw.js';
import { Reflector } from '@nestjs/core';

/** Wraps every REST handler's return value as {status: 'ok', result} (000 §3 "Response wrapper"). */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http' || this.reflector.get<boolean>(RAW_RESPONSE, ctx.getHandler())) return next.handle();
    return next.handle().pipe(map((result) => ({ status: 'ok', result: result ?? null })));
  }
}
