import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { FeatureVector } from '../../../contracts/firewall-train.js';

/**
 * Train data log of 000 §3 (Id, bal, data): an operator's mark of one address for one host, with the
 * feature vector of the address as it was when marked. One row per (host, ip): a new mark replaces it.
 */
@Entity('fw_train_data')
@Unique('UQ_fw_train_data_host_ip', ['host', 'ip'])
@Index('IDX_fw_train_data_ip', ['ip'])
export class TrainDataEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) host: string;
  @Column({ type: 'varchar', length: 64 }) ip: string;
  /** 0, 0.5 or 1 (exact in a float). */
  @Column({ type: 'float' }) bal: number;
  @Column({ type: 'json' }) data: FeatureVector;
  @Column({ type: 'datetime', precision: 3 }) time: Date;
}

/**
 * The current model of a host (one row per host): brain.js's JSON and how it was trained. A new
 * training replaces the row when it ends (version + 1); until then the previous one scores.
 * `scored_id`: the last fw_access_log row (Id) the auto-ban scoring has looked at (0 after a new version,
 * so the new model scores the whole window once). Ids, not times: lines stored late (a proxy read after
 * another) are still seen.
 */
@Entity('fw_nn_models')
export class NnModelEntity {
  @PrimaryColumn({ type: 'varchar', length: 190 }) host: string;
  @Column({ type: 'integer' }) version: number;
  @Column({ type: 'integer' }) samples: number;
  @Column({ type: 'double' }) error: number;
  @Column({ type: 'integer' }) iterations: number;
  @Column({ type: 'integer' }) duration_ms: number;
  @Column({ type: 'varchar', length: 190, default: '' }) trained_by: string;
  @Column({ type: 'datetime', precision: 3 }) time: Date;
  @Column({ type: 'json' }) json: Record<string, unknown>;
  @Column({ type: 'integer', default: 0 }) scored_id: number;
}

/**
 * An automatic ban by the neural score: address, host, score and the model version that gave it.
 * Unique per (host, ip, model_version): an address is auto-banned at most once per model version, so
 * one whose auto-ban was undone is never banned again by the same model.
 */
@Entity('fw_nn_autobans')
@Unique('UQ_fw_nn_autobans_host_ip_version', ['host', 'ip', 'model_version'])
@Index('IDX_fw_nn_autobans_ip', ['ip'])
@Index('IDX_fw_nn_autobans_time', ['time'])
export class NnAutoBanEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) host: string;
  @Column({ type: 'varchar', length: 64 }) ip: string;
  @Column({ type: 'double' }) score: number;
  @Column({ type: 'integer' }) model_version: number;
  @Column({ type: 'datetime', precision: 3 }) time: Date;
  /** Set when an operator undid the ban (firewall.undoAutoBan). */
  @Column({ type: 'datetime', precision: 3, nullable: true }) undone: Date | null;
}
