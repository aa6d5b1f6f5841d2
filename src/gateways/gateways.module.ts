import { Module } from '@nestjs/common';
import { CronGateway } from './cron.gateway.js';
import { FirewallGateway } from './firewall.gateway.js';
import { SessionGateway } from './session.gateway.js';

/** socket.io gateways, one per realtime channel family; thin, they call services. */
@Module({ providers: [SessionGateway, CronGateway, FirewallGateway] })
export class GatewaysModule {}
