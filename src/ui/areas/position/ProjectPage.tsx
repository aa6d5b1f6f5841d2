/**
 * /position/project/{id} (001 §2 "Position tracking", §4 query dialog, §9; issue 23): the project's
 * search-query table (`p_`, 20 a page) with the current position, its change and a sparkline; the
 * `open` query parameter (a query id) opens the query's dialog with its position history chart (opens
 * and closes via the parameter); the project's top-stats chart (top 10 queries over 30 days); add
 * queries by pasting many lines with a category id; edit the project; check now.
 */
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Table from 'react-bootstrap/Table';
import { Link, useParams } from 'react-router-dom';
import {
  POSITION_ENGINE_LABELS, POSITION_PAGE, POSITION_QUERIES_MAX, POSITION_QUERY_DAYS, POSITION_SCHEDULE_LABELS, POSITION_TOP_DAYS, POSITION_TOP_N,
  PositionSaveQueriesArgs, posLabel, type PositionQueryRow,
} from '../../../contracts/position.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { ChangeBadge, NotConfiguredNote, PlaceCell, ProjectDialog, Sparkline } from './parts.js';
import { regionLabel } from './ProjectsPage.js';

const HistoryChart = lazy(() => import('./Charts.js').then((m) => ({ default: m.HistoryChart })));
const TopChart = lazy(() => import('./Charts.js').then((m) => ({ default: m.TopChart })));

export default function ProjectPage() {
  const id = Number(useParams().id);
  const [page, setPage] = usePageParam();
  const [open, setOpen] = useQueryParam('open');
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const args = useMemo(() => ({ id_project: id, p_: page, limit: POSITION_PAGE }), [id, page]);
  const q = useRpc('position.getQueries', args, { enabled: id > 0 });
  const top = useRpc('position.getTopStats', { id_project: id }, { enabled: id > 0 });
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const { run, busy } = useAction();
  const reload = useCallback(() => { q.reload(); top.reload(); }, [q, top]);

  if (!(id > 0)) return <><PageTitle title="Position project" /><EmptyState text="Project not found" /></>;
  if (q.error && !q.data) return <><PageTitle title="Position project" /><ErrorAlert error={q.error} onRetry={q.reload} /><Link to="/position/projects">Projects</Link></>;
  if (!q.data) return <Loading />;
  const p = q.data.project;

  const checkNow = () => run(() => rpc('position.checkNow', { id_project: id }, { timeoutMs: 15 * 60_000 }), (r) => ('checked' in r ? `Checked ${r.checked}, failed ${r.failed}${r.queued ? `; ${r.queued} more queued for the check job` : ''}` : 'Not configured')).then(reload);

  const columns: Column<PositionQueryRow>[] = [
    { key: 'query_text', title: 'Query', render: (r) => <Link to={`?${new URLSearchParams({ ...(page > 1 ? { p_: String(page) } : {}), open: String(r.id_query) })}`} data-testid="open-query">{r.query_text}</Link> },
    { key: 'cat_id', title: 'Category', width: 80 },
    { key: 'pos', title: 'Position', width: 150, render: (r) => <PlaceCell point={r.current} stale={r.stale} staleAt={r.stale_at} error={r.error} checked={r.checked} /> },
    { key: 'change', title: 'Change', width: 70, render: (r) => <ChangeBadge change={r.change} /> },
    { key: 'spark', title: 'History', width: 110, render: (r) => <Sparkline points={r.pos.slice(0, 30)} /> },
    { key: 'checked', title: 'Checked', width: 160, render: (r) => <span className="small text-secondary">{fmtDateTime(r.checked)}</span> },
    ...(canEdit ? [{
      key: 'actions', title: '', width: 90,
      render: (r: PositionQueryRow) => <ConfirmButton size="sm" variant="outline-danger" text={`Remove the query '${r.query_text}' and its history?`} onConfirm={() => run(() => rpc('position.removeQuery', { id_query: r.id_query }), (x) => x.message).then(reload)} />,
    }] : []),
  ];

  return (
    <>
      <PageTitle
        title={p.name}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/position/projects">Projects</Link>
          {canEdit && <Button size="sm" variant="outline-secondary" onClick={() => setEditing(true)}>Edit</Button>}
          {canEdit && <Button size="sm" variant="outline-primary" onClick={() => setAdding(true)} data-testid="queries-add">Add queries</Button>}
          {canEdit && <Button size="sm" onClick={() => void checkNow()} disabled={busy || !q.data.configured} data-testid="check-now">Check now</Button>}
        </>}
      >
        <div className="small text-secondary" data-testid="project-info">
          {p.domain} · {POSITION_ENGINE_LABELS[p.engine] ?? p.engine} · {regionLabel(p.region)} · {POSITION_SCHEDULE_LABELS[p.schedule_hours] ?? `${p.schedule_hours} h`} · top {p.depth} · {p.queries} queries · average position {p.avg_pos === null ? '-' : fmtNumber(p.avg_pos, 1)}
        </div>
      </PageTitle>
      {!q.data.configured && <NotConfiguredNote />}
      <Card className="mb-3">
        <Card.Header className="py-1 small">Top {POSITION_TOP_N} queries, last {POSITION_TOP_DAYS} days</Card.Header>
        <Card.Body className="p-2">
          {top.error && <ErrorAlert error={top.error} onRetry={top.reload} />}
          {top.data && !top.data.series.length && <EmptyState text="No positions in the top yet" />}
          {top.data && top.data.series.length > 0 && <Suspense fallback={<Loading />}><TopChart series={top.data.series} /></Suspense>}
        </Card.Body>
      </Card>
      <div data-testid="queries-table">
        <PaginatedTable
          columns={columns}
          rows={q.data.list}
          rowKey={(r) => r.id_query}
          count={q.data.count}
          limit={q.data.limit}
          page={page}
          onPage={setPage}
          loading={q.loading}
          error={q.error}
          onRetry={q.reload}
          rowClassName={(r) => (r.stale ? 'table-warning' : undefined)}
          empty={<EmptyState text="No queries yet" />}
        />
      </div>
      {open && <QueryDialog id_project={id} id_query={Number(open)} onHide={() => setOpen('', { keepPage: true })} />}
      <ProjectDialog show={editing} project={p} onHide={() => setEditing(false)} onSaved={() => { setEditing(false); reload(); }} />
      <AddQueriesDialog show={adding} id_project={id} onHide={() => setAdding(false)} onSaved={() => { setAdding(false); reload(); }} />
    </>
  );
}

/** The query dialog (001 §4: opens and closes via the `open` parameter): the position history chart and table. */
function QueryDialog({ id_project, id_query, onHide }: { id_project: number; id_query: number; onHide: () => void }) {
  const r = useRpc('position.getQueries', { id_project, id_query: id_query > 0 ? id_query : 0, days: POSITION_QUERY_DAYS }, { enabled: id_query > 0 });
  const row = r.data?.list[0];
  return (
    <AppModal show onHide={onHide} size="full" title={row ? `Query: ${row.query_text}` : 'Query'} className="app-position-query">
      {!(id_query > 0) && <EmptyState text="Query not found" />}
      {r.error && <ErrorAlert error={r.error} onRetry={r.reload} />}
      {r.loading && !row && <Loading />}
      {row && (
        <div data-testid="query-dialog">
          <div className="mb-2 small">
            Current position: <PlaceCell point={row.current} stale={row.stale} staleAt={row.stale_at} error={row.error} checked={row.checked} /> · change <ChangeBadge change={row.change} /> · category {row.cat_id} · checked {fmtDateTime(row.checked) || 'never'}
            {row.stale && <div className="text-warning" data-state="stale-detail">Last check failed {fmtDateTime(row.stale_at)}: {row.error}</div>}
          </div>
          {row.pos.length ? <Suspense fallback={<Loading />}><HistoryChart name={row.query_text} points={row.pos} /></Suspense> : <EmptyState text="Not checked yet" />}
          {row.pos.length > 0 && (
            <div style={{ maxHeight: 300, overflowY: 'auto' }}>
              <Table size="sm" className="mt-2" data-testid="query-history">
                <thead><tr><th>Date</th><th>Position</th><th>URL</th></tr></thead>
                <tbody>{row.pos.map((p) => <tr key={p.date}><td>{p.date}</td><td>{posLabel(p)}</td><td className="small text-break">{p.url ?? ''}</td></tr>)}</tbody>
              </Table>
            </div>
          )}
        </div>
      )}
    </AppModal>
  );
}

/** Add queries: paste many lines (one query each) with a category id. */
function AddQueriesDialog({ show, id_project, onHide, onSaved }: { show: boolean; id_project: number; onHide: () => void; onSaved: () => void }) {
  const [text, setText] = useState('');
  const [cat, setCat] = useState('0');
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const lines = text.split(/\r?\n/).filter((l) => l.trim()).length;
  const save = async () => {
    const body = { id_project, queries: text, cat_id: cat };
    const bad = validate(PositionSaveQueriesArgs, body);
    if (bad) return errs.set({ queries: bad.queries ?? bad._ ?? '', ...(bad.cat_id ? { cat_id: bad.cat_id } : {}) });
    const r = await run(() => rpc('position.saveQueries', body), (x) => `${x.message} Added ${x.added}, already there ${x.skipped}`, (e) => errs.take(e));
    if (r) { setText(''); onSaved(); }
  };
  return (
    <AppModal show={show} onHide={onHide} staticBackdrop title="Add queries"
      footer={<><Button variant="secondary" onClick={onHide}>Cancel</Button><Button onClick={() => void save()} disabled={busy || !lines} data-testid="queries-save">Add {lines || ''}</Button></>}>
      <TextField name="queries" label="Queries, one per line" rows={10} value={text} onChange={(v) => { setText(v); errs.clear('queries'); }} error={errs.of('queries')} help={`${lines} lines; at most ${POSITION_QUERIES_MAX}; queries the project has are skipped`} autoFocus />
      <TextField name="cat_id" label="Category id" value={cat} onChange={(v) => { setCat(v); errs.clear('cat_id'); }} error={errs.of('cat_id')} />
    </AppModal>
  );
}
