import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { col } from '../columns.js';

/**
 * Marketplace (issue 23, docs/wb.md "Tables"): what the sync pulls from the Wildberries seller APIs —
 * cards, finance report rows, the sales funnel per period, ad spend and the adverts with their cards —
 * and the per-card per-day and per-month aggregates the /wb page and its charts read (a range is read
 * as its whole months from the monthly rows and its edge days from the daily ones). Money in whole kopecks
 * (bigint: exact sums in SQL on both databases); days 'YYYY-MM-DD'; times epoch ms.
 */
export class Wb1814200000000 implements MigrationInterface {
  name = 'Wb1814200000000';

  async up(q: QueryRunner): Promise<void> {
    const big = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'bigint', isNullable: false, default: 0, ...opts });
    const n = (name: string): TableColumnOptions => col.int(name, { default: 0 });
    const day = (name: string, nullable = false): TableColumnOptions => col.str(name, 10, { isNullable: nullable });
    await q.createTable(new Table({
      name: 'wb_cards',
      columns: [
        big('nm_id', { isPrimary: true, default: undefined }),
        big('imt_id', { isNullable: true, default: undefined }),
        col.str('vendor_code', 100, { default: "''" }),
        col.str('brand', 190, { default: "''" }),
        col.str('title', 190, { default: "''" }),
        col.str('photo', 500, { isNullable: true }),
        col.int('stocks', { isNullable: true }),
        col.str('updated_at', 40, { isNullable: true }),
        big('ts_sync'),
      ],
    }));
    await q.createTable(new Table({
      name: 'wb_finance',
      columns: [
        big('rrd_id', { isPrimary: true, default: undefined }),
        big('nm_id'),
        col.str('doc_type_name', 64, { default: "''" }),
        col.str('supplier_oper_name', 128, { default: "''" }),
        n('quantity'),
        big('retail_price'),
        big('retail_amount'),
        n('delivery_amount'),
        n('return_amount'),
        big('delivery_rub'),
        big('ppvz_for_pay'),
        big('storage_fee'),
        big('penalty'),
        day('sale_day', true),
        day('order_day', true),
        day('rr_day'),
        day('day'),
      ],
      indices: [
        { name: 'IDX_wb_finance_day', columnNames: ['day', 'nm_id'] },
        { name: 'IDX_wb_finance_order_day', columnNames: ['order_day'] },
        { name: 'IDX_wb_finance_nm', columnNames: ['nm_id', 'day'] },
      ],
    }));
    // per card and day / month, keyed (day, nm_id) / (month, nm_id) and clustered (WITHOUT ROWID on
    // SQLite, the primary key on InnoDB): a report's range is one contiguous scan
    const sums = (): TableColumnOptions[] => [
      n('orders'), n('sales'), n('returns'),
      big('sales_sum'), big('returns_sum'), big('price_sum'), big('ret_price_sum'),
      big('ppvz'), big('delivery_rub'), big('return_logistics'),
      n('deliveries'), n('returns_delivered'),
      big('storage_fee'), big('penalty'),
    ];
    await q.createTable(new Table({
      name: 'wb_daily',
      withoutRowid: true,
      columns: [col.str('day', 10, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), ...sums()],
      indices: [{ name: 'IDX_wb_daily_nm', columnNames: ['nm_id', 'day'] }],
    }));
    await q.createTable(new Table({
      name: 'wb_monthly',
      withoutRowid: true,
      columns: [col.str('month', 7, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), ...sums()],
    }));
    await q.createTable(new Table({
      name: 'wb_funnel',
      columns: [
        big('nm_id', { isPrimary: true, default: undefined }),
        col.str('date_from', 10, { isPrimary: true }),
        col.str('date_to', 10, { isPrimary: true }),
        n('open_count'), n('cart_count'), n('order_count'), big('order_sum'), n('buyout_count'), big('buyout_sum'), n('cancel_count'),
        { name: 'avg_orders_per_day', type: 'double', isNullable: true },
        col.int('stocks', { isNullable: true }),
        big('ts'),
      ],
      indices: [{ name: 'IDX_wb_funnel_period', columnNames: ['date_from', 'date_to'] }],
    }));
    await q.createTable(new Table({
      name: 'wb_adverts',
      columns: [
        big('advert_id', { isPrimary: true, default: undefined }),
        col.str('name', 190, { default: "''" }),
        col.int('type', { isNullable: true }),
        col.int('status', { isNullable: true }),
        col.text('nms'),
        big('ts'),
      ],
    }));
    await q.createTable(new Table({
      name: 'wb_ad_spend',
      columns: [col.id('Id'), big('advert_id'), big('upd_num'), col.str('upd_time', 40), day('day'), big('amount'), col.str('camp_name', 190, { default: "''" })],
      indices: [{ name: 'IDX_wb_ad_spend_day', columnNames: ['day'] }],
    }));
    await q.createTable(new Table({
      name: 'wb_ad_daily',
      withoutRowid: true,
      columns: [col.str('day', 10, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), big('amount')],
      indices: [{ name: 'IDX_wb_ad_daily_nm', columnNames: ['nm_id', 'day'] }],
    }));
    await q.createTable(new Table({
      name: 'wb_ad_monthly',
      withoutRowid: true,
      columns: [col.str('month', 7, { isPrimary: true }), big('nm_id', { isPrimary: true, default: undefined }), big('amount')],
    }));
    await q.createTable(new Table({
      name: 'wb_syncs',
      columns: [
        col.id('Id'),
        day('date_from'),
        day('date_to'),
        big('started'),
        big('finished', { isNullable: true, default: undefined }),
        col.str('status', 16),
        col.text('error'),
        col.text('result'),
      ],
      indices: [{ name: 'IDX_wb_syncs_range', columnNames: ['date_from', 'date_to', 'finished'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['wb_syncs', 'wb_ad_monthly', 'wb_monthly', 'wb_ad_daily', 'wb_ad_spend', 'wb_adverts', 'wb_funnel', 'wb_daily', 'wb_finance', 'wb_cards']) await q.dropTable(t);
  }
}
