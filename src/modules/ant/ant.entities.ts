import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique, type ValueTransformer } from 'typeorm';

/** bigint columns come back as strings from mysql2; epoch milliseconds stay far below 2^53. */
const ms: ValueTransformer = { to: (v: number) => v, from: (v: string | number | null) => (v === null ? 0 : Number(v)) };

/** An ant token (migration 1815000000000-ant.ts): only its sha256 is stored; the token is shown once. */
@Entity('ant_tokens')
@Unique('UQ_ant_tokens_hash', ['token_hash'])
export class AntTokenEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'varchar', length: 64 }) token_hash: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) created: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) last_used: number;
  @Column({ type: 'integer', default: 0 }) revoked: number;
}

/** A task of 001 §3 (Id, step, item, time) with its queue state and lease (docs/ant.md "Queue"). */
@Entity('ant_tasks')
@Unique('UQ_ant_tasks_key', ['step', 'item_key'])
@Index('IDX_ant_tasks_queue', ['state', 'step', 'Id'])
@Index('IDX_ant_tasks_lease', ['state', 'lease_until'])
@Index('IDX_ant_tasks_owner', ['lease_owner'])
export class AntTaskEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) step: number;
  @Column({ type: 'text' }) item: string;
  /** sha256 of the item: one task per step and item. */
  @Column({ type: 'varchar', length: 64 }) item_key: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) time: number;
  /** 0 queued, 1 leased, 2 done, 3 failed (attempts used up). */
  @Column({ type: 'integer', default: 0 }) state: number;
  /** Not handed out before (a retry's back-off). */
  @Column({ type: 'bigint', default: 0, transformer: ms }) due: number;
  @Column({ type: 'varchar', length: 64, default: '' }) lease: string;
  /** The connection id holding the lease. */
  @Column({ type: 'varchar', length: 64, default: '' }) lease_owner: string;
  @Column({ type: 'varchar', length: 64, default: '' }) lease_name: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) lease_until: number;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) done_at: number;
}

/** Proxy of 001 §3 (Id, ip, login, pass): the password sealed (SecretBox), never answered in clear. */
@Entity('ant_proxies')
@Unique('UQ_ant_proxies_ip', ['ip'])
export class AntProxyEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) ip: string;
  @Column({ type: 'varchar', length: 255, default: '' }) login: string;
  @Column({ type: 'text', nullable: true }) pass_sealed: string | null;
  @Column({ type: 'integer', default: 0 }) fail_count: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) aside_until: number;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
  /** 'Used unique': the connection holding it ('' none). */
  @Column({ type: 'varchar', length: 64, default: '' }) held_by: string;
  @Column({ type: 'bigint', default: 0, transformer: ms }) used_at: number;
}

/** AI account of 001 §3: the password sealed. */
@Entity('ant_ai_accounts')
@Unique('UQ_ant_ai_accounts_login', ['login'])
export class AntAiAccountEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 255 }) login: string;
  @Column({ type: 'text', nullable: true }) pass_sealed: string | null;
  @Column({ type: 'text', nullable: true }) last_error: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) ttl_start: number;
  @Column({ type: 'integer', default: 0 }) connects: number;
}

/** A page scanned by step 4 (its text is handed to step 3). */
@Entity('ant_pages')
@Unique('UQ_ant_pages_url', ['url_key'])
export class AntPageEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 64 }) url_key: string;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', nullable: true }) title: string | null;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) scanned: number;
}

/** A uniqueness mark (step 21) of a page against a book; `result` 1 once step 22 published it. */
@Entity('ant_uniqueness')
@Index('IDX_ant_uniqueness_url', ['url_key'])
export class AntUniquenessEntity {
  @PrimaryColumn({ type: 'integer' }) Id_book: number;
  @PrimaryColumn({ type: 'varchar', length: 64 }) url_key: string;
  @Column({ type: 'text' }) url: string;
  /** Similarity in millionths (0..1,000,000): integers on both databases. */
  @Column({ type: 'integer', default: 0 }) similarity_ppm: number;
  @Column({ type: 'integer', default: 0 }) result: number;
  @Column({ type: 'bigint', default: 0, transformer: ms }) time: number;
}

/** The hub's settings: 'worker' ('ok'|'stop'), 'only_step', 'used_proxy' ('0'|'1'|'2'). */
@Entity('ant_settings')
export class AntSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'text', nullable: true }) value: string | null;
  @Column({ type: 'bigint', default: 0, transformer: ms }) time: number;
}

export const ANT_ENTITIES = [AntTokenEntity, AntTaskEntity, AntProxyEntity, AntAiAccountEntity, AntPageEntity, AntUniquenessEntity, AntSettingEntity];
