/** Every area module, one per spec area. Each area appends its module here. */
import { CfgConfigsModule } from './cfg-configs/cfg-configs.module.js';
import { CronModule } from './cron/cron.module.js';
import { FirewallModule } from './firewall/firewall.module.js';
import { MonitoringModule } from './monitoring/monitoring.module.js';
import { SrvModule } from './srv/srv.module.js';

export const AREA_MODULES = [SrvModule, CfgConfigsModule, CronModule, FirewallModule, MonitoringModule];
