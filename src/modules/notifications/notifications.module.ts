import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationEntity, NotifySettingsEntity } from './notifications.entities.js';
import { NotificationsService } from './notifications.service.js';

/** The notification list and the bell of the top bar (issue 21; docs/todo.md "Notifications"): RPC notify.*, `push` for senders. */
@Module({
  imports: [TypeOrmModule.forFeature([NotificationEntity, NotifySettingsEntity])],
  providers: [NotificationsService],
  exports: [NotificationsService],
})
export class NotificationsModule {}
