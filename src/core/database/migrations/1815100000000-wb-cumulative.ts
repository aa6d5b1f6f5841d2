import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { rebuildCumulative } from '../../../modules/wb/sync/wb-cumulative.js';
import { col } from '../columns.js';

/**
 * Marketplace report over running totals (issue 23, docs/wb.md "The report"): wb_cum_day and
 * wb_cum_month replace the per-month rollups wb_monthly and wb_ad_monthly, so a range of any length
 * reads about four rows per card instead of adding up its whole months and edge days. Built here from
 * the stored daily rows (the sync keeps them from then on).
 */
export class WbCumulative1815100000000 implements MigrationInterface {
  name = 'WbCumulative1815100000000';

  async up(q: QueryRunner): Promise<void> {
    const big = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'bigint', isNullable: false, default: 0, ...opts });
    const n = (name: string): TableColumnOptions => col.int(name, { default: 0 });
    const sums = (): TableColumnOptions[] => [
      n('orders'), n('sales'), n('returns'),
      big('sales_sum'), big('returns_sum'), big('price_sum'), big('ret_price_sum'),
      big('ppvz'), big('delivery_rub'), big('return_logistics'),
      n('deliveries'), n('returns_delivered'),
      big('storage_fee'), big('penalty'), big('ad'),
    ];
    // keyed (day, nm_id) / (month, nm_id) and clustered: a report reads one day's or month's rows in one contiguous scan
    await q.createTable(new Table({
      name: 'wb_cum_day',
      withoutRowid: true,
      columns: [col.str('day', 10, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), ...sums()],
    }));
    await q.createTable(new Table({
      name: 'wb_cum_month',
      withoutRowid: true,
      columns: [col.str('month', 7, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), ...sums()],
    }));
    await q.dropTable('wb_monthly');
    await q.dropTable('wb_ad_monthly');
    const range = (await q.query(
      'SELECT MIN(d) AS a, MAX(d) AS b FROM (SELECT MIN(day) AS d FROM wb_daily UNION ALL SELECT MAX(day) FROM wb_daily UNION ALL SELECT MIN(day) FROM wb_ad_daily UNION ALL SELECT MAX(day) FROM wb_ad_daily) t',
    )) as Array<{ a: string | null; b: string | null }>;
    if (range[0]?.a && range[0]?.b) await rebuildCumulative((sql, params) => q.query(sql, params), range[0].a.slice(0, 7), range[0].b.slice(0, 7));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('wb_cum_month');
    await q.dropTable('wb_cum_day');
    const big = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'bigint', isNullable: false, default: 0, ...opts });
    const n = (name: string): TableColumnOptions => col.int(name, { default: 0 });
    await q.createTable(new Table({
      name: 'wb_monthly',
      withoutRowid: true,
      columns: [
        col.str('month', 7, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }),
        n('orders'), n('sales'), n('returns'), big('sales_sum'), big('returns_sum'), big('price_sum'), big('ret_price_sum'),
        big('ppvz'), big('delivery_rub'), big('return_logistics'), n('deliveries'), n('returns_delivered'), big('storage_fee'), big('penalty'),
      ],
    }));
    await q.createTable(new Table({
      name: 'wb_ad_monthly',
      withoutRowid: true,
      columns: [col.str('month', 7, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), big('amount')],
    }));
    const s = ['orders', 'sales', 'returns', 'sales_sum', 'returns_sum', 'price_sum', 'ret_price_sum', 'ppvz', 'delivery_rub', 'return_logistics', 'deliveries', 'returns_delivered', 'storage_fee', 'penalty'];
    await q.query(`INSERT INTO wb_monthly (nm_id, month, ${s.join(', ')}) SELECT nm_id, SUBSTR(day, 1, 7), ${s.map((k) => `SUM(${k})`).join(', ')} FROM wb_daily GROUP BY nm_id, SUBSTR(day, 1, 7)`);
    await q.query('INSERT INTO wb_ad_monthly (nm_id, month, amount) SELECT nm_id, SUBSTR(day, 1, 7), SUM(amount) FROM wb_ad_daily GROUP BY nm_id, SUBSTR(day, 1, 7)');
  }
}
