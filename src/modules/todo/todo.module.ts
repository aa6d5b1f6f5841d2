import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { TodoAlertsService } from './todo-alerts.service.js';
import { TodoAlertEntity, TodoEntity, TodoHistoryEntity } from './todo.entities.js';
import { TodoService } from './todo.service.js';

/** Todo with alerts that arrive (issue 21, 001 §2 "Todo"): RPC todo.*; the alert job's pass (src/jobs/todo-alerts.job.ts). Decisions: docs/todo.md. */
@Module({
  imports: [TypeOrmModule.forFeature([TodoEntity, TodoHistoryEntity, TodoAlertEntity]), NotificationsModule, OutsideModule],
  providers: [TodoService, TodoAlertsService],
  exports: [TodoService, TodoAlertsService],
})
export class TodoModule {}
