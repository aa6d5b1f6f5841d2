import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Firewall II (000 §3 Train data log; §4 "Firewall train"): marks, one model per host, automatic bans. */
export class FirewallTrain1770000000000 implements MigrationInterface {
  name = 'FirewallTrain1770000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'fw_train_data',
      columns: [
        col.id(),
        col.str('host', 190),
        col.str('ip', 64),
        { name: 'bal', type: 'float', isNullable: false },
        { name: 'data', type: 'json', isNullable: false },
        col.time('time', { isNullable: false }),
      ],
      uniques: [{ name: 'UQ_fw_train_data_host_ip', columnNames: ['host', 'ip'] }],
      indices: [{ name: 'IDX_fw_train_data_ip', columnNames: ['ip'] }],
    }));
    await q.createTable(new Table({
      name: 'fw_nn_models',
      columns: [
        col.str('host', 190, { isPrimary: true }),
        col.int('version'),
        col.int('samples'),
        { name: 'error', type: 'double', isNullable: false },
        col.int('iterations'),
        col.int('duration_ms'),
        col.str('trained_by', 190, { default: "''" }),
        col.time('time', { isNullable: false }),
        { name: 'json', type: 'json', isNullable: false },
        col.int('scored_id', { default: 0 }),
      ],
    }));
    await q.createTable(new Table({
      name: 'fw_nn_autobans',
      columns: [
        col.id(),
        col.str('host', 190),
        col.str('ip', 64),
        { name: 'score', type: 'double', isNullable: false },
        col.int('model_version'),
        col.time('time', { isNullable: false }),
        col.time('undone'),
      ],
      uniques: [{ name: 'UQ_fw_nn_autobans_host_ip_version', columnNames: ['host', 'ip', 'model_version'] }],
      indices: [
        { name: 'IDX_fw_nn_autobans_ip', columnNames: ['ip'] },
        { name: 'IDX_fw_nn_autobans_time', columnNames: ['time'] },
      ],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['fw_nn_autobans', 'fw_nn_models', 'fw_train_data']) await q.dropTable(t);
  }
}
