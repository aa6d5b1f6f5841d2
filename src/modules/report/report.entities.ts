import { Column, Entity, Index, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';
import type { ReportSeries } from '../../contracts/report.js';

const num: ValueTransformer = { to: (v: number | null) => v, from: (v: string | number | null) => (v === null || v === undefined ? null : Number(v)) };

/**
 * Report chart (001 §3; migration 1814100000000; docs/report.md "Fields"): every field by its spec
 * name. `data`, `total`, `marge` and `data_range_end` are the last drawn chart (report.builItemsChart.get
 * keeps them; /report/clear_stats clears them).
 */
@Entity('report_charts')
@Index('IDX_report_charts_filter', ['status', 'quality', 'count_day', 'tab_number', 'sort_number'])
export class ReportChartEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) title: string;
  @Column({ type: 'integer', default: 0 }) sort_number: number;
  @Column({ type: 'integer', default: 1 }) tab_number: number;
  @Column({ type: 'integer', default: 1 }) status: number;
  @Column({ type: 'integer', default: 0 }) type: number;
  @Column({ type: 'integer', default: 0 }) custom: number;
  @Column({ type: 'varchar', length: 32, default: 'stream' }) table: string;
  @Column({ type: 'integer', default: 0 }) quality: number;
  @Column({ type: 'varchar', length: 1000, default: '' }) colums: string;
  @Column({ type: 'varchar', length: 1000, default: '' }) names: string;
  @Column({ type: 'integer', default: 1 }) count_day: number;
  @Column({ type: 'integer', default: 0 }) offset: number;
  @Column({ type: 'integer', default: 0 }) marge_to: number;
  @Column({ type: 'integer', default: 0 }) type_caption: number;
  @Column({ type: 'integer', default: 0 }) val_round: number;
  @Column({ type: 'varchar', length: 500, default: '' }) metrika_ids: string;
  @Column({ type: 'integer', default: 0 }) metrika_chart_type: number;
  @Column({ type: 'varchar', length: 500, default: '' }) metrika_match_url: string;
  @Column({ type: 'integer', default: 0 }) compare_offset: number;
  @Column({ type: 'json', nullable: true }) data: ReportSeries[] | null;
  @Column({ type: 'double', default: 0, transformer: num }) total: number;
  @Column({ type: 'double', default: 0, transformer: num }) marge: number;
  @Column({ type: 'bigint', nullable: true, transformer: num }) data_range_end: number | null;
  @Column({ type: 'datetime', precision: 3 }) time_update: Date;
}

export const REPORT_ENTITIES = [ReportChartEntity];
