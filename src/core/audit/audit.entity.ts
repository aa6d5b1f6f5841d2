import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('audit_log')
export class AuditEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Index('IDX_audit_ts')
  @Column({ type: 'datetime', precision: 3 }) ts: Date;
  @Column({ type: 'integer', nullable: true }) uid: number | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) login: string | null;
  @Index('IDX_audit_method')
  @Column({ type: 'varchar', length: 190 }) method: string;
  @Column({ type: 'text', nullable: true }) args: string | null;
  /** The object acted on, named by its service ("server web-1 (#3)"); null when none was named. */
  @Column({ type: 'varchar', length: 190, nullable: true }) target: string | null;
  @Column({ type: 'varchar', length: 8 }) outcome: 'ok' | 'error';
  @Column({ type: 'text', nullable: true }) message: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) ip: string | null;
  @Column({ type: 'integer', default: 0 }) duration_ms: number;
}
