import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Role } from '../../contracts/roles.js';
import { RecordingIdArgs } from '../../contracts/terminal.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { TerminalService } from './terminal.service.js';

/** A recording's asciicast v2 file, for the replay page (admins). The index is the RPC `terminal.recordings`. */
@Controller('terminal')
@RequireRole(Role.admin)
export class TerminalController {
  constructor(private readonly terminal: TerminalService) {}

  @Get('recordings/:Id/cast')
  async cast(@Param('Id') Id: string, @Res() reply: FastifyReply) {
    const { row, stream } = await this.terminal.castStream(parseInput(RecordingIdArgs, { Id }).Id);
    return reply
      .status(200)
      .header('content-type', 'application/x-asciicast; charset=utf-8')
      .header('content-disposition', `inline; filename="recording-${row.Id}.cast"`)
      .header('cache-control', 'no-store')
      .send(stream);
  }
}
