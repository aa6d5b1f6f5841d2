import { useEffect, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link, useSearchParams } from 'react-router-dom';
import type { AuditRow } from '../../../contracts/auth.js';
import { AUDIT_PAGE_SIZE, PAGE_PARAM } from '../../../contracts/constants.js';
import { useRpc } from '../../api/hooks.js';
import type { RpcMethods } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { DateInput, isDayText } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { ErrorAlert, Loading } from '../../kit/states.js';

/** The URL's filter parameters (they survive a reload and can be shared); `id` opens one entry. */
const FILTERS = ['method', 'login', 'outcome', 'from', 'to'] as const;
type Filter = (typeof FILTERS)[number];
const DETAIL = 'id';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/**
 * A day of the date filter ('YYYY-MM-DD', the operator's local calendar) as the instant the server
 * compares with: its first (from) or last (to) millisecond in local time, sent as ISO with a zone.
 */
export function dayBound(day: string, end: boolean): string | undefined {
  if (!DAY.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  const t = end ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d, 0, 0, 0, 0);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/** The arguments as recorded, pretty-printed when they are JSON (a shortened record is shown as it is). */
/** The terminal recording a terminal audit row links to (node_control.*: args.recording), or null. */
function recordingOf(r: AuditRow): number | null {
  if (!r.method.startsWith('node_control.') || !r.args) return null;
  try {
    const v = (JSON.parse(r.args) as { recording?: unknown }).recording;
    return typeof v === 'number' && v > 0 ? v : null;
  } catch {
    return null;
  }
}

function prettyArgs(args: string): { text: string; json: boolean } {
  if (!args) return { text: '', json: false };
  try {
    return { text: JSON.stringify(JSON.parse(args), null, 2), json: true };
  } catch {
    return { text: args, json: false };
  }
}

const none = <span className="text-secondary">—</span>;

/** The detail of one entry (`?id=`): every field, the object, the whole masked arguments. */
function AuditDetail({ Id, onHide }: { Id: number | null; onHide: () => void }) {
  const one = useRpc('audit.get', { Id: Id ?? 0 }, { enabled: Id !== null });
  const r = one.data && one.data.Id === Id ? one.data : undefined;
  const args = r ? prettyArgs(r.args) : null;
  return (
    <AppModal show={Id !== null} onHide={onHide} title={`Audit entry #${Id ?? ''}`} footer={<Button variant="secondary" onClick={onHide}>Close</Button>}>
      {one.error && <ErrorAlert error={one.error} onRetry={() => void one.reload()} />}
      {!r && !one.error && <Loading />}
      {r && args && (
        <div data-testid="audit-detail">
          <dl className="row mb-2 app-audit-dl">
            <dt className="col-sm-3">Time</dt>
            <dd className="col-sm-9">{fmtDateTime(r.ts)} <span className="text-secondary small">({r.ts})</span></dd>
            <dt className="col-sm-3">Login</dt>
            <dd className="col-sm-9">{r.login ?? none}{r.uid ? <span className="text-secondary small"> · uid {r.uid}</span> : null}</dd>
            <dt className="col-sm-3">Method</dt>
            <dd className="col-sm-9 app-mono">{r.method}</dd>
            <dt className="col-sm-3">Object</dt>
            <dd className="col-sm-9" data-testid="audit-target">{r.target ?? none}</dd>
            <dt className="col-sm-3">Outcome</dt>
            <dd className="col-sm-9"><Badge bg={r.outcome === 'ok' ? 'success' : 'danger'}>{r.outcome}</Badge></dd>
            <dt className="col-sm-3">Message</dt>
            <dd className="col-sm-9 text-break">{r.message ?? none}</dd>
            <dt className="col-sm-3">IP</dt>
            <dd className="col-sm-9 app-mono">{r.ip ?? none}</dd>
            <dt className="col-sm-3">Duration</dt>
            <dd className="col-sm-9">{r.duration_ms} ms</dd>
            {recordingOf(r) && (
              <>
                <dt className="col-sm-3">Recording</dt>
                <dd className="col-sm-9"><Link to={`/srv/terminal/recordings/${recordingOf(r)}`}>Replay the terminal session #{recordingOf(r)}</Link></dd>
              </>
            )}
          </dl>
          <div className="small fw-semibold mb-1">Arguments{!args.json && args.text && <span className="text-secondary fw-normal"> (shortened when recorded)</span>}</div>
          {args.text ? (
            <pre className="app-mono bg-light border rounded p-2 mb-0" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: '50vh' }} data-testid="audit-args">{args.text}</pre>
          ) : (
            <div className="text-secondary small">none</div>
          )}
        </div>
      )}
    </AppModal>
  );
}

/**
 * Audit log (admin): paged by p_, filtered by method substring, login, outcome and a date range (all
 * kept in the URL); a row opens its detail (`?id=`, a link that can be shared). The table fits 1280 px:
 * fixed columns, long cells clipped (the detail shows them whole).
 */
export default function AuditPage() {
  const [page] = usePageParam();
  const [params, setParams] = useSearchParams();
  const value = (k: Filter) => params.get(k) ?? '';
  const [draft, setDraft] = useState<Record<Filter, string>>(() => Object.fromEntries(FILTERS.map((k) => [k, value(k)])) as Record<Filter, string>);
  const urlKey = FILTERS.map((k) => value(k)).join('\u0000');
  // The URL is the truth: back/forward and reloads refill the form.
  useEffect(() => setDraft(Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Record<Filter, string>), [urlKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const [rangeError, setRangeError] = useState('');

  const method = value('method');
  const login = value('login');
  const outcome = value('outcome');
  const from = dayBound(value('from'), false);
  const to = dayBound(value('to'), true);
  const args: RpcMethods['audit.getList']['args'] = {
    page,
    limit: AUDIT_PAGE_SIZE,
    ...(method ? { method } : {}),
    ...(login ? { login } : {}),
    ...(outcome === 'ok' || outcome === 'error' ? { outcome } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
  const list = useRpc('audit.getList', args);

  /** One URL update for every filter given (each change starts again at page 1). */
  const setFilters = (patch: Partial<Record<Filter, string>>) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(patch)) {
        if (v?.trim()) next.set(k, v.trim());
        else next.delete(k);
      }
      next.delete(PAGE_PARAM);
      return next;
    });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (!isDayText(draft.from.trim()) || !isDayText(draft.to.trim())) return setRangeError('Write days as yyyy-mm-dd');
    if (draft.from && draft.to && draft.from > draft.to) return setRangeError('The end of the range is before its start');
    setRangeError('');
    setFilters(draft);
  };
  const reset = () => {
    setRangeError('');
    setFilters(Object.fromEntries(FILTERS.map((k) => [k, ''])));
  };

  const idParam = params.get(DETAIL) ?? '';
  const detailId = /^\d{1,15}$/.test(idParam) && Number(idParam) > 0 ? Number(idParam) : null;
  const detailSearch = (Id: number) => {
    const next = new URLSearchParams(params);
    next.set(DETAIL, String(Id));
    return `?${next}`;
  };
  const openDetail = (r: AuditRow) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    next.set(DETAIL, String(r.Id));
    return next;
  });
  const closeDetail = () => setParams((prev) => {
    const next = new URLSearchParams(prev);
    next.delete(DETAIL);
    return next;
  });

  const columns: Column<AuditRow>[] = [
    {
      key: 'ts', title: 'Time', width: 166,
      render: (r) => <Link to={{ search: detailSearch(r.Id) }} className="text-nowrap" title="Open the entry">{fmtDateTime(r.ts)}</Link>,
    },
    { key: 'login', title: 'Login', width: 88, render: (r) => <span title={r.login ?? ''}>{r.login ?? none}</span> },
    { key: 'method', title: 'Method', width: 150, render: (r) => <span className="app-mono" title={r.method}>{r.method}</span> },
    { key: 'target', title: 'Object', width: 150, render: (r) => (r.target ? <span title={r.target}>{r.target}</span> : none) },
    { key: 'args', title: 'Args', render: (r) => <div className="app-mono app-cell-clip">{r.args}</div> },
    {
      key: 'outcome', title: 'Outcome',
      render: (r) => (
        <div className="app-cell-clip">
          <Badge bg={r.outcome === 'ok' ? 'success' : 'danger'}>{r.outcome}</Badge>
          {r.message && <span className="ms-1">{r.message}</span>}
        </div>
      ),
    },
    { key: 'ip', title: 'IP', width: 100, render: (r) => <span className="app-mono" title={r.ip ?? ''}>{r.ip}</span> },
    { key: 'duration_ms', title: 'ms', width: 52, className: 'text-end', render: (r) => r.duration_ms },
  ];

  const field = (k: Filter) => ({
    value: draft[k],
    onChange: (e: { currentTarget: { value: string } }) => {
      const v = e.currentTarget.value; // read now: the event's target is gone when the updater runs
      setDraft((d) => ({ ...d, [k]: v }));
    },
  });

  return (
    <>
      <PageTitle
        title="Audit"
        actions={
          <Button size="sm" variant="outline-primary" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </Button>
        }
      />
      <Form onSubmit={apply} className="app-card mb-3" aria-label="Audit filter" noValidate>
        <Row className="g-2 align-items-end">
          <Col xs={12} md={4} xl={3}>
            <Form.Label htmlFor="flt-method" className="small fw-semibold mb-1">Method contains</Form.Label>
            <Form.Control id="flt-method" size="sm" {...field('method')} placeholder="user.save, POST /api/…" />
          </Col>
          <Col xs={6} md={4} xl={2}>
            <Form.Label htmlFor="flt-login" className="small fw-semibold mb-1">Login</Form.Label>
            <Form.Control id="flt-login" size="sm" {...field('login')} />
          </Col>
          <Col xs={6} md={4} xl={1}>
            <Form.Label htmlFor="flt-outcome" className="small fw-semibold mb-1">Outcome</Form.Label>
            <Form.Select id="flt-outcome" size="sm" value={outcome} onChange={(e) => setFilters({ outcome: e.currentTarget.value })}>
              <option value="">all</option>
              <option value="ok">ok</option>
              <option value="error">error</option>
            </Form.Select>
          </Col>
          <Col xs={6} md={4} xl={2}>
            <Form.Label htmlFor="flt-from" className="small fw-semibold mb-1">From</Form.Label>
            <DateInput id="flt-from" size="sm" value={draft.from} onChange={(v) => setDraft((d) => ({ ...d, from: v }))} />
          </Col>
          <Col xs={6} md={4} xl={2}>
            <Form.Label htmlFor="flt-to" className="small fw-semibold mb-1">To</Form.Label>
            <DateInput id="flt-to" size="sm" value={draft.to} onChange={(v) => setDraft((d) => ({ ...d, to: v }))} isInvalid={!!rangeError} />
          </Col>
          <Col xs={12} md={4} xl={2} className="d-flex gap-2">
            <Button type="submit" size="sm">Apply</Button>
            <Button type="button" size="sm" variant="outline-secondary" onClick={reset}>Reset</Button>
          </Col>
        </Row>
        {rangeError && <div className="text-danger small mt-1" role="alert">{rangeError}</div>}
      </Form>
      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={list.data?.list}
          rowKey={(r) => r.Id}
          count={list.data?.count ?? 0}
          limit={AUDIT_PAGE_SIZE}
          loading={list.loading}
          error={list.error}
          onRetry={() => void list.reload()}
          rowClassName={(r) => (r.outcome === 'error' ? 'table-danger' : undefined)}
          onRowClick={openDetail}
          fixed
          minWidth={900}
        />
      </div>
      <AuditDetail Id={detailId} onHide={closeDetail} />
    </>
  );
}
