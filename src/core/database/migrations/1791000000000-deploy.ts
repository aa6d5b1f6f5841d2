import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Deploy history (issue 11, docs/deploy.md): one row per deploy, per-node outcomes as JSON text. */
export class Deploy1791000000000 implements MigrationInterface {
  name = 'Deploy1791000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'deploy_runs',
      columns: [
        col.id(),
        col.str('type', 16),
        col.str('host', 128),
        col.int('uid', { isNullable: true }),
        col.str('login', 64, { isNullable: true }),
        col.time('started_at'),
        col.int('duration_ms', { isNullable: true }),
        col.int('ok', { isNullable: true }),
        col.text('nodes'),
      ],
      indices: [{ name: 'IDX_deploy_runs_host', columnNames: ['host', 'Id'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('deploy_runs');
  }
}
