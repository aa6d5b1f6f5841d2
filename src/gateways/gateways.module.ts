import { Module } from '@nestjs/common';
import { DeployModule } from '../modules/deploy/deploy.module.js';
import { AntGateway } from './ant.gateway.js';
import { CronGateway } from './cron.gateway.js';
import { DeployGateway } from './deploy.gateway.js';
import { FirewallGateway } from './firewall.gateway.js';
import { SessionGateway } from './session.gateway.js';
import { TerminalModule } from '../modules/terminal/terminal.module.js';
import { TerminalGateway } from './terminal.gateway.js';

/** socket.io gateways, one per realtime channel family; thin, they call services. */
@Module({ imports: [TerminalModule, DeployModule], providers: [SessionGateway, CronGateway, FirewallGateway, TerminalGateway, DeployGateway, AntGateway] })
export class GatewaysModule {}
