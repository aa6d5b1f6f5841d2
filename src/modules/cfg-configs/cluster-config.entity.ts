import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Cluster config row of 000 §3: Id, type, value. Rows of type 'domain' are the domain list. */
@Entity('cluster_configs')
export class ClusterConfigEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Index('IDX_cluster_configs_type')
  @Column({ type: 'varchar', length: 64 }) type: string;
  @Column({ type: 'text' }) value: string;
}
