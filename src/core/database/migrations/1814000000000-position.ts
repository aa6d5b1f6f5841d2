import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Search positions (issue 23 "Search positions"; 001 §3 Project, Query; docs/position.md "Tables"): the
 * projects (site domain, engine, region, schedule, depth), their queries with the current position kept
 * on the row (the last good check: `pos` null means "not in the top `pos_top`", `pos_top` 0 never
 * checked), the stale mark of a failed check (time and error) and the scheduler's next time and claim,
 * and the history: one row per query and day. Times are epoch milliseconds (bigint).
 */
export class Position1814000000000 implements MigrationInterface {
  name = 'Position1814000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'position_projects',
      columns: [
        col.id('id_project'),
        col.str('name', 190),
        col.str('domain', 190),
        col.str('engine', 16, { default: "'yandex'" }),
        col.int('region', { default: 213 }),
        col.int('schedule_hours', { default: 24 }),
        col.int('depth', { default: 100 }),
        col.int('created_at', { type: 'bigint', default: 0 }),
        col.int('updated_at', { type: 'bigint', default: 0 }),
      ],
    }));
    await q.createTable(new Table({
      name: 'position_queries',
      columns: [
        col.id('id_query'),
        col.int('id_project'),
        col.str('query_text', 400),
        col.str('query_key', 64),
        col.int('cat_id', { default: 0 }),
        col.int('checked', { type: 'bigint', default: 0 }),
        col.int('pos', { isNullable: true }),
        col.int('pos_top', { default: 0 }),
        col.str('pos_date', 10, { default: "''" }),
        col.int('stale', { default: 0 }),
        col.text('error'),
        col.int('error_at', { type: 'bigint', default: 0 }),
        col.int('next_check_at', { type: 'bigint', default: 0 }),
        col.int('claim_until', { type: 'bigint', default: 0 }),
        col.int('created_at', { type: 'bigint', default: 0 }),
      ],
      uniques: [{ name: 'UQ_position_queries_key', columnNames: ['id_project', 'query_key'] }],
      indices: [
        { name: 'IDX_position_queries_due', columnNames: ['next_check_at'] },
        { name: 'IDX_position_queries_project', columnNames: ['id_project', 'id_query'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'position_history',
      columns: [
        col.int('id_query', { isPrimary: true }),
        col.str('day', 10, { isPrimary: true }),
        col.int('id_project'),
        col.int('pos', { isNullable: true }),
        col.int('top', { default: 0 }),
        col.str('url', 500, { default: "''" }),
        col.int('checked_at', { type: 'bigint', default: 0 }),
      ],
      indices: [
        { name: 'IDX_position_history_project', columnNames: ['id_project', 'day'] },
        { name: 'IDX_position_history_day', columnNames: ['day'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('position_history');
    await q.dropTable('position_queries');
    await q.dropTable('position_projects');
  }
}
