import { Table, TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Issue 19 "Worker list and small tools": the `workers` table (src/core/workers/workers.ts: a worker's switch
 * when it has none of its own, and its last run and failure, shared by every instance) and the book
 * categories' `weight` (the /content/cat_weight_sort order: lower first, then Id_cat).
 */
export class WorkersCatWeight1806000000000 implements MigrationInterface {
  name = 'WorkersCatWeight1806000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'workers',
      columns: [
        col.str('name', 64, { isPrimary: true }),
        col.int('enabled', { default: 1 }),
        col.time('last_run'),
        col.text('last_error'),
      ],
    }));
    await q.addColumn('book_cats', new TableColumn(col.int('weight', { default: 0 })));
    await q.createIndex('book_cats', new TableIndex({ name: 'IDX_book_cats_weight', columnNames: ['weight', 'Id_cat'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('book_cats', 'IDX_book_cats_weight');
    await q.dropColumn('book_cats', 'weight');
    await q.dropTable('workers');
  }
}
