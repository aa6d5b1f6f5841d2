import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Report dashboards (issue 23, docs/report.md): the report charts of 001 §3 with every field by its
 * spec name; `data`/`total`/`marge`/`data_range_end` keep the last drawn chart.
 */
export class Report1814100000000 implements MigrationInterface {
  name = 'Report1814100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'report_charts',
      columns: [
        col.id(),
        col.str('title', 190),
        col.int('sort_number', { default: 0 }),
        col.int('tab_number', { default: 1 }),
        col.int('status', { default: 1 }),
        col.int('type', { default: 0 }),
        col.int('custom', { default: 0 }),
        col.str('table', 32, { default: "'stream'" }),
        col.int('quality', { default: 0 }),
        col.str('colums', 1000, { default: "''" }),
        col.str('names', 1000, { default: "''" }),
        col.int('count_day', { default: 1 }),
        col.int('offset', { default: 0 }),
        col.int('marge_to', { default: 0 }),
        col.int('type_caption', { default: 0 }),
        col.int('val_round', { default: 0 }),
        col.str('metrika_ids', 500, { default: "''" }),
        col.int('metrika_chart_type', { default: 0 }),
        col.str('metrika_match_url', 500, { default: "''" }),
        col.int('compare_offset', { default: 0 }),
        { name: 'data', type: 'json', isNullable: true },
        { name: 'total', type: 'double', isNullable: false, default: 0 },
        { name: 'marge', type: 'double', isNullable: false, default: 0 },
        col.int('data_range_end', { type: 'bigint', isNullable: true }),
        col.time('time_update', { isNullable: false }),
      ],
      indices: [{ name: 'IDX_report_charts_filter', columnNames: ['status', 'quality', 'count_day', 'tab_number', 'sort_number'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('report_charts');
  }
}
