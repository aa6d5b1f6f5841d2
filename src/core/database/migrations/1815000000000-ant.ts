import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Ant (issue 24; 001 §2 "Ant worker control", "Proxy import", §3; docs/ant.md "Tables"): ant tokens
 * (sha256 of the token, shown once), the task queue (a row per step and item; state 0 queued, 1 leased,
 * 2 done, 3 failed; the lease's owner, id and end), proxies (password sealed; failures, set-aside time,
 * the ant holding it in 'Used unique' mode), AI accounts (password sealed), the pages scanned (step 4),
 * the uniqueness marks and results (steps 21, 22) and the hub's settings (worker switch, only-step,
 * proxy usage). Times are epoch milliseconds (bigint).
 */
export class Ant1815000000000 implements MigrationInterface {
  name = 'Ant1815000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'ant_tokens',
      columns: [
        col.id('Id'),
        col.str('name', 64),
        col.str('token_hash', 64),
        col.int('created', { type: 'bigint', default: 0 }),
        col.int('last_used', { type: 'bigint', default: 0 }),
        col.int('revoked', { default: 0 }),
      ],
      uniques: [{ name: 'UQ_ant_tokens_hash', columnNames: ['token_hash'] }],
    }));
    await q.createTable(new Table({
      name: 'ant_tasks',
      columns: [
        col.id('Id'),
        col.int('step'),
        col.text('item', { isNullable: false }),
        col.str('item_key', 64),
        col.int('time', { type: 'bigint', default: 0 }),
        col.int('state', { default: 0 }),
        col.int('due', { type: 'bigint', default: 0 }),
        col.str('lease', 64, { default: "''" }),
        col.str('lease_owner', 64, { default: "''" }),
        col.str('lease_name', 64, { default: "''" }),
        col.int('lease_until', { type: 'bigint', default: 0 }),
        col.int('attempts', { default: 0 }),
        col.text('last_error'),
        col.int('done_at', { type: 'bigint', default: 0 }),
      ],
      uniques: [{ name: 'UQ_ant_tasks_key', columnNames: ['step', 'item_key'] }],
      indices: [
        { name: 'IDX_ant_tasks_queue', columnNames: ['state', 'step', 'Id'] },
        { name: 'IDX_ant_tasks_lease', columnNames: ['state', 'lease_until'] },
        { name: 'IDX_ant_tasks_owner', columnNames: ['lease_owner'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'ant_proxies',
      columns: [
        col.id('Id'),
        col.str('ip', 190),
        col.str('login', 255, { default: "''" }),
        col.text('pass_sealed'),
        col.int('fail_count', { default: 0 }),
        col.int('aside_until', { type: 'bigint', default: 0 }),
        col.text('last_error'),
        col.str('held_by', 64, { default: "''" }),
        col.int('used_at', { type: 'bigint', default: 0 }),
      ],
      uniques: [{ name: 'UQ_ant_proxies_ip', columnNames: ['ip'] }],
    }));
    await q.createTable(new Table({
      name: 'ant_ai_accounts',
      columns: [
        col.id('Id'),
        col.str('login', 255),
        col.text('pass_sealed'),
        col.text('last_error'),
        col.int('ttl_start', { type: 'bigint', default: 0 }),
        col.int('connects', { default: 0 }),
      ],
      uniques: [{ name: 'UQ_ant_ai_accounts_login', columnNames: ['login'] }],
    }));
    await q.createTable(new Table({
      name: 'ant_pages',
      columns: [
        col.id('Id'),
        col.str('url_key', 64),
        col.text('url', { isNullable: false }),
        col.text('title'),
        col.text('body'),
        col.int('scanned', { type: 'bigint', default: 0 }),
      ],
      uniques: [{ name: 'UQ_ant_pages_url', columnNames: ['url_key'] }],
    }));
    await q.createTable(new Table({
      name: 'ant_uniqueness',
      columns: [
        col.int('Id_book', { isPrimary: true }),
        col.str('url_key', 64, { isPrimary: true }),
        col.text('url', { isNullable: false }),
        col.int('similarity_ppm', { default: 0 }),
        col.int('result', { default: 0 }),
        col.int('time', { type: 'bigint', default: 0 }),
      ],
      indices: [{ name: 'IDX_ant_uniqueness_url', columnNames: ['url_key'] }],
    }));
    await q.createTable(new Table({
      name: 'ant_settings',
      columns: [
        col.str('name', 64, { isPrimary: true }),
        col.text('value'),
        col.int('time', { type: 'bigint', default: 0 }),
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['ant_settings', 'ant_uniqueness', 'ant_pages', 'ant_ai_accounts', 'ant_proxies', 'ant_tasks', 'ant_tokens']) await q.dropTable(t);
  }
}
