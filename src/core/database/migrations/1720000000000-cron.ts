import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Cron (000 §3 Cron task): tasks, their run history and the shared settings (service switch, lock namespace). */
export class Cron1720000000000 implements MigrationInterface {
  name = 'Cron1720000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'cron_tasks',
      columns: [
        col.id(),
        col.str('name', 190),
        col.str('second', 64, { default: "'0'" }),
        col.str('minute', 64, { default: "'*'" }),
        col.str('hour', 64, { default: "'*'" }),
        col.str('day', 64, { default: "'*'" }),
        col.str('month', 64, { default: "'*'" }),
        col.str('week', 64, { default: "'*'" }),
        col.text('cmd', { isNullable: false }),
        col.int('suspended', { default: 0 }),
        col.int('uid', { isNullable: true }),
        col.time('added', { isNullable: false }),
        col.time('updated'),
      ],
    }));
    await q.createTable(new Table({
      name: 'cron_runs',
      columns: [
        col.id(),
        col.int('task_id'),
        col.str('source', 16),
        col.time('scheduled'),
        col.time('started', { isNullable: false }),
        col.time('ended', { isNullable: false }),
        col.str('status', 16),
        col.str('message', 500, { isNullable: true }),
        col.text('output'),
        col.int('duration_ms', { default: 0 }),
        col.str('instance', 64, { default: "''" }),
        col.int('uid', { isNullable: true }),
      ],
      indices: [{ name: 'IDX_cron_runs_task', columnNames: ['task_id', 'Id'] }],
    }));
    await q.createTable(new Table({
      name: 'cron_settings',
      columns: [col.str('name', 64, { isPrimary: true }), col.str('value', 190)],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['cron_settings', 'cron_runs', 'cron_tasks']) await q.dropTable(t);
  }
}
