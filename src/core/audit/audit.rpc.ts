import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { AuditGetArgs, AuditListArgs } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import { Rpc } from '../rpc/rpc.decorator.js';
import { AuditService } from './audit.service.js';

@Injectable()
export class AuditRpc {
  constructor(private readonly audit: AuditService) {}

  @Rpc('audit.getList', {
    role: Role.admin, input: AuditListArgs,
    summary: "Audit rows newest first, filter by method (substring), login, outcome, from/to (inclusive; 'YYYY-MM-DD' is a whole UTC day, or an ISO date-time with a zone): {list: [{Id, ts, uid, login, method, args, target, outcome, message, ip, duration_ms}], count, page, limit}; target names the object acted on ('server web-1 (#3)')",
  })
  getList(q: z.output<typeof AuditListArgs>) {
    return this.audit.list(q);
  }

  @Rpc('audit.get', { role: Role.admin, input: AuditGetArgs, summary: '{Id}: one audit row (as in audit.getList) with its whole masked arguments; 404 when it does not exist' })
  get(q: z.output<typeof AuditGetArgs>) {
    return this.audit.get(q.Id);
  }
}
