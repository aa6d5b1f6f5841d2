import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Firewall II, scoring throughput: the feature counters of each (host, address) summed over its minutes
 * from a cut minute on (fw_ip_feature_sums; src/modules/firewall/train/ip-features.ts "Sums"), kept by the
 * feature rollup, so that scoring a whole host reads one row per address instead of its minutes. Same
 * counter columns as fw_ip_feature_minutes, plus the oldest and newest minute summed (lo, hi).
 */
export class FirewallFeatureSums1776000000000 implements MigrationInterface {
  name = 'FirewallFeatureSums1776000000000';

  async up(q: QueryRunner): Promise<void> {
    const count = (name: string) => col.int(name, { default: 0 });
    await q.createTable(new Table({
      name: 'fw_ip_feature_sums',
      withoutRowid: true,
      columns: [
        col.str('proxy_host', 190, { isPrimary: true }),
        col.str('ip', 64, { isPrimary: true }),
        col.int('lo'),
        col.int('hi'),
        ...['n', 'nonstatic', 'busy_s', 'urls', 'c4xx', 'c5xx', 'static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot', 'agents', 'head_post'].map(count),
        { name: 'rt_sum', type: 'double', isNullable: false, default: 0 },
        ...['rt_n', 'night', 'depth_sum', 'books'].map(count),
        col.int('first_stime'),
        col.int('last_stime'),
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('fw_ip_feature_sums');
  }
}
