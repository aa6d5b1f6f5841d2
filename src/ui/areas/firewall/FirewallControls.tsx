/**
 * The firewall worker's on/off control with its last run time (000 §2, §3 "Firewall worker status"),
 * live over the `firewall.worker` event; 'Run now' with each proxy's result; 'Sync now' with a dry-run
 * preview of what each proxy would get (added / removed addresses) before anything changes.
 */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import type { WorkerProxyResult, WorkerStatusEvent } from '../../../contracts/firewall.js';
import type { SyncResult } from '../../../contracts/firewall-rules.js';
import { serverEditPath } from '../../../contracts/srv.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { AppModal } from '../../kit/AppModal.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { LONG_CALL_MS } from './api.js';
import { runSyncAndNotify } from './sync.js';

function AddressList({ list }: { list: string[] }) {
  if (!list.length) return <span className="text-secondary">none</span>;
  return (
    <details>
      <summary>{plural(list.length, 'address', 'addresses')}</summary>
      <div className="app-mono small app-fw-addr-list">{list.join('\n')}</div>
    </details>
  );
}

function SyncTable({ r }: { r: SyncResult }) {
  return (
    <Table size="sm" className="mb-2 small" data-testid="sync-nodes">
      <thead><tr><th>Proxy</th><th>Result</th><th>Added</th><th>Removed</th></tr></thead>
      <tbody>
        {r.nodes.map((n) => (
          <tr key={n.Id} data-node={n.name} className={n.ok ? undefined : 'table-danger'}>
            <td className="fw-semibold">{n.name}</td>
            <td>{n.ok ? <Badge bg="success">ok</Badge> : <><span className="text-danger">{n.error ?? 'failed'}</span> <Link to={serverEditPath(n.Id)}>Server dialog</Link></>}</td>
            <td><AddressList list={n.added} /></td>
            <td><AddressList list={n.removed} /></td>
          </tr>
        ))}
        {!r.nodes.length && (
          <tr><td colSpan={4} className="text-secondary" data-testid="sync-no-proxy">
            No proxy to sync: a proxy is a server of type 1 switched on. Add one or switch one on on the <Link to="/srv/srv_map">server map</Link>.
          </td></tr>
        )}
      </tbody>
    </Table>
  );
}

/** 'Sync now': a dry run first (what would change, per proxy), then Apply. */
function SyncDialog({ show, onHide }: { show: boolean; onHide: () => void }) {
  const preview = useRpc('srv/action.syncIptableRules', { dry_run: true }, { enabled: show });
  const [applied, setApplied] = useState<SyncResult | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => {
    if (busy) return;
    setApplied(null);
    onHide();
  };
  const apply = async () => {
    setBusy(true);
    const r = await runSyncAndNotify();
    setBusy(false);
    if (r) setApplied(r);
  };
  const shown = applied ?? (preview.loading ? undefined : preview.data);
  return (
    <AppModal
      show={show}
      onHide={close}
      title={applied ? 'Iptables sync' : 'Iptables sync: preview'}
      footer={
        <>
          <Button size="sm" variant="secondary" onClick={close} disabled={busy}>{applied ? 'Close' : 'Cencel'}</Button>
          {!applied && (
            <Button size="sm" variant="primary" onClick={() => void apply()} disabled={busy || !preview.data}>
              {busy && <Spinner animation="border" size="sm" className="me-1" />}Apply
            </Button>
          )}
        </>
      }
    >
      {!applied && <p className="small text-secondary mb-2">Dry run: what each proxy would get. Nothing has changed yet.</p>}
      {preview.error && !applied && <ErrorAlert error={preview.error} onRetry={() => void preview.reload()} />}
      {!shown && !preview.error && <Loading text="Asking every proxy…" />}
      {shown && (
        <>
          <div className="small mb-2">Deny set: {plural(shown.total, 'address', 'addresses')} per proxy.</div>
          <SyncTable r={shown} />
          {shown.skipped.length > 0 && (
            <div className="alert alert-warning py-2 small mb-0" data-testid="sync-skipped">
              Left out (allowlisted): {shown.skipped.map((s) => `${s.value} (${s.reason})`).join('; ')}
            </div>
          )}
        </>
      )}
    </AppModal>
  );
}

function RunResults({ results, onHide }: { results: WorkerProxyResult[] | null; onHide: () => void }) {
  return (
    <AppModal show={!!results} onHide={onHide} title="Firewall worker run" footer={<Button size="sm" variant="secondary" onClick={onHide}>Close</Button>}>
      {results && (
        <Table size="sm" className="small mb-0" data-testid="worker-results">
          <thead><tr><th>Proxy</th><th>Lines</th><th>Bad lines</th><th>Result</th></tr></thead>
          <tbody>
            {results.map((r) => (
              <tr key={r.Id} className={r.error ? 'table-danger' : undefined}>
                <td>{r.name ?? `#${r.Id}`}</td><td>{r.lines}</td><td>{r.bad_lines}</td>
                <td>{r.error ? <><span className="text-danger">{r.error}</span> <Link to={serverEditPath(r.Id)} onClick={onHide}>Server dialog</Link></> : r.warning ? <span className="text-warning">{r.warning}</span> : 'ok'}</td>
              </tr>
            ))}
            {!results.length && (
              <tr><td colSpan={4} className="text-secondary" data-testid="worker-no-proxy">
                No proxy reads its log: the worker reads servers of type 1 that are switched on with <em>Read nginx log (firewall)</em> checked
                (read_nginx_log_firewall) and SSH credentials. Set them in the server dialog on the <Link to="/srv/srv_map" onClick={onHide}>server map</Link>.
              </td></tr>
            )}
          </tbody>
        </Table>
      )}
    </AppModal>
  );
}

export function FirewallControls() {
  const status = useRpc('firewall.getWorkerStatus', undefined);
  const [running, setRunning] = useState(false);
  const [results, setResults] = useState<WorkerProxyResult[] | null>(null);
  const [sync, setSync] = useState(false);
  const { run, busy } = useAction();
  useSocketEvent('firewall.worker', (e: WorkerStatusEvent) => {
    status.setData({ status: e.status, last_worker_time: e.last_worker_time });
    setRunning(e.running);
  });
  const setSwitch = async (on: boolean) => {
    const r = await run(() => rpc('firewall.setWorkerStatus', { status: on ? 1 : 0 }), on ? 'Firewall worker is on' : 'Firewall worker is off');
    if (r) status.setData(r);
  };
  const runNow = async () => {
    setRunning(true);
    try {
      const r = await rpc('firewall.runWorker', undefined, { timeoutMs: LONG_CALL_MS });
      setResults(r);
      void status.reload();
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setRunning(false);
    }
  };
  const s = status.data;
  return (
    <div className="app-card app-fw-controls d-flex flex-wrap align-items-center gap-2 mb-3 py-2" data-testid="fw-controls">
      <Form.Check
        type="switch"
        id="fw-worker"
        className="mb-0"
        label={s ? `Firewall worker ${s.status ? 'on' : 'off'}` : 'Firewall worker'}
        checked={s?.status === 1}
        disabled={!s || busy}
        onChange={(e) => void setSwitch(e.currentTarget.checked)}
      />
      <span className="small text-secondary" data-testid="fw-last-run">
        Last run: {s?.last_worker_time ? fmtDateTime(s.last_worker_time) : 'never'}
        {running && <Spinner animation="border" size="sm" className="ms-2" role="status" aria-label="Worker running" />}
      </span>
      {status.error && <span className="small text-danger">{errorText(status.error)}</span>}
      <div className="ms-auto d-flex gap-2">
        <Button size="sm" variant="outline-secondary" onClick={() => void runNow()} disabled={running}>Run now</Button>
        <Button size="sm" variant="outline-primary" onClick={() => setSync(true)}>Sync now</Button>
      </div>
      <SyncDialog show={sync} onHide={() => setSync(false)} />
      <RunResults results={results} onHide={() => setResults(null)} />
    </div>
  );
}
