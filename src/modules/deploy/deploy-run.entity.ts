import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One deploy (issue 11): who, when, type, host, per-node outcome and exit code (JSON in `nodes`), duration. */
@Entity('deploy_runs')
@Index('IDX_deploy_runs_host', ['host', 'Id'])
export class DeployRunEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 16 }) type: string;
  @Column({ type: 'varchar', length: 128 }) host: string;
  @Column({ type: 'integer', nullable: true }) uid: number | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) login: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) started_at: Date | null;
  @Column({ type: 'integer', nullable: true }) duration_ms: number | null;
  /** 1 every node ok, 0 some failed, null while it runs. */
  @Column({ type: 'integer', nullable: true }) ok: number | null;
  /** [{name, ok, code, error?}] as JSON text. */
  @Column({ type: 'text', nullable: true }) nodes: string | null;
}
