/** Pieces shared by the monitor pages: navigation, the range/quality filter, load values and tiles, Collect now. */
import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Nav from 'react-bootstrap/Nav';
import Table from 'react-bootstrap/Table';
import { Link, NavLink } from 'react-router-dom';
import {
  loadColour, MONITOR_CATS, MONITOR_QUALITIES, MONITOR_QUALITY_LABELS, MONITOR_RANGE_LABELS, MONITOR_RANGES, NULL_LOAD,
  type CollectResult, type MonitorQuality, type ServerLoadItem,
} from '../../../contracts/monitoring.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { serverEditPath, serverTypeName, SSH_REASON_TEXT } from '../../../contracts/srv.js';
import { useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { plural } from '../../kit/format.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';
import { QUALITY_PARAM, RANGE_PARAM } from './useMonitorUrl.js';

/** A load as text: two decimals, or the dash of 000 §9 for null. */
export const fmtLoad = (v: number | null | undefined): string => (v === null || v === undefined || Number.isNaN(v) ? NULL_LOAD : v.toFixed(2));

/** A load coloured by 000 §9 (above 10 green, above 20 amber, above 30 red; null a dash). */
export function LoadValue({ value, className }: { value: number | null | undefined; className?: string }) {
  const c = loadColour(value);
  return (
    <span className={`app-mon-load ${c ? `app-mon-load-${c}` : ''} ${className ?? ''}`} data-colour={c ?? 'none'}>
      {fmtLoad(value)}
    </span>
  );
}

/** /monitor and /monitor2 with the category tabs; the category and the filter's query string go along. */
export function MonitorNav({ base, search, cat }: { base: '/monitor' | '/monitor2'; search: string; cat: string | null }) {
  const q = search ? `?${search}` : '';
  const sub = cat ? `/${cat}` : '';
  const cats = [{ to: base, label: 'Overview' }, ...Object.keys(MONITOR_CATS).map((c) => ({ to: `${base}/${c}`, label: c }))];
  return (
    <div className="d-flex flex-wrap align-items-center gap-3 mb-3">
      <Nav as="nav" variant="pills" className="app-mon-views" aria-label="Monitor views">
        <Nav.Item><Nav.Link as={NavLink} to={`/monitor${sub}${q}`} active={base === '/monitor'}>Charts</Nav.Link></Nav.Item>
        <Nav.Item><Nav.Link as={NavLink} to={`/monitor2${sub}${q}`} active={base === '/monitor2'}>Node load</Nav.Link></Nav.Item>
      </Nav>
      <Nav as="nav" variant="tabs" className="app-mon-cats flex-grow-1" aria-label="Server category">
        {cats.map((c) => (
          <Nav.Item key={c.to}>
            <Nav.Link as={NavLink} to={`${c.to}${q}`} end>{c.label}</Nav.Link>
          </Nav.Item>
        ))}
      </Nav>
    </div>
  );
}

/** The chart filter of 000 §3 (range_minutes, quality); both live in the URL. */
export function MonitorFilter(props: {
  minutes: number;
  onMinutes: (m: number) => void;
  quality?: MonitorQuality;
  onQuality?: (q: MonitorQuality | undefined) => void;
  busy?: boolean;
}) {
  const { minutes, onMinutes, quality, onQuality, busy } = props;
  return (
    <Form className="app-card app-mon-filter d-flex flex-wrap align-items-end gap-3 mb-3" aria-label="Chart filter" onSubmit={(e) => e.preventDefault()}>
      <Form.Group controlId="mon-range">
        <Form.Label className="small fw-semibold mb-1">Range</Form.Label>
        <Form.Select size="sm" name={RANGE_PARAM} value={String(minutes)} onChange={(e) => onMinutes(Number(e.currentTarget.value))}>
          {MONITOR_RANGES.map((m) => <option key={m} value={m}>{MONITOR_RANGE_LABELS[m]}</option>)}
        </Form.Select>
      </Form.Group>
      {onQuality && (
        <Form.Group controlId="mon-quality">
          <Form.Label className="small fw-semibold mb-1">Quality</Form.Label>
          <Form.Select size="sm" name={QUALITY_PARAM} value={quality === undefined ? '' : String(quality)}
            onChange={(e) => onQuality(e.currentTarget.value === '' ? undefined : (Number(e.currentTarget.value) as MonitorQuality))}>
            <option value="">auto</option>
            {MONITOR_QUALITIES.map((q) => <option key={q} value={q}>{MONITOR_QUALITY_LABELS[q]}</option>)}
          </Form.Select>
        </Form.Group>
      )}
      {busy && <Loading inline text="Updating…" />}
    </Form>
  );
}

/** Server load tiles (000 §3 Server load item): name, type and the latest 1-minute load, coloured. */
export function LoadTiles({ items, loading, error, onRetry }: { items: ServerLoadItem[] | undefined; loading: boolean; error: unknown; onRetry: () => void }) {
  if (!items && loading) return <Loading text="Loading load…" />;
  return (
    <section aria-label="Server load" className="mb-3">
      <ErrorAlert error={error} onRetry={onRetry} />
      {items && items.length === 0 && <EmptyState title="No servers" text="No server of these types is on." />}
      {items && items.length > 0 && (
        <div className="app-mon-tiles">
          {items.map((s) => {
            const c = loadColour(s.cpu_la);
            return (
              <div key={s.Id} className={`app-mon-tile ${c ? `app-mon-tile-${c}` : ''}`} data-server={s.name} data-colour={c ?? 'none'} title={serverTypeName(s.type)}>
                <div className="app-mon-tile-name text-truncate">{s.name}</div>
                <div className="app-mon-tile-load" data-testid="cpu_la">{fmtLoad(s.cpu_la)}</div>
              </div>
            );
          })}
        </div>
      )}
    </section>
  );
}

/** Admins: run one collection round now (monitoring.collectNow) and show each server's result. */
export function CollectNow({ onDone }: { onDone?: () => void }) {
  const session = useSession();
  const { run, busy } = useAction();
  const [result, setResult] = useState<CollectResult[] | null>(null);
  if (!roleAllows(session?.role, Role.admin)) return null;
  const collect = async () => {
    const r = await run(() => rpc('monitoring.collectNow', {}), (rows) => (rows.length ? `Collected ${rows.filter((x) => x.ok).length} of ${plural(rows.length, 'server')} switched on` : 'No server is switched on'));
    if (r) {
      setResult(r);
      onDone?.();
    }
  };
  return (
    <>
      <Button size="sm" variant="outline-primary" onClick={() => void collect()} disabled={busy}>
        {busy ? 'Collecting…' : 'Collect now'}
      </Button>
      <AppModal show={result !== null} onHide={() => setResult(null)} title="Collection round"
        footer={<Button size="sm" variant="secondary" onClick={() => setResult(null)}>Close</Button>}>
        {result && result.length === 0 && (
          <EmptyState title="No servers">
            No server is switched on (status 1): add one or switch one on on the <Link to="/srv/srv_map" onClick={() => setResult(null)}>server map</Link>.
          </EmptyState>
        )}
        {result && result.length > 0 && (
          <Table size="sm" className="mb-0 app-mon-collect" aria-label="Collection results">
            <thead><tr><th>Server</th><th>Result</th><th className="text-end">Load</th></tr></thead>
            <tbody>
              {result.map((r) => (
                <tr key={r.Id} data-server={r.name}>
                  <td>{r.name}</td>
                  <td>
                    {r.ok ? <Badge bg="success">ok</Badge> : (
                      <div className="small" data-testid="collect-reason" data-reason={r.reason ?? ''}>
                        <Badge bg={r.reason === 'no_credentials' ? 'secondary' : 'danger'} className="me-2">{r.reason === 'no_credentials' ? 'not tried' : 'error'}</Badge>
                        {r.reason ? SSH_REASON_TEXT[r.reason] : r.error}
                        {r.reason && r.error && <div className="text-secondary text-break">{r.error}</div>}
                        <Link to={serverEditPath(r.Id)} onClick={() => setResult(null)}>Open the server dialog</Link>
                      </div>
                    )}
                  </td>
                  <td className="text-end"><LoadValue value={r.cpu_la ?? null} /></td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AppModal>
    </>
  );
}
