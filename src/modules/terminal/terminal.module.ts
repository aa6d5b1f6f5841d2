import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SrvModule } from '../srv/srv.module.js';
import { RecordingEntity } from './recording.entity.js';
import { TerminalController } from './terminal.controller.js';
import { TerminalService } from './terminal.service.js';

/** Terminals (000 §2 terminal grid, /srv/MassTerminal; §7 node_control.*): shells, mass write, recordings. docs/terminals.md. */
@Module({
  imports: [TypeOrmModule.forFeature([RecordingEntity]), SrvModule],
  controllers: [TerminalController],
  providers: [TerminalService],
  exports: [TerminalService],
})
export class TerminalModule {}
