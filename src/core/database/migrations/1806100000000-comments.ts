import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Issue 19 /comments (docs/content.md "Comments"): the reported comments and the decisions the sites read back. */
export class Comments1806100000000 implements MigrationInterface {
  name = 'Comments1806100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'comments',
      columns: [
        col.id(),
        col.int('site_id'),
        col.str('ext_id', 64),
        col.int('Id_book', { isNullable: true }),
        col.str('url', 500, { default: "''" }),
        col.str('author', 100, { default: "''" }),
        col.text('body'),
        col.str('reason', 200, { default: "''" }),
        col.time('written_at', { isNullable: false }),
        col.time('reported_at', { isNullable: false }),
        col.int('reports', { default: 1 }),
        col.int('status', { default: 0 }),
        col.time('decided_at'),
        col.int('decided_by', { isNullable: true }),
      ],
      uniques: [{ name: 'UQ_comments_site_ext', columnNames: ['site_id', 'ext_id'] }],
      indices: [{ name: 'IDX_comments_status', columnNames: ['status', 'reported_at'] }],
    }));
    await q.createTable(new Table({
      name: 'comment_decisions',
      columns: [col.id(), col.int('site_id'), col.str('ext_id', 64), col.str('decision', 16), col.time('at', { isNullable: false })],
      indices: [
        { name: 'IDX_comment_decisions_site', columnNames: ['site_id', 'Id'] },
        { name: 'IDX_comment_decisions_at', columnNames: ['at'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('comment_decisions');
    await q.dropTable('comments');
  }
}
