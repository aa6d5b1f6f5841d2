import { Module } from '@nestjs/common';
import { AuditRetentionJob } from './audit-retention.job.js';
import { FirewallModule } from '../modules/firewall/firewall.module.js';
import { SrvModule } from '../modules/srv/srv.module.js';
import { FirewallRetentionJob } from './firewall-retention.job.js';
import { FirewallTrafficJob } from './firewall-traffic.job.js';
import { FirewallWorkerJob } from './firewall-worker.job.js';
import { InputStreamModule } from '../modules/input-stream/input-stream.module.js';
import { InputStreamRetentionJob } from './input-stream-retention.job.js';
import { MonitoringCollectJob } from './monitoring-collect.job.js';
import { MonitoringRetentionJob } from './monitoring-retention.job.js';
import { MonitoringModule } from '../modules/monitoring/monitoring.module.js';
import { SessionCleanupJob } from './session-cleanup.job.js';
import { SearchNodesModule } from '../modules/search-nodes/search-nodes.module.js';
import { SphinxRotateJob } from './sphinx-rotate.job.js';
import { SslCheckJob } from './ssl-check.job.js';
import { TerminalModule } from '../modules/terminal/terminal.module.js';
import { TerminalRetentionJob } from './terminal-retention.job.js';
import { TodoModule } from '../modules/todo/todo.module.js';
import { TodoAlertsJob } from './todo-alerts.job.js';
import { InvestModule } from '../modules/invest/invest.module.js';
import { InvestPricesJob } from './invest-prices.job.js';
import { InvestRefreshJob } from './invest-refresh.job.js';
import { WbModule } from '../modules/wb/wb.module.js';
import { WbSyncJob } from './wb-sync.job.js';
import { PositionModule } from '../modules/position/position.module.js';
import { PositionCheckJob } from './position-check.job.js';

/** Scheduled work; each job a one-line call into a module's service. */
@Module({ imports: [SrvModule, FirewallModule, MonitoringModule, TerminalModule, InputStreamModule, SearchNodesModule, TodoModule, InvestModule, PositionModule, WbModule], providers: [SessionCleanupJob, AuditRetentionJob, SslCheckJob, FirewallWorkerJob, FirewallRetentionJob, FirewallTrafficJob, MonitoringCollectJob, MonitoringRetentionJob, TerminalRetentionJob, InputStreamRetentionJob, SphinxRotateJob, TodoAlertsJob, InvestRefreshJob, InvestPricesJob, PositionCheckJob, WbSyncJob] })
export class JobsModule {}
