import type { TableColumnOptions } from 'typeorm';

/**
 * Portable column helpers for migrations written with the QueryRunner Table API, so one set of
 * migrations runs on SQLite (better-sqlite3) and MySQL/MariaDB alike. No column gets a default unless
 * asked (`{default: 0}`, `{default: "''"}`): the entity must declare the same, or
 * test/api/schema.e2e.ts reports the drift. Name every index, unique and foreign key, and declare
 * them on the entity too (@Index/@Unique with the same name, foreignKeyConstraintName).
 */
export const col = {
  id: (name = 'Id'): TableColumnOptions => ({ name, type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' }),
  int: (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'integer', isNullable: false, ...opts }),
  str: (name: string, length = 190, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isNullable: false, ...opts }),
  text: (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'text', isNullable: true, ...opts }),
  time: (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'datetime', precision: 3, isNullable: true, ...opts }),
};
