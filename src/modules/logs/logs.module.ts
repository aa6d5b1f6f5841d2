import { Module } from '@nestjs/common';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { LogsController } from './logs.controller.js';
import { LogsGateway } from './logs.gateway.js';
import { LogsService } from './logs.service.js';

/** Log viewing on nodes and 'Deploy configs', through the node agents (docs/agent.md; the client is src/core/outside/agent.client.ts). Exports its service only. */
@Module({
  imports: [SrvModule, CfgConfigsModule, OutsideModule],
  controllers: [LogsController],
  providers: [LogsService, LogsGateway],
  exports: [LogsService],
})
export class LogsModule {}
