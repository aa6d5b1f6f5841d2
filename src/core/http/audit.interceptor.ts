import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { catchError, from, mergeMap, type Observable, throwError } from 'rxjs';
import { NO_AUDIT } from '../auth/actor.js';
import type { AuthedRequest } from '../auth/auth.guard.js';
import { inAuditScope, type AuditScope } from '../audit/audit-target.js';
import { AuditService } from '../audit/audit.service.js';
import { toFailure } from '../errors.js';

/** Records every state-changing REST call (non-GET) with who, route, masked arguments and outcome. */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(private readonly audit: AuditService, private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const skip = this.reflector.getAllAndOverride<boolean>(NO_AUDIT, [ctx.getHandler(), ctx.getClass()]);
    if (req.method === 'GET' || req.method === 'HEAD' || skip) return next.handle();
    const started = Date.now();
    const method = `${req.method} ${req.routeOptions.url ?? req.url}`;
    const base = { actor: req.actor, method, args: req.body, started, ip: req.actor?.ip };
    // The handler runs in this scope (Nest binds it when handle() is called), so a service can name its object.
    const scope: AuditScope = { target: null };
    return inAuditScope(scope, () => next.handle()).pipe(
      mergeMap((value) => from(this.audit.record({ ...base, target: scope.target, outcome: 'ok' }).then(() => value))),
      catchError((err) => from(this.audit.record({ ...base, target: scope.target, outcome: 'error', message: toFailure(err).envelope.message })).pipe(mergeMap(() => throwError(() => err)))),
    );
  }
}
