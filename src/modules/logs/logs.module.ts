import { Module } from '@nestjs/common';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { AgentClient } from './agent-client.js';
import { LogsController } from './logs.controller.js';
import { LogsGateway } from './logs.gateway.js';
import { LogsService } from './logs.service.js';

/** Log viewing on nodes and 'Deploy configs', through the node agents (docs/agent.md). Exports its service only. */
@Module({
  imports: [SrvModule, CfgConfigsModule],
  controllers: [LogsController],
  providers: [AgentClient, LogsService, LogsGateway],
  exports: [LogsService],
})
export class LogsModule {}
