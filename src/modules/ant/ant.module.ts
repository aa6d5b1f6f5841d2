import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AntSettingsService } from './ant-settings.service.js';
import { AntTokensService } from './ant-tokens.service.js';
import { AntProxyController } from './ant.controller.js';
import { ANT_ENTITIES } from './ant.entities.js';
import { AntService } from './ant.service.js';
import { AntHubService } from './hub/ant-hub.service.js';
import { AiAccountsService } from './proxies/ai-accounts.service.js';
import { ProxiesService } from './proxies/proxies.service.js';
import { TaskQueueService } from './queue/task-queue.service.js';

/**
 * Ant (issue 24; 001 §2 "Ant worker control", "Proxy import"; docs/ant.md): the crawler hub (ant
 * namespace, task queue with leases), tokens, proxies, AI accounts, uniqueness results. Operators'
 * socket messages: src/gateways/ant.gateway.ts. The reference ant: src/ant (`npm run ant`).
 */
@Module({
  imports: [TypeOrmModule.forFeature(ANT_ENTITIES)],
  controllers: [AntProxyController],
  providers: [AntTokensService, AntSettingsService, TaskQueueService, ProxiesService, AiAccountsService, AntHubService, AntService],
  exports: [AntService, AntHubService],
})
export class AntModule {}
