import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Ad banners (issue 19, docs/content.md "Banners"): the banners, their views and clicks per UTC day
 * (`ts` the epoch day), and the clicks already counted per (banner, visitor digest, epoch minute).
 */
export class Banners1805000000000 implements MigrationInterface {
  name = 'Banners1805000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'banners',
      columns: [
        col.id('Idb'),
        col.str('title', 190),
        col.text('description'),
        col.text('target'),
        col.str('img', 64, { isNullable: true }),
        col.int('status', { default: 0 }),
        col.int('rate', { default: 10 }),
        col.time('time_create', { isNullable: false }),
        col.time('time_update', { isNullable: false }),
      ],
      indices: [{ name: 'IDX_banners_status', columnNames: ['status'] }],
    }));
    await q.createTable(new Table({
      name: 'banner_days',
      columns: [
        col.int('Idb', { isPrimary: true }),
        col.int('ts', { isPrimary: true }),
        col.int('views', { default: 0 }),
        col.int('clicks', { default: 0 }),
      ],
      indices: [{ name: 'IDX_banner_days_ts', columnNames: ['ts'] }],
    }));
    await q.createTable(new Table({
      name: 'banner_clicks',
      columns: [
        col.int('Idb', { isPrimary: true }),
        col.str('visitor', 32, { isPrimary: true }),
        col.int('minute', { isPrimary: true }),
      ],
      indices: [{ name: 'IDX_banner_clicks_minute', columnNames: ['minute'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['banner_clicks', 'banner_days', 'banners']) await q.dropTable(t);
  }
}
