import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Compilations (issue 19, docs/content.md "Compilations"): the compilation rows, their items in order,
 * their category relays and the history of replaced versions (one JSON snapshot each).
 */
export class Compilations1803000000000 implements MigrationInterface {
  name = 'Compilations1803000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'compilations',
      columns: [
        col.id('Id_compilation'),
        col.str('meta_title', 255, { default: "''" }),
        col.text('meta_description'),
        col.str('meta_h1', 255, { default: "''" }),
        col.str('title_short', 255, { default: "''" }),
        col.int('type', { default: 1 }),
        col.text('body_top'),
        col.text('body_bottom'),
        col.time('time_update'),
        col.int('items_count', { default: 0 }),
      ],
      indices: [{ name: 'IDX_compilations_time', columnNames: ['time_update', 'Id_compilation'] }],
    }));
    await q.createTable(new Table({
      name: 'compilation_items',
      columns: [col.int('id_compilation', { isPrimary: true }), col.int('item_id', { isPrimary: true }), col.int('pos', { default: 0 })],
      indices: [{ name: 'IDX_compilation_items_pos', columnNames: ['id_compilation', 'pos'] }],
    }));
    await q.createTable(new Table({
      name: 'compilation_relay',
      columns: [col.int('id_compilation', { isPrimary: true }), col.int('Id_cat', { isPrimary: true })],
      indices: [{ name: 'IDX_compilation_relay_cat', columnNames: ['Id_cat'] }],
    }));
    await q.createTable(new Table({
      name: 'compilation_history',
      columns: [col.id(), col.int('Id_compilation'), col.time('ts_update'), col.text('snapshot', { isNullable: false })],
      indices: [{ name: 'IDX_compilation_history_comp', columnNames: ['Id_compilation', 'Id'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['compilation_history', 'compilation_relay', 'compilation_items', 'compilations']) await q.dropTable(t);
  }
}
