import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** SSL host of 000 §3, plus what the last check found (expiry, chain validity, failure). */
@Entity('ssl_hosts')
@Unique('UQ_ssl_hosts_host', ['host'])
export class SslHostEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) host: string;
  @Column({ type: 'integer', nullable: true }) day_last: number | null;
  @Column({ type: 'integer', default: 0 }) not_check: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) ts_check: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) expires_at: Date | null;
  @Column({ type: 'integer', nullable: true }) chain_valid: number | null;
  @Column({ type: 'text', nullable: true }) chain_error: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
}
