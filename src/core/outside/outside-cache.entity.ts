import { Column, Entity, Index, PrimaryColumn, type ValueTransformer } from 'typeorm';

/** bigint columns come back as strings from mysql2; epoch milliseconds stay far below 2^53. */
const ms: ValueTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null ? null : Number(v)) };

/**
 * The answer cache of outside services (migration 1810000000000; src/core/outside/answer-cache.ts): per
 * service and key, the last good answer with when it came and until when it is fresh, the last
 * failure since then, and when the entry was last read (the least recently used go first).
 */
@Entity('outside_cache')
@Index('IDX_outside_cache_used', ['service', 'used_at'])
export class OutsideCacheEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) service: string;
  @PrimaryColumn({ type: 'varchar', length: 190 }) cache_key: string;
  /** The last good answer (JSON). */
  @Column({ type: 'json', nullable: true }) value: object | null;
  /** Epoch ms the last good answer came. */
  @Column({ type: 'bigint', nullable: true, transformer: ms }) fetched_at: number | null;
  /** Epoch ms it stops being fresh (fetched_at + the client's TTL). */
  @Column({ type: 'bigint', nullable: true, transformer: ms }) expires_at: number | null;
  /** Epoch ms (kept increasing per instance) of the last read or write: the eviction order. */
  @Column({ type: 'bigint', default: 0, transformer: ms }) used_at: number;
  /** The last failure after the last good answer (cleared by the next good one). */
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'bigint', nullable: true, transformer: ms }) error_at: number | null;
}
