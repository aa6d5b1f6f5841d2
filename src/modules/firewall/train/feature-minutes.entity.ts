import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The counter columns (ip-features.ts MinuteCounters), shared by the minutes and the sums. */
abstract class FeatureCounterColumns {
  @Column({ type: 'integer', default: 0 }) n: number;
  @Column({ type: 'integer', default: 0 }) nonstatic: number;
  @Column({ type: 'integer', default: 0 }) busy_s: number;
  @Column({ type: 'integer', default: 0 }) urls: number;
  @Column({ type: 'integer', default: 0 }) c4xx: number;
  @Column({ type: 'integer', default: 0 }) c5xx: number;
  @Column({ type: 'integer', default: 0 }) static: number;
  @Column({ type: 'integer', default: 0 }) empty_ref: number;
  @Column({ type: 'integer', default: 0 }) ua_missing: number;
  @Column({ type: 'integer', default: 0 }) ua_library: number;
  @Column({ type: 'integer', default: 0 }) ua_bot: number;
  @Column({ type: 'integer', default: 0 }) agents: number;
  @Column({ type: 'integer', default: 0 }) head_post: number;
  @Column({ type: 'double', default: 0 }) rt_sum: number;
  @Column({ type: 'integer', default: 0 }) rt_n: number;
  @Column({ type: 'integer', default: 0 }) night: number;
  @Column({ type: 'integer', default: 0 }) depth_sum: number;
  @Column({ type: 'integer', default: 0 }) books: number;
  @Column({ type: 'integer' }) first_stime: number;
  @Column({ type: 'integer' }) last_stime: number;
}

/**
 * Feature counters of one address of a host in one minute (src/modules/firewall/train/ip-features.ts
 * MinuteCounters; filled by feature-rollup.service.ts from fw_access_log). `minute` = floor(stime / 60);
 * the distinct columns (busy_s, urls, agents, books) count distinct values within the minute.
 */
@Entity('fw_ip_feature_minutes', { withoutRowid: true })
@Index('IDX_fw_ip_feature_minutes_host_ip', ['proxy_host', 'ip', 'minute'])
@Index('IDX_fw_ip_feature_minutes_minute', ['minute'])
export class IpFeatureMinuteEntity extends FeatureCounterColumns {
  @PrimaryColumn({ type: 'varchar', length: 190 }) proxy_host: string;
  @PrimaryColumn({ type: 'integer' }) minute: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) ip: string;
}

/**
 * Feature counters of one address of a host summed over its minutes from the sums' cut minute on
 * (src/modules/firewall/train/ip-features.ts "Sums"; kept by feature-rollup.service.ts): sums, `agents` the
 * most of one minute, first/last the oldest and newest second, lo/hi the oldest and newest minute.
 */
@Entity('fw_ip_feature_sums', { withoutRowid: true })
export class IpFeatureSumEntity extends FeatureCounterColumns {
  @PrimaryColumn({ type: 'varchar', length: 190 }) proxy_host: string;
  @PrimaryColumn({ type: 'varchar', length: 64 }) ip: string;
  @Column({ type: 'integer' }) lo: number;
  @Column({ type: 'integer' }) hi: number;
}
