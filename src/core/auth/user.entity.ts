import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';

@Entity('users')
@Unique('UQ_users_login', ['login'])
export class UserEntity {
  @PrimaryGeneratedColumn() uid: number;
  /**
   * Kept as typed (for display) and unique ignoring case: the column compares without case on both
   * databases (SQLite COLLATE NOCASE, MariaDB _ci; migration 1745000000000-hardening), so
   * `where: {login}` finds 'admin' for 'ADMIN' and the unique key refuses 'ADMIN' beside 'admin'.
   */
  @Column({ type: 'varchar', length: 64 }) login: string;
  @Column({ type: 'varchar', length: 128 }) name: string;
  @Column({ type: 'integer', default: 100 }) role: number;
  @Column({ type: 'integer', default: 0 }) active: number;
  @Column({ type: 'varchar', length: 255 }) password_hash: string;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) last_login: Date | null;
}

@Entity('sessions')
@Unique('UQ_sessions_token', ['token_digest'])
export class SessionEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Index('IDX_sessions_uid')
  @Column({ type: 'integer' }) uid: number;
  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'uid', foreignKeyConstraintName: 'FK_sessions_user' })
  user?: UserEntity;
  @Column({ type: 'varchar', length: 64 }) token_digest: string;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
  @Column({ type: 'datetime', precision: 3 }) expires_at: Date;
  @Column({ type: 'datetime', precision: 3 }) last_seen: Date;
  @Column({ type: 'varchar', length: 64, default: '' }) ip: string;
  @Column({ type: 'varchar', length: 190, default: '' }) user_agent: string;
}
