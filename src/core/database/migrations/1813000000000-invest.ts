import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { col } from '../columns.js';

/**
 * Investments (issue 22, docs/invest.md "Tables"): the broker's bonds catalogue and coupon schedules
 * (kept by the refresh job), the rubles rates of other currencies, and the local accounts with their
 * positions. Amounts from the broker are exact decimal strings (varchar; SQLite has no exact DECIMAL);
 * the figures the screener sorts by (coupon_percent, ytm) are doubles, derived from those. Times are
 * epoch milliseconds (bigint) like the answer cache; days are 'YYYY-MM-DD' strings, which sort as days.
 */
export class Invest1813000000000 implements MigrationInterface {
  name = 'Invest1813000000000';

  async up(q: QueryRunner): Promise<void> {
    const dec = (name: string, opts: Partial<TableColumnOptions> = {}): TableColumnOptions => col.str(name, 48, { isNullable: true, ...opts });
    const day = (name: string): TableColumnOptions => col.str(name, 10, { isNullable: true });
    const ms = (name: string): TableColumnOptions => ({ name, type: 'bigint', isNullable: true });
    const dbl = (name: string): TableColumnOptions => ({ name, type: 'double', isNullable: true });
    await q.createTable(new Table({
      name: 'invest_bonds',
      columns: [
        col.str('figi', 32, { isPrimary: true }),
        col.str('ticker', 32, { default: "''" }),
        col.str('class_code', 16, { default: "''" }),
        col.str('isin', 32, { default: "''" }),
        col.str('uid', 64, { default: "''" }),
        col.str('name', 190, { default: "''" }),
        col.str('currency', 8, { default: "''" }),
        dec('nominal'),
        col.str('nominal_currency', 8, { default: "''" }),
        col.int('lot', { default: 1 }),
        col.int('coupon_in_year', { default: 0 }),
        day('maturity_date'),
        day('placement_date'),
        day('call_date'),
        col.int('risk_level', { default: 0 }),
        col.int('amortization_flag', { default: 0 }),
        col.int('floating_coupon_flag', { default: 0 }),
        col.int('perpetual_flag', { default: 0 }),
        col.int('for_qual_investor_flag', { default: 0 }),
        col.int('liquidity_flag', { default: 0 }),
        dec('aci_value'),
        dec('last_price'),
        ms('price_time'),
        dbl('coupon_percent'),
        dbl('ytm'),
        col.int('ytm_approx', { default: 0 }),
        day('next_coupon_date'),
        col.int('in_catalogue', { default: 1 }),
        ms('ts_update_info'),
        ms('ts_update_coupon'),
        ms('ts_update_price'),
        ms('ts_change_coupon'),
      ],
      indices: [
        { name: 'IDX_invest_bonds_ticker', columnNames: ['ticker'] },
        { name: 'IDX_invest_bonds_screen', columnNames: ['in_catalogue', 'currency', 'risk_level', 'coupon_percent'] },
        { name: 'IDX_invest_bonds_maturity', columnNames: ['maturity_date'] },
        { name: 'IDX_invest_bonds_call', columnNames: ['call_date'] },
        { name: 'IDX_invest_bonds_price_ts', columnNames: ['ts_update_price'] },
        { name: 'IDX_invest_bonds_coupon_ts', columnNames: ['ts_change_coupon'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'invest_coupons',
      columns: [
        col.str('figi', 32, { isPrimary: true }),
        col.int('number', { isPrimary: true }),
        col.str('coupon_date', 10),
        day('fix_date'),
        day('start_date'),
        day('end_date'),
        dec('value', { isNullable: false, default: "'0'" }),
        col.str('currency', 8, { default: "''" }),
        col.str('coupon_type', 24, { default: "''" }),
        col.int('period', { isNullable: true }),
      ],
      indices: [{ name: 'IDX_invest_coupons_figi_date', columnNames: ['figi', 'coupon_date'] }],
    }));
    await q.createTable(new Table({
      name: 'invest_rates',
      columns: [col.str('currency', 8, { isPrimary: true }), dec('rate', { isNullable: false }), col.int('ts', { type: 'bigint' })],
    }));
    await q.createTable(new Table({
      name: 'invest_local_accounts',
      columns: [col.id('Id'), col.int('uid'), col.str('name', 190), col.time('time_create'), col.time('time_update')],
      indices: [{ name: 'IDX_invest_local_accounts_uid', columnNames: ['uid'] }],
    }));
    await q.createTable(new Table({
      name: 'invest_local_positions',
      columns: [
        col.id('Id'),
        col.int('account_id'),
        col.str('ticker', 32, { default: "''" }),
        col.str('figi', 32, { default: "''" }),
        dec('quantity', { isNullable: false }),
        dec('price'),
        col.time('time_update'),
      ],
      indices: [{ name: 'IDX_invest_local_positions_account', columnNames: ['account_id'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['invest_local_positions', 'invest_local_accounts', 'invest_rates', 'invest_coupons', 'invest_bonds']) await q.dropTable(t);
  }
}
