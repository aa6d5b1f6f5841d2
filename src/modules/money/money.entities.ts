import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Money tables (migration 1812000000000-money.ts; docs/money.md "Tables"). Amounts are integer kopecks
 * (BIGINT): exact on both databases (SQLite has no exact DECIMAL: it stores such a column as a float).
 * BIGINTs come back as strings from MariaDB and as numbers from SQLite: read them with `kop()`.
 * Every write of a box changes the box's balance and the derived tables (days, tag days, box tags,
 * tag relay) in the same database transaction (money-store.ts).
 */
@Entity('money_boxes')
@Index('IDX_money_boxes_uid', ['uid'])
export class MoneyBoxEntity {
  @PrimaryGeneratedColumn() bid: number;
  /** The owner. */
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'varchar', length: 190 }) title: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  /** Kopecks: the sum of the box's transactions (income minus expense). */
  @Column({ type: 'bigint', default: 0 }) balance: string | number;
  /** Transactions in the box. */
  @Column({ type: 'integer', default: 0 }) tx_count: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_create: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

/** Users an admin shared a box with (they see and change its transactions). */
@Entity('money_box_users')
@Index('IDX_money_box_users_uid', ['uid'])
export class MoneyBoxUserEntity {
  @PrimaryColumn({ type: 'integer' }) bid: number;
  @PrimaryColumn({ type: 'integer' }) uid: number;
}

/** A transaction of 001 §3: type 0 expense / 1 income, val in kopecks (positive), tags comma separated (normalised). */
@Entity('money_transactions')
@Index('IDX_money_tr_box_day', ['bid', 'time_set', 'trid'])
export class MoneyTransactionEntity {
  @PrimaryGeneratedColumn() trid: number;
  @Column({ type: 'integer' }) bid: number;
  /** Who wrote it. */
  @Column({ type: 'integer' }) uid: number;
  @Column({ type: 'integer' }) type: number;
  @Column({ type: 'bigint' }) val: string | number;
  @Column({ type: 'varchar', length: 1400, default: '' }) tags: string;
  /** yyyy-MM-dd (001 §5). */
  @Column({ type: 'varchar', length: 10 }) time_set: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_create: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

/** One row per (transaction, tag), with the transaction's day, type and amount: tag filters, reports by tag, related tags. */
@Entity('money_tag_relay')
@Index('IDX_money_tag_relay_box', ['bid', 'tag', 'time_set', 'trid', 'type', 'val'])
export class MoneyTagRelayEntity {
  @PrimaryColumn({ type: 'integer' }) trid: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) tag: string;
  @Column({ type: 'integer' }) bid: number;
  @Column({ type: 'varchar', length: 10 }) time_set: string;
  @Column({ type: 'integer' }) type: number;
  @Column({ type: 'bigint' }) val: string | number;
}

/** Each box's tags with the number of its transactions that carry them (suggestions, popular tags). */
@Entity('money_box_tags')
export class MoneyBoxTagEntity {
  @PrimaryColumn({ type: 'integer' }) bid: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) tag: string;
  @Column({ type: 'integer', default: 0 }) n: number;
}

/** Sums of a box per day (kopecks, counts): the report, the balance line and paging without OFFSET scans. */
@Entity('money_days')
export class MoneyDayEntity {
  @PrimaryColumn({ type: 'integer' }) bid: number;
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @Column({ type: 'bigint', default: 0 }) income: string | number;
  @Column({ type: 'bigint', default: 0 }) expense: string | number;
  @Column({ type: 'integer', default: 0 }) n_income: number;
  @Column({ type: 'integer', default: 0 }) n_expense: number;
}

/** Sums of a box per tag and day ('' for transactions without tags): the report's tag table. */
@Entity('money_tag_days')
export class MoneyTagDayEntity {
  @PrimaryColumn({ type: 'integer' }) bid: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) tag: string;
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @Column({ type: 'bigint', default: 0 }) income: string | number;
  @Column({ type: 'bigint', default: 0 }) expense: string | number;
  @Column({ type: 'integer', default: 0 }) n_income: number;
  @Column({ type: 'integer', default: 0 }) n_expense: number;
}

/** A box's rule: a new transaction whose description contains `contains` (ignoring case) gets `tags`. */
@Entity('money_rules')
@Index('IDX_money_rules_box', ['bid', 'pos'])
export class MoneyRuleEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) bid: number;
  @Column({ type: 'integer', default: 0 }) pos: number;
  @Column({ type: 'varchar', length: 190 }) contains: string;
  @Column({ type: 'varchar', length: 1400 }) tags: string;
}
