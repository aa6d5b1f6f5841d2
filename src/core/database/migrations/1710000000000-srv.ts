import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Servers and cluster (000 §3): servers, pinned SSH host keys, SSL hosts, cluster configs. */
export class Srv1710000000000 implements MigrationInterface {
  name = 'Srv1710000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'servers',
      columns: [
        col.id(),
        col.int('type'),
        col.int('cod', { default: 0 }),
        col.str('name', 128),
        col.int('status', { default: 1 }),
        col.str('ip', 64, { default: "''" }),
        col.str('ip_local', 64, { default: "''" }),
        col.str('sshlogin', 64, { default: "''" }),
        col.text('sshpass'),
        col.text('sshkey'),
        col.text('sshkey_pass'),
        col.int('sshport', { default: 20001 }),
        col.text('cluster_key'),
        col.int('number_in_nginx', { default: 0 }),
        col.int('balance_db', { default: 0 }),
        col.int('balance_cache', { default: 0 }),
        col.int('balance_memcache', { default: 0 }),
        col.int('balance_web', { default: 0 }),
        col.int('read_nginx_log_firewall', { default: 0 }),
      ],
      uniques: [{ name: 'UQ_servers_name', columnNames: ['name'] }],
      indices: [
        { name: 'IDX_servers_cod', columnNames: ['cod'] },
        { name: 'IDX_servers_type', columnNames: ['type'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'ssh_host_keys',
      columns: [
        col.id(),
        col.str('host', 190),
        col.int('port'),
        col.str('key_type', 64),
        col.str('fingerprint', 128),
        col.text('public_key', { isNullable: false }),
        col.str('pending_fingerprint', 128, { isNullable: true }),
        col.text('pending_key'),
        col.time('pending_seen'),
        col.time('created_at', { isNullable: false }),
        col.time('updated_at', { isNullable: false }),
      ],
      uniques: [{ name: 'UQ_ssh_host_keys_host_port', columnNames: ['host', 'port'] }],
    }));
    await q.createTable(new Table({
      name: 'ssl_hosts',
      columns: [
        col.id(),
        col.str('host', 190),
        col.int('day_last', { isNullable: true }),
        col.int('not_check', { default: 0 }),
        col.time('ts_check'),
        col.time('expires_at'),
        col.int('chain_valid', { isNullable: true }),
        col.text('chain_error'),
        col.text('error'),
      ],
      uniques: [{ name: 'UQ_ssl_hosts_host', columnNames: ['host'] }],
    }));
    await q.createTable(new Table({
      name: 'cluster_configs',
      columns: [col.id(), col.str('type', 64), col.text('value', { isNullable: false })],
      indices: [{ name: 'IDX_cluster_configs_type', columnNames: ['type'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['cluster_configs', 'ssl_hosts', 'ssh_host_keys', 'servers']) await q.dropTable(t);
  }
}
