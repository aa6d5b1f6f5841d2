import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A notification of one user (migration 1811000000000-todo.ts; docs/todo.md "Notifications"): `ref` is
 * unique, so the sender that tries again after a failure never stores a second copy; times in unix seconds.
 */
@Entity('notifications')
@Unique('UQ_notifications_ref', ['ref'])
@Index('IDX_notifications_uid', ['uid', 'Id'])
@Index('IDX_notifications_unread', ['uid', 'read_at'])
export class NotificationEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'varchar', length: 32 }) kind: string;
  @Column({ type: 'varchar', length: 16, default: 'info' }) level: string;
  @Column({ type: 'varchar', length: 255 }) title: string;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) link: string;
  @Column({ type: 'varchar', length: 190 }) ref: string;
  @Column({ type: 'integer', default: 0 }) ts: number;
  @Column({ type: 'integer', default: 0 }) read_at: number;
}

/** A user's own address for alert e-mail ('' none: ALERT_MAIL_TO is used). */
@Entity('notify_settings')
export class NotifySettingsEntity {
  @PrimaryColumn({ type: 'integer' }) uid: number;
  @Column({ type: 'varchar', length: 254, default: '' }) email: string;
}
