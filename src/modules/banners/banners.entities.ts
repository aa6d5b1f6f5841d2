import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A banner (001 §3 Banner): the counters are not columns, they are summed from banner_days. */
@Entity('banners')
@Index('IDX_banners_status', ['status'])
export class BannerEntity {
  @PrimaryGeneratedColumn() Idb: number;
  @Column({ type: 'varchar', length: 190 }) title: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text', nullable: true }) target: string | null;
  /** The image: a storage alias (32 hex, code 'abs'), a legacy key (`<32 hex>.<ext>` under DATA_DIR/files, before issue 20), or null. */
  @Column({ type: 'varchar', length: 64, nullable: true }) img: string | null;
  /** 0 works, 1 stopped. */
  @Column({ type: 'integer', default: 0 }) status: number;
  @Column({ type: 'integer', default: 10 }) rate: number;
  @Column({ type: 'datetime', precision: 3 }) time_create: Date;
  @Column({ type: 'datetime', precision: 3 }) time_update: Date;
}

/** Views and clicks of a banner per UTC day (`ts`: epoch day), summed from the sites' batches. */
@Entity('banner_days')
@Index('IDX_banner_days_ts', ['ts'])
export class BannerDayEntity {
  @PrimaryColumn({ type: 'integer' }) Idb: number;
  @PrimaryColumn({ type: 'integer' }) ts: number;
  @Column({ type: 'integer', default: 0 }) views: number;
  @Column({ type: 'integer', default: 0 }) clicks: number;
}

/**
 * A click already counted for (banner, visitor, epoch minute): a second click of the same visitor in
 * the same minute counts nothing. `visitor` is a digest of the id the site sent (never the id itself).
 */
@Entity('banner_clicks')
@Index('IDX_banner_clicks_minute', ['minute'])
export class BannerClickEntity {
  @PrimaryColumn({ type: 'integer' }) Idb: number;
  @PrimaryColumn({ type: 'varchar', length: 32 }) visitor: string;
  @PrimaryColumn({ type: 'integer' }) minute: number;
}

export const BANNER_ENTITIES = [BannerEntity, BannerDayEntity, BannerClickEntity];
