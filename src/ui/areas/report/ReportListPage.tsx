/**
 * /report/list (001 §2 "Reports and marketplace", §4, §6, §9; issue 23 "Report dashboards";
 * docs/report.md "Screen"): the filter (quality, status, count_day in the URL; defaults 0, 1, 1), tabs
 * by tab_number (1 Reading … 5 Misc), the charts of the tab ordered by sort_number (a report with
 * marge_to is drawn inside that report's chart), each with its number row coloured by the reference
 * bounds; the edit dialog; delete and clear stats with confirmation; the partner totals for role 1.
 */
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Nav from 'react-bootstrap/Nav';
import Table from 'react-bootstrap/Table';
import { roleAllows, Role } from '../../../contracts/roles.js';
import {
  captionValue, REPORT_COUNT_DAYS, REPORT_FILTER_DEFAULTS, REPORT_QUALITY, REPORT_STATUS, REPORT_TABS, REPORT_TYPE_METRIKA, RSYA_DEFAULT_DAYS,
  type ReportBuild, type ReportCell, type ReportChart, type ReportTypeMetrics, type RsyaTotals,
} from '../../../contracts/report.js';
import type { NotConfigured } from '../../../contracts/outside.js';
import { errorText, rest, rpc, useAsync, useRest, useSession } from '../../api/index.js';
import { ConfirmButton, DateInput, EmptyState, ErrorAlert, fmtDateTime, isDayText, Loading, PageTitle, SelectField, useAction, useQueryParam } from '../../kit/index.js';
import './api.js';
import { ReportEditDialog } from './ReportEditDialog.js';

const ReportChartView = lazy(() => import('./ReportChart.js'));
const RsyaChart = lazy(() => import('./ReportChart.js').then((m) => ({ default: m.RsyaChart })));

const pairs = (o: Record<number, string>) => Object.entries(o).map(([value, label]) => ({ value: Number(value), label: `${value} ${label}` }));
const dayText = (t: number) => new Date(t).toISOString().slice(0, 10);

function Cells({ cells, report }: { cells: ReportCell[]; report: ReportChart }) {
  if (!cells.length) return null;
  const v = (x: number | null | undefined) => captionValue(x ?? null, report.type_caption, report.val_round);
  const tone = (c: ReportCell) => (c.tone === 'in' ? 'table-success' : c.tone === 'out' ? 'table-danger' : '');
  return (
    <Table size="sm" bordered className="mb-2 small app-report-cells w-auto" data-testid="report-cells">
      <thead>
        <tr><th /><th>total</th><th>avg</th><th>last</th>{cells.some((c) => c.compare_total !== undefined) && <><th>before</th><th>change</th></>}</tr>
      </thead>
      <tbody>
        {cells.map((c) => (
          <tr key={c.metric}>
            <th className="fw-normal">{c.name}{c.bounds && <span className="text-secondary ms-1">({c.bounds[0]}-{c.bounds[1]})</span>}</th>
            <td>{v(c.total)}</td>
            <td className={tone(c)} data-tone={c.tone ?? ''}>{v(c.avg)}</td>
            <td>{v(c.last)}</td>
            {c.compare_total !== undefined && <><td>{v(c.compare_total)}</td><td className={c.change === null || c.change === undefined ? '' : c.change >= 0 ? 'text-success' : 'text-danger'}>{c.change === null || c.change === undefined ? '–' : `${c.change >= 0 ? '+' : ''}${c.change.toFixed(1)}%`}</td></>}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function ReportCard({ report, merged, canEdit, onEdit, onChanged }: { report: ReportChart; merged: ReportChart[]; canEdit: boolean; onEdit: () => void; onChanged: () => void }) {
  const ids = [report.Id, ...merged.map((m) => m.Id)];
  const builds = useAsync((signal) => Promise.all(ids.map((Id) => rpc('report.builItemsChart.get', { Id }, { signal, timeoutMs: 60_000 }))), `${ids.join(',')}:${JSON.stringify([report, ...merged].map(({ data: _d, total: _t, marge: _m, data_range_end, ...r }) => [r, data_range_end === null]))}`);
  const { run } = useAction();
  const b: ReportBuild | undefined = builds.data?.[0];
  const parts = (builds.data ?? []).map((x, i) => {
    const r = i === 0 ? report : merged[i - 1];
    return { series: x.series, chartType: r.type === REPORT_TYPE_METRIKA ? r.metrika_chart_type : r.type, typeCaption: r.type_caption, valRound: r.val_round, custom: r.custom };
  });
  return (
    <Card className="mb-3" data-testid={`report-card-${report.Id}`}>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2 py-1">
        <span className="fw-semibold me-auto">{report.title} {merged.length > 0 && <span className="text-secondary small">+ {merged.map((m) => m.title).join(', ')}</span>}</span>
        {b?.stale && <Badge bg="warning" text="dark" title={b.error}>stale: data of {b.fetched ? fmtDateTime(b.fetched) : '?'}</Badge>}
        {b && b.fetched && !b.stale && <span className="text-secondary small">Metrika {fmtDateTime(b.fetched)}</span>}
        {canEdit && (
          <>
            <Button size="sm" variant="outline-primary" onClick={onEdit}>Edit</Button>
            <ConfirmButton label="Clear stats" variant="outline-secondary" confirmVariant="warning" text={`Clear the drawn data of '${report.title}'?`}
              onConfirm={async () => { if (await run(() => rest.post<{ message: string }>('/report/clear_stats', { clearId: report.Id }), (x) => x.message)) onChanged(); }} />
            <ConfirmButton text={`Delete the report '${report.title}'? This cannot be undone.`}
              onConfirm={async () => { if (await run(() => rest.post<{ message: string }>('/report/remove', { deleteId: report.Id }), (x) => x.message)) onChanged(); }} />
          </>
        )}
      </Card.Header>
      <Card.Body className="py-2">
        {builds.loading && !builds.data && <Loading inline />}
        {builds.error && <ErrorAlert error={builds.error} onRetry={builds.reload} />}
        {b && !b.configured && <div className="alert alert-warning py-1 small mb-2">{b.error ?? 'Yandex Metrika is not configured (METRIKA_TOKEN)'}</div>}
        {b?.stale && b.error && <div className="alert alert-warning py-1 small mb-2" data-testid="report-stale">Shown: the last good data ({b.fetched ? fmtDateTime(b.fetched) : 'time unknown'}). {b.error}</div>}
        {b && b.configured && (
          <>
            <Cells cells={b.cells} report={report} />
            <Suspense fallback={<Loading inline />}>
              <ReportChartView parts={parts} longRange={report.count_day >= 90} />
            </Suspense>
            <div className="text-secondary small">
              {dayText(b.from)} – {dayText(b.to - 1)}, by {b.step}s · {b.source}{b.notes.length > 0 && ` · ${b.notes.join('; ')}`}
            </div>
          </>
        )}
      </Card.Body>
    </Card>
  );
}

function PartnerTotals() {
  const today = dayText(Date.now());
  const [date1, setDate1] = useState(dayText(Date.now() - RSYA_DEFAULT_DAYS * 86_400_000));
  const [date2, setDate2] = useState(today);
  const ok = isDayText(date1) && isDayText(date2) && date1 <= date2;
  const r = useAsync<RsyaTotals | NotConfigured>((signal) => rpc('yandex.getTotalRsy', { date1, date2 }, { signal }), `${date1}|${date2}`, { enabled: ok });
  const d = r.data && r.data.configured ? r.data : null;
  const last = d?.points.length ? d.points[d.points.length - 1] : null;
  const money = (x: number) => `${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ₽`;
  return (
    <Card className="mb-3" data-testid="rsya-panel">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2 py-1">
        <span className="fw-semibold me-auto">Partner totals (RSYa, partner_wo_nds)</span>
        <div style={{ width: 130 }}><DateInput id="rsya-date1" size="sm" value={date1} onChange={setDate1} aria-label="date1" /></div>
        <span className="text-secondary">–</span>
        <div style={{ width: 130 }}><DateInput id="rsya-date2" size="sm" value={date2} onChange={setDate2} aria-label="date2" /></div>
        {d?.stale && <Badge bg="warning" text="dark">stale: data of {fmtDateTime(d.fetched)}</Badge>}
      </Card.Header>
      <Card.Body className="py-2">
        {!ok && <div className="text-danger small">Dates yyyy-mm-dd, date1 not after date2</div>}
        {r.loading && !r.data && <Loading inline />}
        {r.error && <ErrorAlert error={r.error} onRetry={r.reload} />}
        {r.data && !r.data.configured && <div className="alert alert-secondary py-1 small mb-0">Yandex partner statistics are not configured (RSYA_TOKEN).</div>}
        {d?.stale && d.error && <div className="alert alert-warning py-1 small mb-2">Shown: the last good data ({fmtDateTime(d.fetched)}). {d.error}</div>}
        {d && (
          <>
            <div className="d-flex flex-wrap gap-4 mb-2" data-testid="rsya-numbers">
              <div><div className="text-secondary small">Total</div><div className="fs-5" data-testid="rsya-total">{money(d.total)}</div></div>
              <div><div className="text-secondary small">Per day</div><div className="fs-5">{money(d.points.length ? d.total / d.points.length : 0)}</div></div>
              <div><div className="text-secondary small">Last day{last ? ` (${last.date})` : ''}</div><div className="fs-5">{last ? money(last.value) : '–'}</div></div>
              <div><div className="text-secondary small">Days</div><div className="fs-5">{d.points.length}</div></div>
            </div>
            <Suspense fallback={<Loading inline />}><RsyaChart points={d.points} /></Suspense>
          </>
        )}
      </Card.Body>
    </Card>
  );
}

export default function ReportListPage() {
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const isAdmin = roleAllows(session?.role, Role.admin);
  const [quality, setQuality] = useQueryParam('quality', String(REPORT_FILTER_DEFAULTS.quality));
  const [status, setStatus] = useQueryParam('status', String(REPORT_FILTER_DEFAULTS.status));
  const [countDay, setCountDay] = useQueryParam('count_day', String(REPORT_FILTER_DEFAULTS.count_day));
  const [tab, setTab] = useQueryParam('tab', '1');
  const list = useRest<{ list: ReportChart[]; count: number }>('/report/get', { quality, status, count_day: countDay });
  const meta = useRest<ReportTypeMetrics>('/report/get_type_metrics');
  const [editing, setEditing] = useState<ReportChart | null>(null);
  const [dialog, setDialog] = useState(false);

  const all = list.data?.list ?? [];
  const byId = useMemo(() => new Map(all.map((r) => [r.Id, r])), [all]);
  const hosted = (r: ReportChart) => r.marge_to > 0 && byId.has(r.marge_to) && r.marge_to !== r.Id;
  const inTab = all.filter((r) => String(r.tab_number) === tab && !hosted(r));
  const mergedInto = (Id: number) => all.filter((r) => r.marge_to === Id && hosted(r));
  const changed = useCallback(() => list.reload(), [list]);

  return (
    <div className="app-report-list">
      <PageTitle title="Reports" actions={canEdit && <Button size="sm" onClick={() => { setEditing(null); setDialog(true); }} data-testid="report-new">New report</Button>} />
      <div className="d-flex flex-wrap gap-2 align-items-end mb-2" data-testid="report-filter">
        <SelectField name="filter-quality" label="quality" size="sm" value={quality} onChange={setQuality} options={pairs(REPORT_QUALITY)} className="mb-0" />
        <SelectField name="filter-status" label="status" size="sm" value={status} onChange={setStatus} options={pairs(REPORT_STATUS)} className="mb-0" />
        <SelectField name="filter-count_day" label="count_day" size="sm" value={countDay} onChange={setCountDay} options={REPORT_COUNT_DAYS.map((d) => ({ value: d, label: String(d) }))} className="mb-0" />
      </div>
      {isAdmin && <PartnerTotals />}
      <Nav variant="tabs" className="mb-2" activeKey={tab} onSelect={(k) => k && setTab(k)}>
        {Object.entries(REPORT_TABS).map(([n, label]) => (
          <Nav.Item key={n}>
            <Nav.Link eventKey={n} data-testid={`report-tab-${n}`}>{label} <span className="text-secondary small">({all.filter((r) => String(r.tab_number) === n && !hosted(r)).length})</span></Nav.Link>
          </Nav.Item>
        ))}
      </Nav>
      {list.loading && !list.data && <Loading />}
      {list.error && <ErrorAlert error={list.error} onRetry={list.reload} />}
      {list.data && !inTab.length && <EmptyState text="No reports in this tab for this filter" />}
      {inTab.map((r) => (
        <ReportCard key={`${r.Id}:${r.data_range_end === null ? 'x' : 'd'}`} report={r} merged={mergedInto(r.Id)} canEdit={canEdit} onEdit={() => { setEditing(r); setDialog(true); }} onChanged={changed} />
      ))}
      {meta.error && <div className="text-danger small">{errorText(meta.error)}</div>}
      <ReportEditDialog
        show={dialog}
        report={editing}
        meta={meta.data}
        reports={all}
        onHide={() => setDialog(false)}
        onSaved={() => { setDialog(false); list.reload(); }}
      />
    </div>
  );
}
