import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { col } from '../columns.js';

/**
 * Money (issue 21, docs/money.md "Tables"): boxes and who they are shared with, transactions, and what
 * is derived from them in the same database transaction as every write: the tag relay (a row per
 * transaction and tag, with its day, type and amount), each box's tags with their use, and the sums per day and per (tag, day).
 * Amounts are integer kopecks in BIGINT. Tags compare byte for byte on MariaDB (utf8mb4_bin: its
 * default collation would take 'ёж' and 'еж' for one tag, which SQLite does not).
 */
export class Money1812000000000 implements MigrationInterface {
  name = 'Money1812000000000';

  async up(q: QueryRunner): Promise<void> {
    const sqlite = q.connection.driver.options.type === 'better-sqlite3';
    const kop = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'bigint', isNullable: false, ...opts });
    const tag = (opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ ...col.str('tag', 64), ...(sqlite ? {} : { collation: 'utf8mb4_bin' }), ...opts });
    const day = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => col.str(name, 10, opts);
    await q.createTable(new Table({
      name: 'money_boxes',
      columns: [
        col.id('bid'),
        col.int('uid'),
        col.str('title', 190),
        col.text('description'),
        kop('balance', { default: 0 }),
        col.int('tx_count', { default: 0 }),
        col.time('time_create'),
        col.time('time_update'),
      ],
      indices: [{ name: 'IDX_money_boxes_uid', columnNames: ['uid'] }],
    }));
    await q.createTable(new Table({
      name: 'money_box_users',
      columns: [col.int('bid', { isPrimary: true }), col.int('uid', { isPrimary: true })],
      indices: [{ name: 'IDX_money_box_users_uid', columnNames: ['uid'] }],
    }));
    await q.createTable(new Table({
      name: 'money_transactions',
      columns: [
        col.id('trid'),
        col.int('bid'),
        col.int('uid'),
        col.int('type'),
        kop('val'),
        col.str('tags', 1400, { default: "''" }),
        day('time_set'),
        col.text('description'),
        col.time('time_create'),
        col.time('time_update'),
      ],
      indices: [{ name: 'IDX_money_tr_box_day', columnNames: ['bid', 'time_set', 'trid'] }],
    }));
    await q.createTable(new Table({
      name: 'money_tag_relay',
      columns: [col.int('trid', { isPrimary: true }), tag({ isPrimary: true }), col.int('bid'), day('time_set'), col.int('type'), kop('val')],
      // covering for a tag's transactions in a range with their amounts (reports by tag, pages by tag)
      indices: [{ name: 'IDX_money_tag_relay_box', columnNames: ['bid', 'tag', 'time_set', 'trid', 'type', 'val'] }],
    }));
    await q.createTable(new Table({
      name: 'money_box_tags',
      columns: [col.int('bid', { isPrimary: true }), tag({ isPrimary: true }), col.int('n', { default: 0 })],
    }));
    await q.createTable(new Table({
      name: 'money_days',
      columns: [
        col.int('bid', { isPrimary: true }), day('day', { isPrimary: true }),
        kop('income', { default: 0 }), kop('expense', { default: 0 }), col.int('n_income', { default: 0 }), col.int('n_expense', { default: 0 }),
      ],
    }));
    await q.createTable(new Table({
      name: 'money_tag_days',
      columns: [
        col.int('bid', { isPrimary: true }), tag({ isPrimary: true }), day('day', { isPrimary: true }),
        kop('income', { default: 0 }), kop('expense', { default: 0 }), col.int('n_income', { default: 0 }), col.int('n_expense', { default: 0 }),
      ],
    }));
    await q.createTable(new Table({
      name: 'money_rules',
      columns: [col.id('Id'), col.int('bid'), col.int('pos', { default: 0 }), col.str('contains', 190), col.str('tags', 1400)],
      indices: [{ name: 'IDX_money_rules_box', columnNames: ['bid', 'pos'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['money_rules', 'money_tag_days', 'money_days', 'money_box_tags', 'money_tag_relay', 'money_transactions', 'money_box_users', 'money_boxes']) await q.dropTable(t);
  }
}
