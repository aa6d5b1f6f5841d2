/** Every area module, one per spec area. Each area appends its module here. */
import { AuthorsModule } from './authors/authors.module.js';
import { CategoriesModule } from './categories/categories.module.js';
import { CfgConfigsModule } from './cfg-configs/cfg-configs.module.js';
import { DeployModule } from './deploy/deploy.module.js';
import { ContentModule } from './content/content.module.js';
import { CronModule } from './cron/cron.module.js';
import { InputStreamModule } from './input-stream/input-stream.module.js';
import { FirewallModule } from './firewall/firewall.module.js';
import { LogsModule } from './logs/logs.module.js';
import { MonitoringModule } from './monitoring/monitoring.module.js';
import { SrvModule } from './srv/srv.module.js';
import { TerminalModule } from './terminal/terminal.module.js';

export const AREA_MODULES = [SrvModule, CfgConfigsModule, CronModule, FirewallModule, MonitoringModule, TerminalModule, DeployModule, LogsModule, ContentModule, InputStreamModule, AuthorsModule, CategoriesModule];
