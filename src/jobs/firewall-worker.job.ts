import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { WorkerRegistry } from '../core/workers/workers.js';
import { FirewallWorkerService } from '../modules/firewall/worker/firewall-worker.service.js';

@Injectable()
export class FirewallWorkerJob {
  constructor(private readonly worker: FirewallWorkerService, private readonly workers: WorkerRegistry) {
    // its switch is the firewall screens' one (fw_settings, firewall.setWorkerStatus)
    workers.register({
      name: 'firewall-worker', label: 'Firewall worker', schedule: 'every minute',
      switch: {
        get: async () => (await worker.getStatus()).status === 1,
        set: async (on) => { await worker.setStatus({ status: on ? 1 : 0 }); },
      },
    });
  }

  /** Reads the proxies' access logs (switch on, CRON_ENABLED, one instance at a time: the lease). */
  @Cron(CronExpression.EVERY_MINUTE)
  run() {
    return this.workers.track('firewall-worker', () => this.worker.scheduledRun(), (results) => {
      const failed = results.filter((r) => r.error);
      return failed.length ? failed.map((r) => `${r.name}: ${r.error}`).join('; ') : null;
    });
  }
}
