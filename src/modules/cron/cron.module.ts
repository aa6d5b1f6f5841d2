import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from '../../core/auth/user.entity.js';
import { CronEngine } from './cron-engine.js';
import { CronHistory } from './cron-history.js';
import { CronController } from './cron.controller.js';
import { CronRunEntity, CronSettingEntity, CronTaskEntity } from './cron.entities.js';
import { CronService } from './cron.service.js';
import { CronWorker } from './cron-worker.js';

/**
 * Cron (000 §2 "Cron"): tasks, REST and RPC here; the engine (schedules, runs, locks) beside them,
 * provided by this module so saves reach it directly. The socket messages are in src/gateways/cron.gateway.ts.
 */
@Module({
  imports: [TypeOrmModule.forFeature([CronTaskEntity, CronRunEntity, CronSettingEntity, UserEntity])],
  controllers: [CronController],
  providers: [CronService, CronHistory, CronEngine, CronWorker],
  exports: [CronService],
})
export class CronModule {}
