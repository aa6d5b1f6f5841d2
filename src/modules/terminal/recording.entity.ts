import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The index of terminal recordings (docs/terminals.md "Recording"): one row per shell session, the
 * asciicast v2 file itself under DATA_DIR (`file`, relative to DATA_DIR/recordings). No foreign keys:
 * a recording outlives its server and its user (the names are kept).
 */
@Entity('term_recordings')
@Index('IDX_term_recordings_server', ['server_id', 'Id'])
@Index('IDX_term_recordings_uid', ['uid', 'Id'])
@Index('IDX_term_recordings_started', ['started_at'])
export class RecordingEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) server_id: number;
  @Column({ type: 'varchar', length: 190 }) server_name: string;
  @Column({ type: 'integer', nullable: true }) uid: number | null;
  @Column({ type: 'varchar', length: 64, default: '' }) login: string;
  @Column({ type: 'datetime', precision: 3 }) started_at: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) ended_at: Date | null;
  @Column({ type: 'varchar', length: 190 }) file: string;
  @Column({ type: 'integer', default: 0 }) bytes: number;
  @Column({ type: 'varchar', length: 190, nullable: true }) end_reason: string | null;
  @Column({ type: 'integer', default: 0 }) truncated: number;
}
