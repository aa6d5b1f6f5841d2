import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique, type ValueTransformer } from 'typeorm';

/** bigint columns come back as strings from mysql2: byte offsets stay far below 2^53, so numbers are exact. */
const bigintNumber: ValueTransformer = { to: (v: number) => v, from: (v: string | number | null) => (v === null ? null : Number(v)) };

/** Access log entry of 000 §3, one row per parsed nginx line; `stime` is the epoch second (date and time derive from it). */
@Entity('fw_access_log')
@Index('IDX_fw_access_log_host_stime', ['proxy_host', 'stime'])
@Index('IDX_fw_access_log_ip_stime', ['ip', 'stime'])
@Index('IDX_fw_access_log_stime', ['stime'])
export class AccessLogEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) proxy_id: number;
  @Column({ type: 'varchar', length: 190 }) proxy_host: string;
  @Column({ type: 'varchar', length: 64 }) proxy_addr: string;
  @Column({ type: 'varchar', length: 64 }) ip: string;
  @Column({ type: 'varchar', length: 190, default: '' }) forward: string;
  @Column({ type: 'integer' }) stime: number;
  @Column({ type: 'varchar', length: 16, default: '' }) method: string;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'integer' }) code: number;
  @Column({ type: 'text', nullable: true }) ref: string | null;
  @Column({ type: 'text', nullable: true }) agent: string | null;
  @Column({ type: 'varchar', length: 64, default: '' }) upstream_response_time: string;
  @Column({ type: 'float', nullable: true }) request_time: number | null;
  @Column({ type: 'varchar', length: 16, default: '' }) tag: string;
}

/** Hits per (minute, host, ip): the statistics read these instead of rescanning raw rows. */
@Entity('fw_ip_minutes')
@Index('IDX_fw_ip_minutes_host_minute', ['proxy_host', 'minute'])
export class IpMinuteEntity {
  @PrimaryColumn({ type: 'integer' }) minute: number;
  @PrimaryColumn({ type: 'varchar', length: 190 }) proxy_host: string;
  @PrimaryColumn({ type: 'varchar', length: 64 }) ip: string;
  @Column({ type: 'integer', default: 0 }) count: number;
}

/** IP rule of 000 §3: ip, status (see IP_RULE_STATUSES), time. One rule per address. */
@Entity('fw_ip_rules')
@Unique('UQ_fw_ip_rules_ip', ['ip'])
@Index('IDX_fw_ip_rules_status', ['status'])
export class IpRuleEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 64 }) ip: string;
  @Column({ type: 'integer' }) status: number;
  @Column({ type: 'datetime', precision: 3 }) time: Date;
}

/** IP block rule of 000 §3: newline-separated addresses or CIDR ranges, a comment, on (1) or off (0). */
@Entity('fw_block_rules')
export class BlockRuleEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'text' }) value: string;
  @Column({ type: 'varchar', length: 190, default: '' }) comment: string;
  @Column({ type: 'integer', default: 1 }) status: number;
}

/** Where the worker stopped in each proxy's log: inode and byte offset at a line boundary, plus counters. */
@Entity('fw_log_cursors')
export class LogCursorEntity {
  @PrimaryColumn({ type: 'integer' }) proxy_id: number;
  @Column({ type: 'varchar', length: 255, default: '' }) path: string;
  @Column({ type: 'varchar', length: 32, default: '' }) inode: string;
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber }) pos: number;
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber }) lines: number;
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber }) bad_lines: number;
  @Column({ type: 'text', nullable: true }) bad_sample: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) last_read: Date | null;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
}

/** Firewall settings shared by every instance: the worker switch and its last run. */
@Entity('fw_settings')
export class FirewallSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'varchar', length: 190 }) value: string;
}

/**
 * The traffic report's summary (FirewallTrafficService, docs/firewall.md "Traffic report"): hits per
 * (host, epoch hour, ip, code, tag) with the first and last second seen, rolled up from fw_access_log
 * rows up to a watermark Id (fw_settings 'traffic_rollup_id'). Clustered by the primary key (SQLite
 * WITHOUT ROWID, InnoDB), so a host's hours are read in one range; the address index covers the columns
 * the report reads, so a window over most hours is grouped along it without a sort.
 */
@Entity('fw_traffic_hours', { withoutRowid: true })
@Index('IDX_fw_traffic_hours_host_ip', ['proxy_host', 'ip', 'hour', 'code', 'count', 'first_stime', 'last_stime'])
export class TrafficHourEntity {
  @PrimaryColumn({ type: 'varchar', length: 190 }) proxy_host: string;
  @PrimaryColumn({ type: 'integer' }) hour: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) ip: string;
  @PrimaryColumn({ type: 'integer' }) code: number;
  @PrimaryColumn({ type: 'varchar', length: 16 }) tag: string;
  @Column({ type: 'integer', default: 0 }) count: number;
  @Column({ type: 'integer' }) first_stime: number;
  @Column({ type: 'integer' }) last_stime: number;
}
