import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { TerminalService } from '../modules/terminal/terminal.service.js';

@Injectable()
export class TerminalRetentionJob {
  constructor(private readonly terminal: TerminalService) {}

  /** Removes terminal recordings past TERMINAL_RECORDING_RETENTION_DAYS (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.terminal.scheduledPrune();
  }
}
