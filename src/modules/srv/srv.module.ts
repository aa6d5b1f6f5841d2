import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SshModule } from '../../core/ssh/ssh.module.js';
import { ServerEntity } from './server.entity.js';
import { SrvController } from './srv.controller.js';
import { SrvService } from './srv.service.js';
import { SslHostEntity } from './ssl-host.entity.js';
import { SslService } from './ssl.service.js';

/** Servers and cluster: inventory and map, SSH test, clone, SSL hosts. Exports its services only. */
@Module({
  imports: [TypeOrmModule.forFeature([ServerEntity, SslHostEntity]), SshModule],
  controllers: [SrvController],
  providers: [SrvService, SslService],
  exports: [SrvService, SslService, SshModule],
})
export class SrvModule {}
