/** Every area module, one per spec area. Each area appends its module here. */
import { AuthorsModule } from './authors/authors.module.js';
import { BannersModule } from './banners/banners.module.js';
import { CategoriesModule } from './categories/categories.module.js';
import { CompilationsModule } from './compilations/compilations.module.js';
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
import { AskModule } from './ask/ask.module.js';
import { JokesModule } from './jokes/jokes.module.js';
import { SonnikModule } from './sonnik/sonnik.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { NetworkInfoModule } from './network-info/network-info.module.js';
import { SearchNodesModule } from './search-nodes/search-nodes.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { TodoModule } from './todo/todo.module.js';
import { MoneyModule } from './money/money.module.js';
import { InvestModule } from './invest/invest.module.js';

export const AREA_MODULES = [SrvModule, CfgConfigsModule, CronModule, FirewallModule, MonitoringModule, TerminalModule, DeployModule, LogsModule, ContentModule, InputStreamModule, AuthorsModule, CategoriesModule, AskModule, JokesModule, SonnikModule, CompilationsModule, BannersModule, CommentsModule, NetworkInfoModule, SearchNodesModule, NotificationsModule, TodoModule, MoneyModule, InvestModule];
