import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntity } from './audit/audit.entity.js';
import { AuditRpc } from './audit/audit.rpc.js';
import { AuditService } from './audit/audit.service.js';
import { AuthController } from './auth/auth.controller.js';
import { AuthGuard } from './auth/auth.guard.js';
import { AuthService } from './auth/auth.service.js';
import { SessionEntity, UserEntity } from './auth/user.entity.js';
import { UsersService } from './auth/users.service.js';
import { HealthController } from './health.controller.js';
import { AuditInterceptor } from './http/audit.interceptor.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { EnvelopeExceptionFilter } from './http/exception.filter.js';
import { RpcController } from './rpc/rpc.controller.js';
import { RpcRegistry } from './rpc/rpc.registry.js';
import { LeaseService } from './lease.service.js';
import { RealtimeService } from './realtime/realtime.service.js';
import { LiveChannels } from './realtime/live-channels.js';
import { SocketSessions } from './realtime/socket-sessions.service.js';
import { WorkerRegistry, WorkerStateEntity } from './workers/workers.js';
import { WorkersController } from './workers/workers.controller.js';
import { PrivacyController } from './privacy.controller.js';

/** What every area uses: auth and roles, the RPC registry, audit, the envelope, leases, the worker registry. */
@Global()
@Module({
  imports: [DiscoveryModule, TypeOrmModule.forFeature([UserEntity, SessionEntity, AuditEntity, WorkerStateEntity])],
  controllers: [AuthController, HealthController, RpcController, WorkersController, PrivacyController],
  providers: [
    AuthService, UsersService, AuditService, AuditRpc, RpcRegistry, LeaseService, RealtimeService, SocketSessions, LiveChannels, WorkerRegistry,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
  ],
  exports: [AuthService, AuditService, RpcRegistry, LeaseService, RealtimeService, SocketSessions, LiveChannels, WorkerRegistry],
})
export class CoreModule {}
