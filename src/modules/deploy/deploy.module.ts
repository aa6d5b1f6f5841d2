import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { ConsoleService } from './console.service.js';
import { DeployRunEntity } from './deploy-run.entity.js';
import { DeployService } from './deploy.service.js';
import { RunOnceService } from './run-once.service.js';

/** Run once, deploy and the server console (issue 11). Decisions: docs/deploy.md. */
@Module({
  imports: [TypeOrmModule.forFeature([DeployRunEntity]), SrvModule, CfgConfigsModule],
  providers: [RunOnceService, DeployService, ConsoleService],
  exports: [RunOnceService, DeployService, ConsoleService],
})
export class DeployModule {}
