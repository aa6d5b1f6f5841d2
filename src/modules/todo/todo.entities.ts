import { Column, Entity, Index, PrimaryGeneratedColumn, Unique, type ValueTransformer } from 'typeorm';

/** bigint columns come back as strings from mysql2; epoch milliseconds stay far below 2^53. */
const ms: ValueTransformer = { to: (v: number) => v, from: (v: string | number | null) => (v === null ? 0 : Number(v)) };

/** A todo of 001 §3 (migration 1811000000000-todo.ts), owned by `uid`; times in unix seconds; `text` is sanitised HTML. */
@Entity('todos')
@Index('IDX_todos_uid_status', ['uid', 'status', 'Id'])
@Index('IDX_todos_status', ['status', 'Id'])
@Index('IDX_todos_alert_next', ['alert_next'])
export class TodoEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'varchar', length: 255 }) title: string;
  @Column({ type: 'text', nullable: true }) text: string | null;
  @Column({ type: 'integer', default: 0 }) type: number;
  @Column({ type: 'integer', default: 0 }) status: number;
  @Column({ type: 'integer', default: 0 }) ts_create: number;
  @Column({ type: 'integer', default: 0 }) ts_update: number;
  @Column({ type: 'integer', default: 0 }) ts_alert: number;
  @Column({ type: 'varchar', length: 190, default: '' }) alert_type: string;
  /** The next due time of the alert (unix seconds), 0 when none or finished: what the alert job scans. */
  @Column({ type: 'integer', default: 0 }) alert_next: number;
}

/** The version of a todo before a change (001 §4: saved before each change), with who (`uid`) and when (`ts`). */
@Entity('todo_history')
@Index('IDX_todo_history_todo', ['todo_id', 'Id'])
export class TodoHistoryEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) todo_id: number;
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'integer', default: 0 }) ts: number;
  @Column({ type: 'varchar', length: 16 }) action: string;
  @Column({ type: 'varchar', length: 255 }) title: string;
  @Column({ type: 'text', nullable: true }) text: string | null;
  @Column({ type: 'integer', default: 0 }) type: number;
  @Column({ type: 'integer', default: 0 }) status: number;
  @Column({ type: 'integer', default: 0 }) ts_alert: number;
  @Column({ type: 'varchar', length: 190, default: '' }) alert_type: string;
  @Column({ type: 'integer', default: 0 }) ts_update: number;
}

/**
 * One due time of a todo's alert (docs/todo.md "Delivery"): unique per (todo, due time), so an alert is
 * delivered once however many instances scan; `claim` + `lease_until` say which instance works on it;
 * `pending` stays 1 while work remains (the notification, or an e-mail to send or try again).
 */
@Entity('todo_alerts')
@Unique('UQ_todo_alerts_due', ['todo_id', 'due_at'])
@Index('IDX_todo_alerts_work', ['pending', 'lease_until'])
@Index('IDX_todo_alerts_claim', ['claim'])
export class TodoAlertEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) todo_id: number;
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'integer' }) due_at: number;
  @Column({ type: 'integer', default: 0 }) late: number;
  @Column({ type: 'integer', default: 1 }) pending: number;
  @Column({ type: 'varchar', length: 64, default: '' }) claim: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) lease_until: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) notified_at: number;
  @Column({ type: 'varchar', length: 16, default: 'none' }) mail_state: string;
  @Column({ type: 'varchar', length: 255, default: '' }) mail_to: string;
  @Column({ type: 'integer', default: 0 }) mail_tries: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) mail_next_at: number;
  @Column({ type: 'text', nullable: true }) mail_error: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) mail_sent_at: number;
  @Column({ type: 'varchar', length: 255, default: '' }) mail_id: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) created_at: number;
}
