import { useCallback, useEffect, useRef, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Collapse from 'react-bootstrap/Collapse';
import Table from 'react-bootstrap/Table';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, fmtNumber, plural } from '../../kit/format.js';
import { antStepDescription } from '../../../contracts/ant.js';
import { notify } from '../../kit/notify.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { AntLogModal } from './AntLogModal.js';
import { antCommand } from './api.js';
import { ANT_LABELS, ANT_SMOOTH_START_MS, canReload, canStart, canStop, USED_PROXY_OPTIONS, type AntConnection, type UsedProxyStatus } from './model.js';
import type { Live } from './useLive.js';

/**
 * Smooth start (001 §4): starts the stopped, connected ants one at a time, one every 2 s, until none
 * remains stopped; an ant whose start failed is not tried again in the same run (its error is shown),
 * so the run ends. Cancel stops it before the next start.
 */
export function useSmoothStart(current: () => AntConnection[], onStarted?: () => void) {
  const [running, setRunning] = useState(false);
  const run = useRef<{ cancelled: boolean; wake?: () => void } | null>(null);
  const currentRef = useRef(current);
  currentRef.current = current;

  const cancel = useCallback(() => {
    if (!run.current) return;
    run.current.cancelled = true;
    run.current.wake?.();
  }, []);
  useEffect(() => cancel, [cancel]);

  const start = useCallback(async () => {
    if (run.current) return;
    const me: { cancelled: boolean; wake?: () => void } = { cancelled: false };
    run.current = me;
    setRunning(true);
    const tried = new Set<string>();
    let started = 0;
    try {
      for (;;) {
        const next = currentRef.current().find((a) => canStart(a) && !tried.has(a.id));
        if (!next || me.cancelled) break;
        tried.add(next.id);
        if (await antCommand('ant_start', { id: next.id }, `Start ${next.name || next.id}`)) started++;
        onStarted?.();
        if (me.cancelled) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ANT_SMOOTH_START_MS);
          me.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
      notify.info(me.cancelled ? `${ANT_LABELS.smoothStart}: cancelled after ${plural(started, 'ant')} started` : `${ANT_LABELS.smoothStart}: ${plural(started, 'ant')} started`);
    } finally {
      run.current = null;
      setRunning(false);
    }
  }, []);

  return { running, start, cancel };
}

const when = (ms: number) => (ms ? fmtDateTime(ms) : '');

function StateBadge({ a }: { a: AntConnection }) {
  if (a.isDisconnect) return <Badge bg="secondary">disconnected</Badge>;
  if (a.status === 'moder') return <Badge bg="info">moder</Badge>;
  return a.isStop ? <Badge bg="warning" text="dark">stop</Badge> : <Badge bg={a.status === 'work' ? 'success' : 'primary'}>{a.status}</Badge>;
}

function Row({ a, onLog, busy, act }: { a: AntConnection; onLog: (a: AntConnection) => void; busy: boolean; act: (m: 'ant_start' | 'ant_stop' | 'ant_reload', a: AntConnection, label: string) => void }) {
  const task = a.task;
  return (
    <tr data-ant={a.name || a.id} data-testid={`ant-row-${a.id}`} data-stopped={a.isStop ? '1' : '0'}>
      <td className="font-monospace small text-nowrap" title={a.id}>{a.id.length > 10 ? `${a.id.slice(0, 8)}…` : a.id}</td>
      <td>{a.name}</td>
      <td className="small">{a.host}</td>
      <td className="small">{a.worker}</td>
      <td><StateBadge a={a} /></td>
      <td className="small text-nowrap">{when(a.time)}</td>
      <td className="small text-nowrap">{when(a.updateList)}</td>
      <td className="text-end">{fmtNumber(a.count_send)}</td>
      <td className="text-end text-nowrap">{a.avg_time_work ? `${fmtNumber(a.avg_time_work)} ms` : ''}</td>
      <td className="small font-monospace">{a.proxy ?? ''}</td>
      <td className="small text-break" data-testid="ant-task">{task ? `#${task.Id} ${task.step} (${antStepDescription(task.step)}): ${task.item}` : ''}</td>
      <td className="text-nowrap text-end">
        {canStart(a) && <Button size="sm" variant="outline-success" className="me-1" disabled={busy} aria-label={`Start ${a.name || a.id}`} title="Start" onClick={() => act('ant_start', a, 'Start')}>▶</Button>}
        {canStop(a) && <Button size="sm" variant="outline-danger" className="me-1" disabled={busy} aria-label={`Stop ${a.name || a.id}`} title="Stop" onClick={() => act('ant_stop', a, 'Stop')}>■</Button>}
        {canReload(a) && <Button size="sm" variant="outline-secondary" className="me-1" disabled={busy} aria-label={`Reload ${a.name || a.id}`} title="Reload" onClick={() => act('ant_reload', a, 'Reload')}>↻</Button>}
        {a.status !== 'moder' && <Button size="sm" variant="outline-dark" aria-label={`Log ${a.name || a.id}`} title="Log" onClick={() => onLog(a)}>Log</Button>}
      </td>
    </tr>
  );
}

const HEAD = ['id', 'name', 'host', 'worker', 'status', 'time', 'updateList', 'count_send', 'avg_time_work', 'proxy', 'task', ''];

/**
 * Connections (001 §2): the connected ants (kept live, refreshed at most once a second) with their
 * buttons; Stop all, Smooth start, Restart all (confirmed), the proxy-usage select; the disconnected
 * ants in a collapsible list of their own (not updated); the log modal.
 */
export function AntConnections({ live, list, usedProxy, setUsedProxy }: {
  live: Live<AntConnection[]>; list: AntConnection[]; usedProxy: UsedProxyStatus | undefined; setUsedProxy: (v: UsedProxyStatus) => void;
}) {
  const [logOf, setLogOf] = useState<AntConnection | null>(null);
  const [busyIds, setBusyIds] = useState<Set<string>>(new Set());
  const [showDisconnected, setShowDisconnected] = useState(false);
  const all = list;
  const connected = all.filter((a) => !a.isDisconnect);
  const disconnected = all.filter((a) => a.isDisconnect);
  const allRef = useRef(all);
  allRef.current = all;
  const smooth = useSmoothStart(() => allRef.current, live.reloadSoon);

  const act = (message: 'ant_start' | 'ant_stop' | 'ant_reload', a: AntConnection, label: string) => {
    setBusyIds((s) => new Set(s).add(a.id));
    void antCommand(message, { id: a.id }, `${label} ${a.name || a.id}`).then(() => {
      setBusyIds((s) => {
        const n = new Set(s);
        n.delete(a.id);
        return n;
      });
      live.reloadSoon();
    });
  };

  return (
    <Card className="mb-3" data-testid="ant-connections">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <span className="fw-semibold me-auto">Connections <Badge bg="secondary" data-testid="ant-connected-count">{connected.length}</Badge></span>
        <label className="small d-flex align-items-center gap-1">
          Proxy
          <select className="form-select form-select-sm w-auto" aria-label="Proxy usage" value={usedProxy ?? ''} disabled={usedProxy === undefined}
            onChange={(e) => setUsedProxy(Number(e.currentTarget.value) as UsedProxyStatus)}>
            {usedProxy === undefined && <option value="">…</option>}
            {USED_PROXY_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
        </label>
        <Button size="sm" variant="outline-danger" onClick={() => void antCommand('ant_stop_all', undefined, ANT_LABELS.stopAll).then(live.reloadSoon)}>{ANT_LABELS.stopAll}</Button>
        <Button size="sm" variant={smooth.running ? 'warning' : 'outline-success'} onClick={() => (smooth.running ? smooth.cancel() : void smooth.start())}
          title={smooth.running ? 'Press to cancel' : undefined} data-testid="ant-smooth-start">
          {smooth.running ? `${ANT_LABELS.smoothStart} ${ANT_LABELS.running}` : ANT_LABELS.smoothStart}
        </Button>
        <ConfirmButton label={ANT_LABELS.restartAll} text="Restart all ants?" variant="outline-warning" confirmVariant="warning"
          onConfirm={() => antCommand('ant_restart_all', undefined, ANT_LABELS.restartAll).then(live.reloadSoon)} />
        <Button size="sm" variant="outline-secondary" onClick={() => void live.reload()} disabled={live.loading} aria-label="Refresh connections">↻</Button>
      </Card.Header>
      <Card.Body className="p-0">
        {live.error && <ErrorAlert error={live.error} onRetry={() => void live.reload()} className="m-2" />}
        {!live.data && live.loading ? <Loading /> : connected.length === 0 ? <EmptyState text="No ant is connected." /> : (
          <div className="table-responsive">
            <Table size="sm" hover className="align-middle mb-0 app-ant-connections">
              <thead><tr>{HEAD.map((h) => <th key={h} className="small">{h}</th>)}</tr></thead>
              <tbody>{connected.map((a) => <Row key={a.id} a={a} onLog={setLogOf} busy={busyIds.has(a.id)} act={act} />)}</tbody>
            </Table>
          </div>
        )}
        {disconnected.length > 0 && (
          <div className="border-top p-2">
            <Button size="sm" variant="link" className="p-0" aria-expanded={showDisconnected} onClick={() => setShowDisconnected((v) => !v)}>
              Disconnect ({disconnected.length})
            </Button>
            <Collapse in={showDisconnected}>
              <div>
                <Table size="sm" className="align-middle mb-0 mt-2 app-ant-disconnected" data-testid="ant-disconnected">
                  <thead><tr>{HEAD.map((h) => <th key={h} className="small">{h}</th>)}</tr></thead>
                  <tbody>{disconnected.map((a) => <Row key={a.id} a={a} onLog={setLogOf} busy act={act} />)}</tbody>
                </Table>
              </div>
            </Collapse>
          </div>
        )}
      </Card.Body>
      <AntLogModal ant={logOf} onHide={() => setLogOf(null)} />
    </Card>
  );
}
