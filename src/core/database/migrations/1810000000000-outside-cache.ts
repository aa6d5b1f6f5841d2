import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * The answer cache of outside services (issue 21, docs/architecture.md "Outside services";
 * src/core/outside/outside-cache.entity.ts): times are epoch milliseconds like the leases.
 */
export class OutsideCache1810000000000 implements MigrationInterface {
  name = 'OutsideCache1810000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'outside_cache',
      columns: [
        col.str('service', 64, { isPrimary: true }),
        col.str('cache_key', 190, { isPrimary: true }),
        { name: 'value', type: 'json', isNullable: true },
        col.int('fetched_at', { type: 'bigint', isNullable: true }),
        col.int('expires_at', { type: 'bigint', isNullable: true }),
        col.int('used_at', { type: 'bigint', default: 0 }),
        col.text('error'),
        col.int('error_at', { type: 'bigint', isNullable: true }),
      ],
      indices: [{ name: 'IDX_outside_cache_used', columnNames: ['service', 'used_at'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('outside_cache');
  }
}
