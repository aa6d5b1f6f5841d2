import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { col } from '../columns.js';

/**
 * Monitoring (issue 10, docs/monitoring.md "Tiers"): raw minute rows and hour, day and week rollups
 * (min, avg, max and the sample count per metric), and one watermark per rollup tier. `ts` is the epoch
 * minute of the row's start (an INT lasts far past 2038 in minutes). The metric list is written out
 * here, not imported, so that this migration stays what it was when later ones change the contract.
 */
const METRICS = ['la1', 'la5', 'la15', 'procs_running', 'procs_total', 'cores', 'mem_used_pct', 'cpu_busy_pct'];
const real = (name: string): TableColumnOptions => ({ name, type: 'float', isNullable: true });

export class Monitoring1780000000000 implements MigrationInterface {
  name = 'Monitoring1780000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'mon_minutes',
      columns: [col.int('server_id', { isPrimary: true }), col.int('ts', { isPrimary: true }), ...METRICS.map(real)],
      indices: [{ name: 'IDX_mon_minutes_ts', columnNames: ['ts'] }],
    }));
    for (const tier of ['hours', 'days', 'weeks']) {
      await q.createTable(new Table({
        name: `mon_${tier}`,
        columns: [
          col.int('server_id', { isPrimary: true }),
          col.int('ts', { isPrimary: true }),
          ...METRICS.flatMap((m) => [real(`${m}_min`), real(`${m}_avg`), real(`${m}_max`), col.int(`${m}_n`, { default: 0 })]),
        ],
        indices: [{ name: `IDX_mon_${tier}_ts`, columnNames: ['ts'] }],
      }));
    }
    await q.createTable(new Table({
      name: 'mon_rollups',
      columns: [col.str('tier', 16, { isPrimary: true }), col.int('done_until')],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['mon_rollups', 'mon_weeks', 'mon_days', 'mon_hours', 'mon_minutes']) await q.dropTable(t);
  }
}
