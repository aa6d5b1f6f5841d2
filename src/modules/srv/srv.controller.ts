import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ServerCloneArgs, ServerIdArgs, ServerListArgs, ServerRemoveArgs, ServerSaveArgs } from '../../contracts/srv.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import type { AuthedRequest } from '../../core/auth/auth.guard.js';
import { parseInput } from '../../core/errors.js';
import { SrvService } from './srv.service.js';

/** REST rows of 000 §7 for servers, under /api/srv. The RPC twins live on SrvService. */
@Controller('srv')
@RequireRole(Role.admin)
export class SrvController {
  constructor(private readonly srv: SrvService) {}

  @Get('test_connect_ssh')
  testConnectGet(@Query() q: unknown, @Req() req: AuthedRequest) {
    return this.srv.testConnect(parseInput(ServerIdArgs, q), { actor: req.actor! });
  }

  @Post('test_connect_ssh')
  @HttpCode(200)
  testConnectPost(@Body() body: unknown, @Req() req: AuthedRequest) {
    return this.srv.testConnect(parseInput(ServerIdArgs, body ?? {}), { actor: req.actor! });
  }

  @Post('remove_server_by_id')
  @HttpCode(200)
  remove(@Body() body: unknown) {
    return this.srv.remove(parseInput(ServerRemoveArgs, body ?? {}));
  }

  @Get('servers_map')
  map() {
    return this.srv.serversMap();
  }

  @Get('list')
  list(@Query() q: unknown) {
    return this.srv.getList(parseInput(ServerListArgs, q ?? {}));
  }

  @Post('save_server')
  @HttpCode(200)
  save(@Body() body: unknown) {
    return this.srv.save(parseInput(ServerSaveArgs, body ?? {}));
  }

  @Post('clone_srv')
  @HttpCode(200)
  clone(@Body() body: unknown) {
    return this.srv.clone(parseInput(ServerCloneArgs, body ?? {}));
  }
}
