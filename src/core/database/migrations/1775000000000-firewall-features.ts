import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Firewall II: per-minute feature counters of each (host, address) (src/modules/firewall/train/ip-features.ts,
 * feature-rollup.service.ts), so that scoring reads a few summed rows per address instead of its raw log
 * rows. Key (host, minute, ip): a host's window of minutes is one range; (host, ip, minute) for address
 * lists; (minute) for pruning what retention removed.
 */
export class FirewallFeatures1775000000000 implements MigrationInterface {
  name = 'FirewallFeatures1775000000000';

  async up(q: QueryRunner): Promise<void> {
    const count = (name: string) => col.int(name, { default: 0 });
    await q.createTable(new Table({
      name: 'fw_ip_feature_minutes',
      withoutRowid: true,
      columns: [
        col.str('proxy_host', 190, { isPrimary: true }),
        col.int('minute', { isPrimary: true }),
        col.str('ip', 64, { isPrimary: true }),
        ...['n', 'nonstatic', 'busy_s', 'urls', 'c4xx', 'c5xx', 'static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot', 'agents', 'head_post'].map(count),
        { name: 'rt_sum', type: 'double', isNullable: false, default: 0 },
        ...['rt_n', 'night', 'depth_sum', 'books'].map(count),
        col.int('first_stime'),
        col.int('last_stime'),
      ],
      indices: [
        { name: 'IDX_fw_ip_feature_minutes_host_ip', columnNames: ['proxy_host', 'ip', 'minute'] },
        { name: 'IDX_fw_ip_feature_minutes_minute', columnNames: ['minute'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('fw_ip_feature_minutes');
  }
}
