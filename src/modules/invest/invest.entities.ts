import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';

/**
 * Investment tables (migration 1813000000000-invest.ts; docs/invest.md "Tables"). Broker amounts are
 * exact decimal strings; doubles only for figures derived from them that the screener sorts by; times
 * epoch ms (bigint: strings from mysql2, read with `ms`); days 'YYYY-MM-DD'.
 */
const ms: ValueTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)) };
const dbl: ValueTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)) };

/** The broker's bonds catalogue (InstrumentsService/Bonds), with the last price and the figures derived from the schedule. */
@Entity('invest_bonds')
@Index('IDX_invest_bonds_ticker', ['ticker'])
@Index('IDX_invest_bonds_screen', ['in_catalogue', 'currency', 'risk_level', 'coupon_percent'])
@Index('IDX_invest_bonds_maturity', ['maturity_date'])
@Index('IDX_invest_bonds_call', ['call_date'])
@Index('IDX_invest_bonds_price_ts', ['ts_update_price'])
@Index('IDX_invest_bonds_coupon_ts', ['ts_change_coupon'])
export class InvestBondEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 }) figi: string;
  @Column({ type: 'varchar', length: 32, default: '' }) ticker: string;
  @Column({ type: 'varchar', length: 16, default: '' }) class_code: string;
  @Column({ type: 'varchar', length: 32, default: '' }) isin: string;
  @Column({ type: 'varchar', length: 64, default: '' }) uid: string;
  @Column({ type: 'varchar', length: 190, default: '' }) name: string;
  @Column({ type: 'varchar', length: 8, default: '' }) currency: string;
  /** Current nominal (after amortisation), decimal string. */
  @Column({ type: 'varchar', length: 48, nullable: true }) nominal: string | null;
  @Column({ type: 'varchar', length: 8, default: '' }) nominal_currency: string;
  @Column({ type: 'integer', default: 1 }) lot: number;
  @Column({ type: 'integer', default: 0 }) coupon_in_year: number;
  @Column({ type: 'varchar', length: 10, nullable: true }) maturity_date: string | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) placement_date: string | null;
  /** The offer date, when the bond has one. */
  @Column({ type: 'varchar', length: 10, nullable: true }) call_date: string | null;
  @Column({ type: 'integer', default: 0 }) risk_level: number;
  @Column({ type: 'integer', default: 0 }) amortization_flag: number;
  @Column({ type: 'integer', default: 0 }) floating_coupon_flag: number;
  @Column({ type: 'integer', default: 0 }) perpetual_flag: number;
  @Column({ type: 'integer', default: 0 }) for_qual_investor_flag: number;
  @Column({ type: 'integer', default: 0 }) liquidity_flag: number;
  /** Accrued interest per bond when the catalogue was read (decimal string). */
  @Column({ type: 'varchar', length: 48, nullable: true }) aci_value: string | null;
  /** Points (% of nominal), decimal string. */
  @Column({ type: 'varchar', length: 48, nullable: true }) last_price: string | null;
  /** When the broker traded at that price. */
  @Column({ type: 'bigint', nullable: true, transformer: ms }) price_time: number | null;
  @Column({ type: 'double', nullable: true, transformer: dbl }) coupon_percent: number | null;
  @Column({ type: 'double', nullable: true, transformer: dbl }) ytm: number | null;
  @Column({ type: 'integer', default: 0 }) ytm_approx: number;
  @Column({ type: 'varchar', length: 10, nullable: true }) next_coupon_date: string | null;
  /** In the broker's last catalogue answer (0: a bond only a position or BondBy brought). */
  @Column({ type: 'integer', default: 1 }) in_catalogue: number;
  @Column({ type: 'bigint', nullable: true, transformer: ms }) ts_update_info: number | null;
  @Column({ type: 'bigint', nullable: true, transformer: ms }) ts_update_coupon: number | null;
  /** When last_price last changed. */
  @Column({ type: 'bigint', nullable: true, transformer: ms }) ts_update_price: number | null;
  /** When the coupon schedule last changed (ts_update_coupon: when it was last read). */
  @Column({ type: 'bigint', nullable: true, transformer: ms }) ts_change_coupon: number | null;
}

/** A bond's coupon schedule (InstrumentsService/GetBondCoupons). */
@Entity('invest_coupons')
@Index('IDX_invest_coupons_figi_date', ['figi', 'coupon_date'])
export class InvestCouponEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 }) figi: string;
  @PrimaryColumn({ type: 'integer' }) number: number;
  @Column({ type: 'varchar', length: 10 }) coupon_date: string;
  @Column({ type: 'varchar', length: 10, nullable: true }) fix_date: string | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) start_date: string | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) end_date: string | null;
  /** Per bond (payOneBond), decimal string. */
  @Column({ type: 'varchar', length: 48, default: '0' }) value: string;
  @Column({ type: 'varchar', length: 8, default: '' }) currency: string;
  @Column({ type: 'varchar', length: 24, default: '' }) coupon_type: string;
  @Column({ type: 'integer', nullable: true }) period: number | null;
}

/** Rubles per unit of another currency (the broker's last price of USD000UTSTOM, EUR_RUB__TOM). */
@Entity('invest_rates')
export class InvestRateEntity {
  @PrimaryColumn({ type: 'varchar', length: 8 }) currency: string;
  @Column({ type: 'varchar', length: 48 }) rate: string;
  @Column({ type: 'bigint', transformer: ms }) ts: number;
}

/** 001 §3 local account: Id, name; kept by its owner. */
@Entity('invest_local_accounts')
@Index('IDX_invest_local_accounts_uid', ['uid'])
export class InvestLocalAccountEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_create: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

/** A position entered by hand: ticker or figi, quantity, price (% of nominal). */
@Entity('invest_local_positions')
@Index('IDX_invest_local_positions_account', ['account_id'])
export class InvestLocalPositionEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) account_id: number;
  @Column({ type: 'varchar', length: 32, default: '' }) ticker: string;
  @Column({ type: 'varchar', length: 32, default: '' }) figi: string;
  @Column({ type: 'varchar', length: 48 }) quantity: string;
  @Column({ type: 'varchar', length: 48, nullable: true }) price: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

export const INVEST_ENTITIES = [InvestBondEntity, InvestCouponEntity, InvestRateEntity, InvestLocalAccountEntity, InvestLocalPositionEntity];
