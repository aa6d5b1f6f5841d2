import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A search host of 001 §3 (migration 1809000000000-search-nodes.ts): a named set of database
 * connections. `connect` is JSON `[{name, query, pass}]`: `query` is the URL with its password masked
 * (`mysql://user:***@host:3306/db`, as answered), `pass` the password sealed with SecretBox (null: none).
 */
@Entity('search_hosts')
export class SearchHostEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  @Column({ type: 'text', nullable: true }) connect: string | null;
}

/** A stored connection of a host (the JSON items of `search_hosts.connect`). */
export interface StoredConnect {
  name: string;
  /** Masked URL. */
  query: string;
  /** Sealed password, or null. */
  pass: string | null;
}

/**
 * A source of 001 §3: one Sphinx `source` + `index` pair. `working` is JSON {docs, bytes, timeStart,
 * timeEnd, errors} of the last rotation; `time_run` when that rotation started (the job's TTL counts
 * from it).
 */
@Entity('search_sources')
@Unique('UQ_search_sources_source', ['source'])
@Unique('UQ_search_sources_index', ['index'])
export class SearchSourceEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 64 }) source: string;
  @Column({ type: 'varchar', length: 140 }) connect: string;
  @Column({ type: 'integer', default: 120 }) ttl_min: number;
  @Column({ type: 'text', nullable: true }) query: string | null;
  @Column({ type: 'varchar', length: 2000, default: '' }) attribute: string;
  @Column({ type: 'varchar', length: 64 }) index: string;
  @Column({ type: 'text', nullable: true }) working: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_run: Date | null;
}
