import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { col } from '../columns.js';

/**
 * Input stream (issue 13, docs/input-stream.md): the sites that report (token digest for lookup, the
 * token sealed with SECRET_KEY), the batches received (one row per site and batch id: what makes a
 * batch idempotent), and the hour and day aggregates per category and book. `ts` is the epoch hour or
 * epoch day of the bucket; `pos_sum / pos_n` is the average reported position.
 */
const agg = (): TableColumnOptions[] => [
  col.int('Id_cat', { isPrimary: true }),
  col.int('Id_book', { isPrimary: true }),
  col.int('ts', { isPrimary: true }),
  col.int('shows', { default: 0 }),
  col.int('clicks', { default: 0 }),
  { name: 'pos_sum', type: 'double', isNullable: false, default: 0 },
  col.int('pos_n', { default: 0 }),
];

export class InputStream1801000000000 implements MigrationInterface {
  name = 'InputStream1801000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'stream_sites',
      columns: [
        col.id(),
        col.str('name', 190),
        col.str('token_digest', 64),
        col.text('token_sealed', { isNullable: false }),
        col.int('active', { default: 1 }),
        col.time('created_at', { isNullable: false }),
        col.time('last_seen_at'),
        col.int('batches', { default: 0 }),
        col.int('events', { default: 0 }),
      ],
      uniques: [
        { name: 'UQ_stream_sites_name', columnNames: ['name'] },
        { name: 'UQ_stream_sites_token', columnNames: ['token_digest'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'stream_batches',
      columns: [
        col.int('site_id', { isPrimary: true }),
        col.str('batch_id', 64, { isPrimary: true }),
        col.int('events', { default: 0 }),
        col.time('received_at', { isNullable: false }),
      ],
      indices: [{ name: 'IDX_stream_batches_received', columnNames: ['received_at'] }],
    }));
    for (const tier of ['hours', 'days']) {
      await q.createTable(new Table({
        name: `stream_${tier}`,
        columns: agg(),
        indices: [
          { name: `IDX_stream_${tier}_ts`, columnNames: ['ts'] },
          { name: `IDX_stream_${tier}_book`, columnNames: ['Id_book', 'ts'] },
        ],
      }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['stream_days', 'stream_hours', 'stream_batches', 'stream_sites']) await q.dropTable(t);
  }
}
