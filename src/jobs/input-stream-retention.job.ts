import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { InputStreamService } from '../modules/input-stream/input-stream.service.js';

@Injectable()
export class InputStreamRetentionJob {
  constructor(private readonly stream: InputStreamService) {}

  /** Removes input-stream batch ids and aggregates past their retention (CRON_ENABLED; one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_HOUR)
  run() {
    return this.stream.scheduledPrune();
  }
}
