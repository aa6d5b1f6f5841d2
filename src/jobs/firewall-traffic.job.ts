import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { FirewallTrafficService } from '../modules/firewall/firewall-traffic.service.js';

@Injectable()
export class FirewallTrafficJob {
  constructor(private readonly traffic: FirewallTrafficService) {}

  /** Rolls new access log rows up into the traffic report's summary and drops summary hours retention emptied (every instance; a compare-and-set keeps it once), then brings this instance's kept report parts forward. */
  @Cron(CronExpression.EVERY_MINUTE)
  run() {
    return this.traffic.scheduledRollup();
  }
}
