/**
 * Report dashboards (001 §2 /report/list, §3 Report chart, §4, §7 /report/*, report.builItemsChart.get;
 * docs/report.md): the report charts and what /report/list reads. Reads: every signed-in user (the
 * menu item has no role); saves, removes and clears: role 10 and stronger (docs/report.md "Roles").
 */
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import {
  METRIKA_MAX_METRICS, METRIKA_METRICS, REPORT_CHART_TYPES, REPORT_COUNT_DAYS, REPORT_CUSTOM_MAX, REPORT_DEFAULTS, REPORT_FILTER_DEFAULTS, REPORT_MSG, REPORT_QUALITY,
  REPORT_SOURCES, REPORT_TABS, REPORT_TYPE_CAPTIONS, REPORT_TYPE_METRIKA, ReportBuildArgs, type ReportBuild, type ReportChart, type ReportClearArgs,
  type ReportDeleteArgs, type ReportGetArgs, type ReportSaveArgs, type ReportSource, type ReportTypeMetrics,
} from '../../contracts/report.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { invalid, notFound } from '../../core/errors.js';
import { MetrikaClient } from '../../core/outside/metrika.client.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { ReportBuildService } from './report-build.service.js';
import { ReportChartEntity } from './report.entities.js';

const view = (r: ReportChartEntity): ReportChart => ({
  Id: r.Id, title: r.title, sort_number: r.sort_number, tab_number: r.tab_number, status: r.status, type: r.type, custom: r.custom, table: r.table,
  quality: r.quality, colums: r.colums, names: r.names, count_day: r.count_day, offset: r.offset, marge_to: r.marge_to, type_caption: r.type_caption,
  val_round: r.val_round, metrika_ids: r.metrika_ids, metrika_chart_type: r.metrika_chart_type, metrika_match_url: r.metrika_match_url,
  compare_offset: r.compare_offset, data: r.data ?? null, total: r.total, marge: r.marge, data_range_end: r.data_range_end,
});

@Injectable()
export class ReportService {
  constructor(
    @InjectRepository(ReportChartEntity) private readonly rows: Repository<ReportChartEntity>,
    private readonly builder: ReportBuildService,
    private readonly metrika: MetrikaClient,
  ) {}

  private async one(Id: number): Promise<ReportChartEntity> {
    const r = await this.rows.findOne({ where: { Id } });
    if (!r) throw notFound(REPORT_MSG.notFound);
    auditTarget('report', r.title, r.Id);
    return r;
  }

  /** /report/get: one report by Id, else the filter's reports (defaults quality 0, status 1, count_day 1) by tab, then sort_number. */
  async get(a: ReportGetArgs): Promise<ReportChart | { list: ReportChart[]; count: number; filter: Record<string, number> }> {
    if (a.Id) return view(await this.one(a.Id));
    const filter = {
      quality: a.quality ?? REPORT_FILTER_DEFAULTS.quality,
      status: a.status ?? REPORT_FILTER_DEFAULTS.status,
      count_day: a.count_day ?? REPORT_FILTER_DEFAULTS.count_day,
      ...(a.tab_number ? { tab_number: a.tab_number } : {}),
    };
    const list = await this.rows.find({ where: filter, order: { tab_number: 'ASC', sort_number: 'ASC', Id: 'ASC' } });
    return { list: list.map(view), count: list.length, filter };
  }

  /** /report/save: a new report starts with the defaults (001 §4); an edit changes the fields sent. */
  async save(a: z.output<typeof ReportSaveArgs>): Promise<{ Id: number; message: string; report: ReportChart }> {
    const { Id, ...fields } = a;
    const cur = Id ? await this.one(Id) : null;
    const next = { ...(cur ? view(cur) : REPORT_DEFAULTS), ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) } as ReportChart;
    if (next.type === REPORT_TYPE_METRIKA) {
      if (!next.metrika_ids) throw invalid(REPORT_MSG.metrikaIds, { metrika_ids: REPORT_MSG.metrikaIds });
      const bad = next.colums.split(',').map((s) => s.trim()).filter(Boolean).find((m) => !/^ym:[a-z]+:[A-Za-z0-9_]+$/.test(m));
      if (bad) throw invalid(`colums: '${bad}' is not a Metrika metric (ym:s:visits, ...)`, { colums: `'${bad}' is not a Metrika metric` });
    } else {
      const src = REPORT_SOURCES[next.table as ReportSource];
      const bad = next.colums.split(',').map((s) => s.trim()).filter(Boolean).find((c) => !(c in src.columns));
      if (bad) throw invalid(`colums: '${bad}' is not a column of ${next.table} (${Object.keys(src.columns).join(', ')})`, { colums: `'${bad}' is not a column of ${next.table}` });
    }
    if (Id && next.marge_to === Id) throw invalid('marge_to cannot be the report itself', { marge_to: 'marge_to cannot be the report itself' });
    if (next.marge_to && !(await this.rows.exists({ where: { Id: next.marge_to } }))) throw invalid(`marge_to: report ${next.marge_to} not found`, { marge_to: `report ${next.marge_to} not found` });
    const row = {
      title: next.title, sort_number: next.sort_number, tab_number: next.tab_number, status: next.status, type: next.type, custom: next.custom, table: next.table,
      quality: next.quality, colums: next.colums, names: next.names, count_day: next.count_day, offset: next.offset, marge_to: next.marge_to,
      type_caption: next.type_caption, val_round: next.val_round, metrika_ids: next.metrika_ids.replace(/\s+/g, ''), metrika_chart_type: next.metrika_chart_type,
      metrika_match_url: next.metrika_match_url, compare_offset: next.compare_offset, time_update: new Date(),
    };
    let saved: number;
    if (cur) {
      await this.rows.update({ Id: cur.Id }, row);
      saved = cur.Id;
    } else {
      const r = await this.rows.insert({ ...row, data: null, total: 0, marge: 0, data_range_end: null });
      saved = Number(r.identifiers[0].Id);
    }
    auditTarget('report', next.title, saved);
    return { Id: saved, message: cur ? 'Update ok!' : 'Insert ok!', report: view(await this.one(saved)) };
  }

  /** /report/remove {deleteId}: the report goes; charts merged into it are drawn on their own again. */
  async remove(a: z.output<typeof ReportDeleteArgs>): Promise<{ message: string }> {
    const r = await this.one(a.deleteId);
    await this.builder.forget(r);
    await this.rows.delete({ Id: r.Id });
    await this.rows.update({ marge_to: r.Id }, { marge_to: 0 });
    return { message: REPORT_MSG.deleted };
  }

  /** /report/clear_stats {clearId}: forgets the last drawn chart (data, total, marge, data_range_end) and its cached Metrika answers. */
  async clearStats(a: z.output<typeof ReportClearArgs>): Promise<{ message: string }> {
    const r = await this.one(a.clearId);
    await this.builder.forget(r);
    await this.rows.update({ Id: r.Id }, { data: null, total: 0, marge: 0, data_range_end: null });
    return { message: REPORT_MSG.cleared };
  }

  /** /report/get_type_metrics: what a report may draw and how (the form's choices). */
  typeMetrics(): ReportTypeMetrics {
    const pairs = (o: Record<number, string>) => Object.entries(o).map(([id, name]) => ({ id: Number(id), name }));
    return {
      sources: (Object.keys(REPORT_SOURCES) as ReportSource[]).map((table) => ({
        table, label: REPORT_SOURCES[table].label, hours: REPORT_SOURCES[table].hours,
        columns: Object.entries(REPORT_SOURCES[table].columns).map(([name, caption]) => ({ name, caption })),
      })),
      metrika: { configured: this.metrika.configured, metrics: Object.entries(METRIKA_METRICS).map(([name, caption]) => ({ name, caption })), max: METRIKA_MAX_METRICS },
      chart_types: pairs(REPORT_CHART_TYPES),
      type_captions: pairs(REPORT_TYPE_CAPTIONS),
      quality: pairs(REPORT_QUALITY),
      count_day: [...REPORT_COUNT_DAYS],
      tabs: pairs(REPORT_TABS),
      bounds: this.builder.bounds,
      custom_max: REPORT_CUSTOM_MAX,
    };
  }

  @Rpc('report.builItemsChart.get', {
    role: Role.user, input: ReportBuildArgs,
    summary: "{Id}: one report's chart drawn with its own count_day, quality, offset and compare_offset: {Id, step ('hour'|'day'|'week'), from, to, series: [{name, metric, start, step, values, compare?}], cells: [{name, metric, total, avg, last, compare_total?, change?, bounds, tone}], total, marge, source, notes, fetched, cached, stale, error?, configured}; type -1 reads Yandex Metrika (cached 600 s; configured false without METRIKA_TOKEN)",
  })
  async buildItems(a: z.output<typeof ReportBuildArgs>, ctx: RpcContext): Promise<ReportBuild> {
    return this.builder.build(await this.one(a.Id), ctx.signal);
  }
}
