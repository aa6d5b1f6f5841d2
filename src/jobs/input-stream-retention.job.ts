import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { WorkerRegistry } from '../core/workers/workers.js';
import { InputStreamService } from '../modules/input-stream/input-stream.service.js';

@Injectable()
export class InputStreamRetentionJob {
  constructor(private readonly stream: InputStreamService, private readonly workers: WorkerRegistry) {
    workers.register({ name: 'input-stream-retention', label: 'Input stream retention', schedule: 'every hour' });
  }

  /** Removes input-stream batch ids and aggregates past their retention (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.workers.track('input-stream-retention', () => this.stream.scheduledPrune());
  }
}
