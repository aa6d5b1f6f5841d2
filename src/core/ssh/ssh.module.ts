import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SshHostKeyEntity } from './host-key.entity.js';
import { SshService } from './ssh.service.js';

/** The SSH client service; import this module where SSH is needed (one instance app-wide). */
@Module({
  imports: [TypeOrmModule.forFeature([SshHostKeyEntity])],
  providers: [SshService],
  exports: [SshService],
})
export class SshModule {}
