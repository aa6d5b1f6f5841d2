import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Network info (issue 20, 001 §3, docs/network-info.md): the network's hosts, their pages and
 * categories, and the page<->category relation. A page belongs to a host (foreign key), so does a
 * category; the relation rows go with either side.
 *
 * A page body is long text: LONGTEXT on MariaDB (TEXT stops at 65,535 bytes), TEXT on SQLite (no
 * limit). That one column differs by dialect, so the page entity is not compared by the schema
 * builder (`synchronize: false`, see network-info.entities.ts); test/api/network-info.e2e.ts checks
 * this table's columns instead.
 */
export class NetworkInfo1808000000000 implements MigrationInterface {
  name = 'NetworkInfo1808000000000';

  async up(q: QueryRunner): Promise<void> {
    const longText = q.connection.options.type === 'better-sqlite3' ? 'text' : 'longtext';
    await q.createTable(new Table({
      name: 'net_hosts',
      columns: [
        col.id(),
        col.str('name', 190),
        col.str('domain', 190),
        col.str('code_in_storage', 64, { default: "''" }),
      ],
      uniques: [{ name: 'UQ_net_hosts_domain', columnNames: ['domain'] }],
    }));
    await q.createTable(new Table({
      name: 'net_pages',
      columns: [
        col.id(),
        col.int('host'),
        col.str('title', 255),
        col.text('description'),
        col.str('h1', 255, { default: "''" }),
        { name: 'body', type: longText, isNullable: true },
        col.text('keys_relay'),
        col.int('storage', { default: 1 }),
        col.str('cover', 32, { default: "''" }),
        col.time('date'),
        col.time('date_update'),
      ],
      indices: [
        { name: 'IDX_net_pages_host_date', columnNames: ['host', 'date', 'Id'] },
        { name: 'IDX_net_pages_date', columnNames: ['date', 'Id'] },
      ],
      foreignKeys: [{ name: 'FK_net_pages_host', columnNames: ['host'], referencedTableName: 'net_hosts', referencedColumnNames: ['Id'], onDelete: 'RESTRICT', onUpdate: 'NO ACTION' }],
    }));
    await q.createTable(new Table({
      name: 'net_cats',
      columns: [
        col.id(),
        col.str('title', 255),
        col.text('description'),
        col.str('h1', 255, { default: "''" }),
        col.text('body_bottom'),
        col.int('host'),
        col.int('storage', { default: 1 }),
        col.str('cover', 32, { default: "''" }),
      ],
      indices: [{ name: 'IDX_net_cats_host', columnNames: ['host', 'Id'] }],
      foreignKeys: [{ name: 'FK_net_cats_host', columnNames: ['host'], referencedTableName: 'net_hosts', referencedColumnNames: ['Id'], onDelete: 'RESTRICT', onUpdate: 'NO ACTION' }],
    }));
    await q.createTable(new Table({
      name: 'net_cat_page',
      columns: [col.int('Id_cat', { isPrimary: true }), col.int('Id_page', { isPrimary: true })],
      indices: [{ name: 'IDX_net_cat_page_page', columnNames: ['Id_page'] }],
      foreignKeys: [
        { name: 'FK_net_cat_page_cat', columnNames: ['Id_cat'], referencedTableName: 'net_cats', referencedColumnNames: ['Id'], onDelete: 'CASCADE', onUpdate: 'NO ACTION' },
        { name: 'FK_net_cat_page_page', columnNames: ['Id_page'], referencedTableName: 'net_pages', referencedColumnNames: ['Id'], onDelete: 'CASCADE', onUpdate: 'NO ACTION' },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['net_cat_page', 'net_cats', 'net_pages', 'net_hosts']) await q.dropTable(t);
  }
}
