import { Module } from '@nestjs/common';
import { SessionGateway } from './session.gateway.js';

/** socket.io gateways, one per realtime channel family; thin, they call services. */
@Module({ providers: [SessionGateway] })
export class GatewaysModule {}
