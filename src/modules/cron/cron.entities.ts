import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** Cron task of 000 §3 (Id, name, the six schedule fields, cmd, suspended) plus when it was added and who saved it. */
@Entity('cron_tasks')
export class CronTaskEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  @Column({ type: 'varchar', length: 64, default: '0' }) second: string;
  @Column({ type: 'varchar', length: 64, default: '*' }) minute: string;
  @Column({ type: 'varchar', length: 64, default: '*' }) hour: string;
  @Column({ type: 'varchar', length: 64, default: '*' }) day: string;
  @Column({ type: 'varchar', length: 64, default: '*' }) month: string;
  @Column({ type: 'varchar', length: 64, default: '*' }) week: string;
  /** The cmd as shown: a `curl=` URL's credentials masked (`user:***@`); the real ones are in cmd_secret. */
  @Column({ type: 'text' }) cmd: string;
  /** The credentials (userinfo) of a `curl=` task's URL, sealed with SecretBox; null when it has none. */
  @Column({ type: 'text', nullable: true }) cmd_secret: string | null;
  @Column({ type: 'integer', default: 0 }) suspended: number;
  /** The admin who last saved the task: its actions run with that admin's role. */
  @Column({ type: 'integer', nullable: true }) uid: number | null;
  @Column({ type: 'datetime', precision: 3 }) added: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) updated: Date | null;
}

/** One run (or skipped tick) of a task: the history behind each card. No foreign key: runs are written in batches. */
@Entity('cron_runs')
@Index('IDX_cron_runs_task', ['task_id', 'Id'])
export class CronRunEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) task_id: number;
  @Column({ type: 'varchar', length: 16 }) source: string;
  @Column({ type: 'datetime', precision: 3, nullable: true }) scheduled: Date | null;
  @Column({ type: 'datetime', precision: 3 }) started: Date;
  @Column({ type: 'datetime', precision: 3 }) ended: Date;
  @Column({ type: 'varchar', length: 16 }) status: string;
  @Column({ type: 'varchar', length: 500, nullable: true }) message: string | null;
  @Column({ type: 'text', nullable: true }) output: string | null;
  @Column({ type: 'integer', default: 0 }) duration_ms: number;
  @Column({ type: 'varchar', length: 64, default: '' }) instance: string;
  @Column({ type: 'integer', nullable: true }) uid: number | null;
}

/** Cron settings shared by every instance: the service switch and the lock namespace. */
@Entity('cron_settings')
export class CronSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'varchar', length: 190 }) value: string;
}
