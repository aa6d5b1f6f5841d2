import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ProxyAddArgs, type ProxyAddResult } from '../../contracts/ant.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { AntService } from './ant.service.js';

/** 001 §7 POST /proxy/add (data: list of {ip, login, pass}; reply has a message): POST /api/proxy/add, admins only. */
@Controller('proxy')
@RequireRole(Role.admin)
export class AntProxyController {
  constructor(private readonly ant: AntService) {}

  /** {data: [{ip: 'host:port', login, pass}]}: {message, inserted, updated, total}; the same ip:port updates. */
  @Post('add')
  @HttpCode(200)
  add(@Body() body: unknown): Promise<ProxyAddResult> {
    return this.ant.addProxies(parseInput(ProxyAddArgs, body ?? {}));
  }
}
