import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Terminals (issue 11, docs/terminals.md "Recording"): the index of shell session recordings. */
export class Terminal1790000000000 implements MigrationInterface {
  name = 'Terminal1790000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'term_recordings',
      columns: [
        col.id(),
        col.int('server_id'),
        col.str('server_name', 190),
        col.int('uid', { isNullable: true }),
        col.str('login', 64, { default: "''" }),
        col.time('started_at', { isNullable: false }),
        col.time('ended_at'),
        col.str('file', 190),
        col.int('bytes', { default: 0 }),
        col.str('end_reason', 190, { isNullable: true }),
        col.int('truncated', { default: 0 }),
      ],
      indices: [
        { name: 'IDX_term_recordings_server', columnNames: ['server_id', 'Id'] },
        { name: 'IDX_term_recordings_uid', columnNames: ['uid', 'Id'] },
        { name: 'IDX_term_recordings_started', columnNames: ['started_at'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('term_recordings');
  }
}
