import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Search-node admin (issue 20, docs/search-nodes.md): search hosts (named database connections, the
 * passwords sealed inside `connect`) and sources (one Sphinx source + index pair each, with the last
 * rotation's `working` and its start `time_run`).
 */
export class SearchNodes1809000000000 implements MigrationInterface {
  name = 'SearchNodes1809000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'search_hosts',
      columns: [col.id(), col.str('name', 190), col.text('connect')],
    }));
    await q.createTable(new Table({
      name: 'search_sources',
      columns: [
        col.id(),
        col.str('source', 64),
        col.str('connect', 140),
        col.int('ttl_min', { default: 120 }),
        col.text('query'),
        col.str('attribute', 2000, { default: "''" }),
        col.str('index', 64),
        col.text('working'),
        col.time('time_run'),
      ],
      uniques: [
        { name: 'UQ_search_sources_source', columnNames: ['source'] },
        { name: 'UQ_search_sources_index', columnNames: ['index'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['search_sources', 'search_hosts']) await q.dropTable(t);
  }
}
