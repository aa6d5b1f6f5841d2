import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Image storage references (issue 20, docs/architecture.md "Storage"): one row per (alias, owner code);
 * the file named by the alias is kept by the storage backend while a row refers to it.
 */
export class StorageFiles1807000000000 implements MigrationInterface {
  name = 'StorageFiles1807000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'storage_files',
      columns: [
        col.id('Id'),
        col.str('alias', 32),
        col.str('code', 64),
        col.str('domain', 190),
        col.str('file_name', 190),
        col.str('type', 32),
        col.int('size'),
        col.int('width'),
        col.int('height'),
        col.int('uid', { isNullable: true }),
        col.time('created_at', { isNullable: false }),
      ],
      uniques: [{ name: 'UQ_storage_files_alias_code', columnNames: ['alias', 'code'] }],
      indices: [{ name: 'IDX_storage_files_code_created', columnNames: ['code', 'created_at'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('storage_files');
  }
}
