import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';

/**
 * Marketplace tables (migration 1814200000000-wb.ts; docs/wb.md "Tables"). Money in whole kopecks
 * (bigint: strings from mysql2, read with `num`); days 'YYYY-MM-DD'; times epoch ms.
 */
export const num: ValueTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)) };
const big = { type: 'bigint' as const, default: 0, transformer: num };

/** A card (content API cards/list): nmID, title, photos (the first), stocks (from the funnel). */
@Entity('wb_cards')
export class WbCardEntity {
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
  @Column({ type: 'bigint', nullable: true, transformer: num }) imt_id: number | null;
  @Column({ type: 'varchar', length: 100, default: '' }) vendor_code: string;
  @Column({ type: 'varchar', length: 190, default: '' }) brand: string;
  @Column({ type: 'varchar', length: 190, default: '' }) title: string;
  @Column({ type: 'varchar', length: 500, nullable: true }) photo: string | null;
  @Column({ type: 'integer', nullable: true }) stocks: number | null;
  @Column({ type: 'varchar', length: 40, nullable: true }) updated_at: string | null;
  @Column(big) ts_sync: number;
}

/** A finance report row (reportDetailByPeriod), by rrd_id; `day` is the day it counts on (sale_day, else rr_day). */
@Entity('wb_finance')
@Index('IDX_wb_finance_day', ['day', 'nm_id'])
@Index('IDX_wb_finance_order_day', ['order_day'])
@Index('IDX_wb_finance_nm', ['nm_id', 'day'])
export class WbFinanceEntity {
  @PrimaryColumn({ type: 'bigint', transformer: num }) rrd_id: number;
  @Column(big) nm_id: number;
  @Column({ type: 'varchar', length: 64, default: '' }) doc_type_name: string;
  @Column({ type: 'varchar', length: 128, default: '' }) supplier_oper_name: string;
  @Column({ type: 'integer', default: 0 }) quantity: number;
  @Column(big) retail_price: number;
  @Column(big) retail_amount: number;
  @Column({ type: 'integer', default: 0 }) delivery_amount: number;
  @Column({ type: 'integer', default: 0 }) return_amount: number;
  @Column(big) delivery_rub: number;
  @Column(big) ppvz_for_pay: number;
  @Column(big) storage_fee: number;
  @Column(big) penalty: number;
  @Column({ type: 'varchar', length: 10, nullable: true }) sale_day: string | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) order_day: string | null;
  @Column({ type: 'varchar', length: 10 }) rr_day: string;
  @Column({ type: 'varchar', length: 10 }) day: string;
}

/** The sums of a card's finance rows over a period (kopecks and counts): wb_daily, and with the ad spend the running totals. */
abstract class WbSums {
  @Column({ type: 'integer', default: 0 }) orders: number;
  @Column({ type: 'integer', default: 0 }) sales: number;
  @Column({ type: 'integer', default: 0 }) returns: number;
  @Column(big) sales_sum: number;
  @Column(big) returns_sum: number;
  @Column(big) price_sum: number;
  @Column(big) ret_price_sum: number;
  @Column(big) ppvz: number;
  @Column(big) delivery_rub: number;
  @Column(big) return_logistics: number;
  @Column({ type: 'integer', default: 0 }) deliveries: number;
  @Column({ type: 'integer', default: 0 }) returns_delivered: number;
  @Column(big) storage_fee: number;
  @Column(big) penalty: number;
}

/**
 * Per card and day: what the finance rows of the day add up to (rebuilt by the sync for the days it
 * touched). Keyed by (day, nm_id) and clustered so (WITHOUT ROWID on SQLite, InnoDB's primary key on
 * MariaDB): the report's range of days is one contiguous scan; a card's chart uses (nm_id, day).
 */
@Entity('wb_daily', { withoutRowid: true })
@Index('IDX_wb_daily_nm', ['nm_id', 'day'])
export class WbDailyEntity extends WbSums {
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
}

/** Running totals (src/modules/wb/sync/wb-cumulative.ts): the finance sums and the ad spend. */
abstract class WbCumSums extends WbSums {
  @Column(big) ad: number;
}

/** A card's sums from the first of the day's month through the day (every day of a month the card has rows in). */
@Entity('wb_cum_day', { withoutRowid: true })
export class WbCumDayEntity extends WbCumSums {
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
}

/** A card's sums from its first day through the end of the month (every month from its first to the newest). */
@Entity('wb_cum_month', { withoutRowid: true })
export class WbCumMonthEntity extends WbCumSums {
  @PrimaryColumn({ type: 'varchar', length: 7 }) month: string;
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
}

/** The sales funnel of a card for one period (the sync's range). */
@Entity('wb_funnel')
@Index('IDX_wb_funnel_period', ['date_from', 'date_to'])
export class WbFunnelEntity {
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
  @PrimaryColumn({ type: 'varchar', length: 10 }) date_from: string;
  @PrimaryColumn({ type: 'varchar', length: 10 }) date_to: string;
  @Column({ type: 'integer', default: 0 }) open_count: number;
  @Column({ type: 'integer', default: 0 }) cart_count: number;
  @Column({ type: 'integer', default: 0 }) order_count: number;
  @Column(big) order_sum: number;
  @Column({ type: 'integer', default: 0 }) buyout_count: number;
  @Column(big) buyout_sum: number;
  @Column({ type: 'integer', default: 0 }) cancel_count: number;
  @Column({ type: 'double', nullable: true, transformer: num }) avg_orders_per_day: number | null;
  @Column({ type: 'integer', nullable: true }) stocks: number | null;
  @Column(big) ts: number;
}

/** An advert with its cards (nm_settings; the spec's autoParams/unitedParams nms). */
@Entity('wb_adverts')
export class WbAdvertEntity {
  @PrimaryColumn({ type: 'bigint', transformer: num }) advert_id: number;
  @Column({ type: 'varchar', length: 190, default: '' }) name: string;
  @Column({ type: 'integer', nullable: true }) type: number | null;
  @Column({ type: 'integer', nullable: true }) status: number | null;
  /** JSON list of nm ids. */
  @Column({ type: 'text', nullable: true }) nms: string | null;
  @Column(big) ts: number;
}

/** An ad spend row (/adv/v1/upd). */
@Entity('wb_ad_spend')
@Index('IDX_wb_ad_spend_day', ['day'])
export class WbAdSpendEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column(big) advert_id: number;
  @Column(big) upd_num: number;
  @Column({ type: 'varchar', length: 40 }) upd_time: string;
  @Column({ type: 'varchar', length: 10 }) day: string;
  @Column(big) amount: number;
  @Column({ type: 'varchar', length: 190, default: '' }) camp_name: string;
}

/** Ad spend per card and day: each spend row split evenly over its advert's cards (keyed like wb_daily). */
@Entity('wb_ad_daily', { withoutRowid: true })
@Index('IDX_wb_ad_daily_nm', ['nm_id', 'day'])
export class WbAdDailyEntity {
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @PrimaryColumn({ type: 'bigint', transformer: num }) nm_id: number;
  @Column(big) amount: number;
}

/** A sync run: its range, when, how it ended. */
@Entity('wb_syncs')
@Index('IDX_wb_syncs_range', ['date_from', 'date_to', 'finished'])
export class WbSyncEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 10 }) date_from: string;
  @Column({ type: 'varchar', length: 10 }) date_to: string;
  @Column(big) started: number;
  @Column({ type: 'bigint', nullable: true, transformer: num }) finished: number | null;
  /** running, ok, partial (some parts failed), failed. */
  @Column({ type: 'varchar', length: 16 }) status: string;
  @Column({ type: 'text', nullable: true }) error: string | null;
  /** JSON of the WbSyncResult. */
  @Column({ type: 'text', nullable: true }) result: string | null;
}

export const WB_ENTITIES = [WbCardEntity, WbFinanceEntity, WbDailyEntity, WbCumDayEntity, WbCumMonthEntity, WbFunnelEntity, WbAdvertEntity, WbAdSpendEntity, WbAdDailyEntity, WbSyncEntity];
