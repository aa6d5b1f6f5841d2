import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterConfigEntity } from './cluster-config.entity.js';
import { CfgConfigsController } from './cfg-configs.controller.js';
import { CfgConfigsService } from './cfg-configs.service.js';

/** Cluster configs and domains. Exports its service only. */
@Module({
  imports: [TypeOrmModule.forFeature([ClusterConfigEntity])],
  controllers: [CfgConfigsController],
  providers: [CfgConfigsService],
  exports: [CfgConfigsService],
})
export class CfgConfigsModule {}
