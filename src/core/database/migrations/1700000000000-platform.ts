import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

export class Platform1700000000000 implements MigrationInterface {
  name = 'Platform1700000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'users',
      columns: [
        col.id('uid'),
        col.str('login', 64),
        col.str('name', 128),
        col.int('role', { default: 100 }),
        col.int('active', { default: 0 }),
        col.str('password_hash', 255),
        col.time('created_at', { isNullable: false }),
        col.time('last_login'),
      ],
      uniques: [{ name: 'UQ_users_login', columnNames: ['login'] }],
    }));
    await q.createTable(new Table({
      name: 'sessions',
      columns: [
        col.id(),
        col.int('uid'),
        col.str('token_digest', 64),
        col.time('created_at', { isNullable: false }),
        col.time('expires_at', { isNullable: false }),
        col.time('last_seen', { isNullable: false }),
        col.str('ip', 64, { default: "''" }),
        col.str('user_agent', 190, { default: "''" }),
      ],
      uniques: [{ name: 'UQ_sessions_token', columnNames: ['token_digest'] }],
      indices: [{ name: 'IDX_sessions_uid', columnNames: ['uid'] }],
      foreignKeys: [{ name: 'FK_sessions_user', columnNames: ['uid'], referencedTableName: 'users', referencedColumnNames: ['uid'], onDelete: 'CASCADE', onUpdate: 'NO ACTION' }],
    }));
    await q.createTable(new Table({
      name: 'audit_log',
      columns: [
        col.id(),
        col.time('ts', { isNullable: false }),
        col.int('uid', { isNullable: true }),
        col.str('login', 64, { isNullable: true }),
        col.str('method', 190),
        col.text('args'),
        col.str('outcome', 8),
        col.text('message'),
        col.str('ip', 64, { isNullable: true }),
        col.int('duration_ms', { default: 0 }),
      ],
      indices: [
        { name: 'IDX_audit_ts', columnNames: ['ts'] },
        { name: 'IDX_audit_method', columnNames: ['method'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'leases',
      columns: [col.str('name', 190, { isPrimary: true }), col.str('owner', 64), col.int('until', { type: 'bigint' })],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['leases', 'audit_log', 'sessions', 'users']) await q.dropTable(t);
  }
}
