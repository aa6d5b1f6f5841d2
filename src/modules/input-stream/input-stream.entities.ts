import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn, Unique, Index } from 'typeorm';

/** A site of the network that reports shows and clicks (docs/input-stream.md "Sites and tokens"). */
@Entity('stream_sites')
@Unique('UQ_stream_sites_name', ['name'])
@Unique('UQ_stream_sites_token', ['token_digest'])
export class StreamSiteEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  /** Hex SHA-256 of the token: how a request finds its site. */
  @Column({ type: 'varchar', length: 64 }) token_digest: string;
  /** The token sealed with SecretBox (SECRET_KEY); never sent to the browser. */
  @Column({ type: 'text' }) token_sealed: string;
  @Column({ type: 'integer', default: 1 }) active: number;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) last_seen_at: Date | null;
  @Column({ type: 'integer', default: 0 }) batches: number;
  @Column({ type: 'integer', default: 0 }) events: number;
}

/** One received batch: the primary key (site, batch id) is what makes a batch count once. */
@Entity('stream_batches')
@Index('IDX_stream_batches_received', ['received_at'])
export class StreamBatchEntity {
  @PrimaryColumn({ type: 'integer' }) site_id: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) batch_id: string;
  @Column({ type: 'integer', default: 0 }) events: number;
  @Column({ type: 'datetime', precision: 3 }) received_at: Date;
}
