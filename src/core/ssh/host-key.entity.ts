import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * An SSH host key pinned on first successful connect, per host and port (servers, log nodes and
 * terminals share it). A different key offered later is refused and kept as `pending_*` until an
 * admin accepts it.
 */
@Entity('ssh_host_keys')
@Unique('UQ_ssh_host_keys_host_port', ['host', 'port'])
export class SshHostKeyEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) host: string;
  @Column({ type: 'integer' }) port: number;
  @Column({ type: 'varchar', length: 64 }) key_type: string;
  @Column({ type: 'varchar', length: 128 }) fingerprint: string;
  @Column({ type: 'text' }) public_key: string;
  @Column({ type: 'varchar', length: 128, nullable: true }) pending_fingerprint: string | null;
  @Column({ type: 'text', nullable: true }) pending_key: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) pending_seen: Date | null;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
  @Column({ type: 'datetime', precision: 3 }) updated_at: Date;
}
