import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { FirewallWorkerService } from '../modules/firewall/firewall-worker.service.js';

@Injectable()
export class FirewallWorkerJob {
  constructor(private readonly worker: FirewallWorkerService) {}

  /** Reads the proxies' access logs (switch on, CRON_ENABLED, one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_MINUTE)
  run() {
    return this.worker.scheduledRun();
  }
}
