import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InputStreamModule } from '../input-stream/input-stream.module.js';
import { NetworkTplController } from './network-info.controller.js';
import { NET_ENTITIES } from './network-info.entities.js';
import { NetworkInfoService } from './network-info.service.js';

/** Network info (issue 20, 001 §2 "Network info"; docs/network-info.md): hosts, pages, categories (RPC network_info.*) and GET /tpl/get_hosts. */
@Module({
  imports: [TypeOrmModule.forFeature(NET_ENTITIES), InputStreamModule],
  controllers: [NetworkTplController],
  providers: [NetworkInfoService],
  exports: [NetworkInfoService],
})
export class NetworkInfoModule {}
