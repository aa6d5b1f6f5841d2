import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Todo with alerts (issue 21, 001 §3 Todo, docs/todo.md): the todos (times in unix seconds as the spec's
 * ts_* fields; `alert_next` the next due time the alert job scans for), the version saved before each
 * change with who and when, one row per (todo, due time) of an alert (the unique key is what makes a
 * due time delivered once across instances; its lease and its e-mail state), and the notification list
 * with each user's own address for alert e-mail. Epoch milliseconds (bigint) for leases, as elsewhere.
 */
export class Todo1811000000000 implements MigrationInterface {
  name = 'Todo1811000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'todos',
      columns: [
        col.id(),
        col.int('uid'),
        col.str('title', 255),
        col.text('text'),
        col.int('type', { default: 0 }),
        col.int('status', { default: 0 }),
        col.int('ts_create', { default: 0 }),
        col.int('ts_update', { default: 0 }),
        col.int('ts_alert', { default: 0 }),
        col.str('alert_type', 190, { default: "''" }),
        col.int('alert_next', { default: 0 }),
      ],
      indices: [
        { name: 'IDX_todos_uid_status', columnNames: ['uid', 'status', 'Id'] },
        { name: 'IDX_todos_status', columnNames: ['status', 'Id'] },
        { name: 'IDX_todos_alert_next', columnNames: ['alert_next'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'todo_history',
      columns: [
        col.id(),
        col.int('todo_id'),
        col.int('uid'),
        col.int('ts', { default: 0 }),
        col.str('action', 16),
        col.str('title', 255),
        col.text('text'),
        col.int('type', { default: 0 }),
        col.int('status', { default: 0 }),
        col.int('ts_alert', { default: 0 }),
        col.str('alert_type', 190, { default: "''" }),
        col.int('ts_update', { default: 0 }),
      ],
      indices: [{ name: 'IDX_todo_history_todo', columnNames: ['todo_id', 'Id'] }],
    }));
    await q.createTable(new Table({
      name: 'todo_alerts',
      columns: [
        col.id(),
        col.int('todo_id'),
        col.int('uid'),
        col.int('due_at'),
        col.int('late', { default: 0 }),
        col.int('pending', { default: 1 }),
        col.str('claim', 64, { default: "''" }),
        col.int('lease_until', { type: 'bigint', default: 0 }),
        col.int('notified_at', { type: 'bigint', default: 0 }),
        col.str('mail_state', 16, { default: "'none'" }),
        col.str('mail_to', 255, { default: "''" }),
        col.int('mail_tries', { default: 0 }),
        col.int('mail_next_at', { type: 'bigint', default: 0 }),
        col.text('mail_error'),
        col.int('mail_sent_at', { type: 'bigint', default: 0 }),
        col.str('mail_id', 255, { default: "''" }),
        col.int('created_at', { type: 'bigint', default: 0 }),
      ],
      uniques: [{ name: 'UQ_todo_alerts_due', columnNames: ['todo_id', 'due_at'] }],
      indices: [
        { name: 'IDX_todo_alerts_work', columnNames: ['pending', 'lease_until'] },
        { name: 'IDX_todo_alerts_claim', columnNames: ['claim'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'notifications',
      columns: [
        col.id(),
        col.int('uid'),
        col.str('kind', 32),
        col.str('level', 16, { default: "'info'" }),
        col.str('title', 255),
        col.text('body'),
        col.str('link', 255, { default: "''" }),
        col.str('ref', 190),
        col.int('ts', { default: 0 }),
        col.int('read_at', { default: 0 }),
      ],
      uniques: [{ name: 'UQ_notifications_ref', columnNames: ['ref'] }],
      indices: [
        { name: 'IDX_notifications_uid', columnNames: ['uid', 'Id'] },
        { name: 'IDX_notifications_unread', columnNames: ['uid', 'read_at'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'notify_settings',
      columns: [
        col.int('uid', { isPrimary: true }),
        col.str('email', 254, { default: "''" }),
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['notify_settings', 'notifications', 'todo_alerts', 'todo_history', 'todos']) await q.dropTable(t);
  }
}
