import { useEffect, useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Row from 'react-bootstrap/Row';
import { USED_PROXY_LABELS, type AntServerEvents } from '../../../contracts/ant.js';
import { useSocketStatus } from '../../api/socket.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { AntConnections } from './AntConnections.js';
import { AiAccountsCard, ProxyListCard, TaskListCard, TaskStatsCard, WaitTasksCard } from './AntLists.js';
import { antCommand } from './api.js';
import {
  ANT_CLIENT_OPTIONS, ANT_CONNECTIONS_DEBOUNCE_MS, ANT_PAGE_TITLE, ANT_TASK_LIST_DEBOUNCE_MS, formatOnlyStep, getClientAnt, parseOnlyStep, setClientAnt,
  type AiAccountView, type AntConnection, type AntTaskStat, type AntTaskView, type AntWaitTask, type AntWorkerStatus, type ClientAnt, type ProxyView,
  type UsedProxyStatus,
} from './model.js';
import { useLive, type Live } from './useLive.js';
import './ant.css';

/** The worker (the hub's hand-out switch, 001 §4 Worker): status 'ok' shows Stop, otherwise Start; with the time it was last set. */
function WorkerSwitch({ live }: { live: Live<AntWorkerStatus> }) {
  const [busy, setBusy] = useState(false);
  const w = live.data;
  const on = w?.status === 'ok';
  const toggle = async () => {
    setBusy(true);
    const r = await antCommand(on ? 'worker_stop' : 'worker_start', undefined, on ? 'Worker stop' : 'Worker start', (x) => `status ${x.status}`);
    setBusy(false);
    if (r) live.setData(() => r);
  };
  return (
    <div className="d-flex flex-wrap align-items-center gap-2" data-testid="ant-worker">
      <span className="fw-semibold">Worker</span>
      {w ? <Badge bg={on ? 'success' : 'secondary'} data-testid="ant-worker-status">{w.status}</Badge>
        : live.error ? <Badge bg="danger">{live.error.message}</Badge> : <Badge bg="light" text="dark">…</Badge>}
      {w && <span className="small text-secondary" data-testid="ant-worker-time">{w.time ? fmtDateTime(w.time) : 'never set'}</span>}
      <Button size="sm" variant={on ? 'outline-danger' : 'outline-success'} disabled={!w || busy} onClick={() => void toggle()}>{on ? 'Stop' : 'Start'}</Button>
    </div>
  );
}

/** Only-step field (001 §5): comma-separated integers, entries not above 0 dropped, empty allowed (every step); live across operators (`set_only_step`). */
function OnlyStepField() {
  const read = (v: { only_step: string }) => formatOnlyStep(parseOnlyStep(v?.only_step));
  const live = useLive<string>('get_only_step', { events: ['set_only_step'], read: (v) => read(v as { only_step: string }), map: (_e, p) => read(p as AntServerEvents['set_only_step']) });
  const [text, setText] = useState('');
  const [dirty, setDirty] = useState(false);
  const current = live.data ?? '';
  useEffect(() => {
    if (!dirty) setText(current);
  }, [current, dirty]);
  const save = async () => {
    const only = formatOnlyStep(parseOnlyStep(text));
    const r = await antCommand('set_only_step', { only_step: only }, 'Only step', (x) => x.only_step || 'all steps');
    if (r) {
      setDirty(false);
      live.setData(() => r.only_step);
      setText(r.only_step);
    }
  };
  return (
    <Form onSubmit={(e) => { e.preventDefault(); void save(); }} className="d-flex align-items-center gap-2" aria-label="Only step">
      <InputGroup size="sm" style={{ maxWidth: 300 }}>
        <InputGroup.Text as="label" htmlFor="ant-only-step">Only step</InputGroup.Text>
        <Form.Control id="ant-only-step" name="only_step" value={text} placeholder="every step" onChange={(e) => { setText(e.currentTarget.value); setDirty(true); }} />
        <Button type="submit" variant="outline-primary">Set</Button>
      </InputGroup>
      <span className="small text-secondary" data-testid="ant-only-step-current">{live.data === undefined ? '' : current ? `now: ${current}` : 'now: every step'}</span>
    </Form>
  );
}

/** The client-ant selector (Local or Node, docs/ant.md): kept in local storage; a change reloads the page (001 §2). */
function ClientAntSelect({ value }: { value: ClientAnt }) {
  return (
    <label className="small d-flex align-items-center gap-1">
      Client ant
      <select className="form-select form-select-sm w-auto" aria-label="Client ant" value={value}
        onChange={(e) => { setClientAnt(e.currentTarget.value as ClientAnt); window.location.reload(); }}>
        {ANT_CLIENT_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </label>
  );
}

/** An `ant_change` of one connection: replaces (or adds) its row. */
function mergeChange(prev: AntConnection[] | undefined, a: AntConnection | null): AntConnection[] | undefined {
  if (!prev || !a || typeof a !== 'object' || !a.id) return undefined;
  const i = prev.findIndex((x) => x.id === a.id);
  if (i < 0) return [...prev, a];
  const next = prev.slice();
  next[i] = a;
  return next;
}
const asList = <T,>(v: unknown): T[] | undefined => (Array.isArray(v) ? (v as T[]) : undefined);

/**
 * /ant, 'Ant v2' (001 §2 "Ant worker control"): the crawler hub seen live over the session socket
 * (docs/ant.md): worker switch, client-ant selector, only-step, connections with their commands and
 * log, task list and stats, proxies and their usage mode, AI accounts, the wait-task list. Each part
 * is read by its message, then kept by its events (task list debounced 400 ms, connections 1 s).
 */
export default function AntPage() {
  const socket = useSocketStatus();
  const [client] = useState<ClientAnt>(getClientAnt);
  const worker = useLive<AntWorkerStatus>('get_worker_status', { events: ['worker_status'], map: (_e, p) => p as AntWorkerStatus });
  const connections = useLive<AntConnection[]>('get_list_connections', {
    events: ['ant_list', 'ant_change'],
    debounceMs: ANT_CONNECTIONS_DEBOUNCE_MS,
    map: (e, p, prev) => (e === 'ant_list' ? asList<AntConnection>(p) : mergeChange(prev, p as AntConnection)),
  });
  const tasks = useLive<AntTaskView[]>('ant_get_task_list', { events: ['task_list'], debounceMs: ANT_TASK_LIST_DEBOUNCE_MS, map: (_e, p) => asList(p) });
  const stats = useLive<AntTaskStat[]>('task.getStats', { events: ['task.stats'], map: (_e, p) => asList(p) });
  const proxies = useLive<ProxyView[]>('get_proxy_list', { events: ['proxy_list'], map: (_e, p) => asList(p) });
  const ai = useLive<AiAccountView[]>('server.get_open_ai_account_preload_list', { events: ['server.open_ai.preload_list_change'], map: (_e, p) => asList(p) });
  const wait = useLive<AntWaitTask[]>('get_list_wait_task', { events: ['list_wait_task'], map: (_e, p) => asList(p) });
  const used = useLive<UsedProxyStatus>('server.get_status_used_proxy', {
    events: ['server.change'],
    read: (v) => (v as { status: UsedProxyStatus }).status,
    map: (_e, p) => (p as AntServerEvents['server.change'])?.status_used_proxy,
  });

  // 'local': only the ants connected to the instance serving this page (AntWorkerStatus.instance); 'node': every instance's.
  const instance = worker.data?.instance;
  const list = useMemo(() => {
    const all = connections.data ?? [];
    return client === 'local' && instance ? all.filter((a) => a.worker === instance) : all;
  }, [connections.data, client, instance]);

  const setUsedProxy = async (status: UsedProxyStatus) => {
    const r = await antCommand('server.set_status_used_proxy', { status }, 'Proxy usage', (x) => USED_PROXY_LABELS[x.status]);
    if (r) used.setData(() => r.status);
  };

  return (
    <div className="app-ant">
      <PageTitle title={ANT_PAGE_TITLE} actions={<ClientAntSelect value={client} />}>
        <div className="d-flex flex-wrap align-items-center gap-3">
          <WorkerSwitch live={worker} />
          <OnlyStepField />
          {client === 'local' && instance && <span className="small text-secondary">instance {instance}</span>}
          {socket !== 'connected' && <Badge bg="warning" text="dark">socket {socket}</Badge>}
        </div>
      </PageTitle>
      <AntConnections live={connections} list={list} usedProxy={used.data} setUsedProxy={(v) => void setUsedProxy(v)} />
      <Row className="g-3">
        <Col lg={6}><TaskListCard live={tasks} /></Col>
        <Col lg={6}><TaskStatsCard live={stats} /></Col>
        <Col lg={6}><ProxyListCard live={proxies} /></Col>
        <Col lg={6}><AiAccountsCard live={ai} /></Col>
        <Col lg={12}><WaitTasksCard live={wait} /></Col>
      </Row>
    </div>
  );
}
