import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { AuditListArgs } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import { Rpc } from '../rpc/rpc.decorator.js';
import { AuditService } from './audit.service.js';

@Injectable()
export class AuditRpc {
  constructor(private readonly audit: AuditService) {}

  @Rpc('audit.getList', { role: Role.admin, input: AuditListArgs, summary: 'Audit rows newest first, filter by method (substring), login, outcome: {list, count, page, limit}' })
  getList(q: z.output<typeof AuditListArgs>) {
    return this.audit.list(q);
  }
}
