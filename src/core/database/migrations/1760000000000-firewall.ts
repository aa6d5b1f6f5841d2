import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Firewall I (000 §3 IP rule, IP block rule, IP stats, Access log entry, Firewall worker status), and servers.nginx_log. */
export class Firewall1760000000000 implements MigrationInterface {
  name = 'Firewall1760000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('servers', new TableColumn(col.str('nginx_log', 255, { default: "'/var/log/nginx/access.log'" })));
    await q.createTable(new Table({
      name: 'fw_access_log',
      columns: [
        col.id(),
        col.int('proxy_id'),
        col.str('proxy_host', 190),
        col.str('proxy_addr', 64),
        col.str('ip', 64),
        col.str('forward', 190, { default: "''" }),
        col.int('stime'),
        col.str('method', 16, { default: "''" }),
        col.text('url', { isNullable: false }),
        col.int('code'),
        col.text('ref'),
        col.text('agent'),
        col.str('upstream_response_time', 64, { default: "''" }),
        { name: 'request_time', type: 'float', isNullable: true },
        col.str('tag', 16, { default: "''" }),
      ],
      indices: [
        { name: 'IDX_fw_access_log_host_stime', columnNames: ['proxy_host', 'stime'] },
        { name: 'IDX_fw_access_log_ip_stime', columnNames: ['ip', 'stime'] },
        { name: 'IDX_fw_access_log_stime', columnNames: ['stime'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'fw_ip_minutes',
      columns: [
        col.int('minute', { isPrimary: true }),
        col.str('proxy_host', 190, { isPrimary: true }),
        col.str('ip', 64, { isPrimary: true }),
        col.int('count', { default: 0 }),
      ],
      indices: [{ name: 'IDX_fw_ip_minutes_host_minute', columnNames: ['proxy_host', 'minute'] }],
    }));
    await q.createTable(new Table({
      name: 'fw_ip_rules',
      columns: [col.id(), col.str('ip', 64), col.int('status'), col.time('time', { isNullable: false })],
      uniques: [{ name: 'UQ_fw_ip_rules_ip', columnNames: ['ip'] }],
      indices: [{ name: 'IDX_fw_ip_rules_status', columnNames: ['status'] }],
    }));
    await q.createTable(new Table({
      name: 'fw_block_rules',
      columns: [col.id(), col.text('value', { isNullable: false }), col.str('comment', 190, { default: "''" }), col.int('status', { default: 1 })],
    }));
    await q.createTable(new Table({
      name: 'fw_log_cursors',
      columns: [
        col.int('proxy_id', { isPrimary: true }),
        col.str('path', 255, { default: "''" }),
        col.str('inode', 32, { default: "''" }),
        { name: 'pos', type: 'bigint', isNullable: false, default: 0 },
        { name: 'lines', type: 'bigint', isNullable: false, default: 0 },
        { name: 'bad_lines', type: 'bigint', isNullable: false, default: 0 },
        col.text('bad_sample'),
        col.time('last_read'),
        col.text('last_error'),
      ],
    }));
    await q.createTable(new Table({
      name: 'fw_traffic_hours',
      withoutRowid: true,
      columns: [
        col.str('proxy_host', 190, { isPrimary: true }),
        col.int('hour', { isPrimary: true }),
        col.str('ip', 64, { isPrimary: true }),
        col.int('code', { isPrimary: true }),
        col.str('tag', 16, { isPrimary: true }),
        col.int('count', { default: 0 }),
        col.int('first_stime'),
        col.int('last_stime'),
      ],
      indices: [{ name: 'IDX_fw_traffic_hours_host_ip', columnNames: ['proxy_host', 'ip', 'hour', 'code', 'count', 'first_stime', 'last_stime'] }],
    }));
    await q.createTable(new Table({
      name: 'fw_settings',
      columns: [col.str('name', 64, { isPrimary: true }), col.str('value', 190)],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['fw_settings', 'fw_traffic_hours', 'fw_log_cursors', 'fw_block_rules', 'fw_ip_rules', 'fw_ip_minutes', 'fw_access_log']) await q.dropTable(t);
    await q.dropColumn('servers', 'nginx_log');
  }
}
