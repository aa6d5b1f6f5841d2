import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique, type ValueTransformer } from 'typeorm';

/** bigint columns come back as strings from mysql2; epoch milliseconds stay far below 2^53. */
const ms: ValueTransformer = { to: (v: number) => v, from: (v: string | number | null) => (v === null ? 0 : Number(v)) };

/** A project of 001 §3 (migration 1814000000000-position.ts): a site domain checked in one engine and region. */
@Entity('position_projects')
export class PositionProjectEntity {
  @PrimaryGeneratedColumn() id_project: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  @Column({ type: 'varchar', length: 190 }) domain: string;
  @Column({ type: 'varchar', length: 16, default: 'yandex' }) engine: string;
  @Column({ type: 'integer', default: 213 }) region: number;
  @Column({ type: 'integer', default: 24 }) schedule_hours: number;
  @Column({ type: 'integer', default: 100 }) depth: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) created_at: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) updated_at: number;
}

/**
 * A query of 001 §3 (id_query, query_text, cat_id, checked) with its current position (the last good
 * check: `pos` null is "not in the top `pos_top`", `pos_top` 0 never checked), the stale mark of a failed
 * check and the scheduler's next time and claim.
 */
@Entity('position_queries')
@Unique('UQ_position_queries_key', ['id_project', 'query_key'])
@Index('IDX_position_queries_due', ['next_check_at'])
@Index('IDX_position_queries_project', ['id_project', 'id_query'])
export class PositionQueryEntity {
  @PrimaryGeneratedColumn() id_query: number;
  @Column({ type: 'integer' }) id_project: number;
  @Column({ type: 'varchar', length: 400 }) query_text: string;
  /** sha256 of the normalised text (lower case, single spaces): one query per text per project. */
  @Column({ type: 'varchar', length: 64 }) query_key: string;
  @Column({ type: 'integer', default: 0 }) cat_id: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) checked: number;
  @Column({ type: 'integer', nullable: true }) pos: number | null;
  @Column({ type: 'integer', default: 0 }) pos_top: number;
  @Column({ type: 'varchar', length: 10, default: '' }) pos_date: string;
  @Column({ type: 'integer', default: 0 }) stale: number;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) error_at: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) next_check_at: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) claim_until: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) created_at: number;
}

/** One position a day per query (the day's last good check). */
@Entity('position_history')
@Index('IDX_position_history_project', ['id_project', 'day'])
@Index('IDX_position_history_day', ['day'])
export class PositionHistoryEntity {
  @PrimaryColumn({ type: 'integer' }) id_query: number;
  @PrimaryColumn({ type: 'varchar', length: 10 }) day: string;
  @Column({ type: 'integer' }) id_project: number;
  @Column({ type: 'integer', nullable: true }) pos: number | null;
  @Column({ type: 'integer', default: 0 }) top: number;
  @Column({ type: 'varchar', length: 500, default: '' }) url: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) checked_at: number;
}

export const POSITION_ENTITIES = [PositionProjectEntity, PositionQueryEntity, PositionHistoryEntity];
