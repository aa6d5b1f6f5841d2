import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { WorkerRegistry } from '../core/workers/workers.js';
import { TerminalService } from '../modules/terminal/terminal.service.js';

@Injectable()
export class TerminalRetentionJob {
  constructor(private readonly terminal: TerminalService, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'terminal-retention', label: 'Terminal recordings retention', schedule: 'every hour' });
  }

  /** Removes terminal recordings past TERMINAL_RECORDING_RETENTION_DAYS (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.workers.track('terminal-retention', () => this.terminal.scheduledPrune());
  }
}
