import type { ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Table from 'react-bootstrap/Table';
import { fmtDateTime, fmtNumber, plural } from '../../kit/format.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { antCommand } from './api.js';
import {
  ANT_LIST_HEIGHT_PX, ANT_TASK_LIST_ROWS, antStepDescription as stepDescription, type AiAccountView, type AntTaskStat, type AntTaskView, type AntWaitTask, type ProxyView,
} from './model.js';
import type { Live } from './useLive.js';

type LiveView = Pick<Live<unknown>, 'data' | 'error' | 'loading' | 'at' | 'reload'>;

/** A card with a title, a count, header buttons and a body that waits, fails or shows its rows. */
function ListCard({ title, testId, count, actions, live, empty, scroll, children }: {
  title: string; testId: string; count?: number; actions?: ReactNode; live: LiveView; empty: boolean; scroll?: boolean; children: ReactNode;
}) {
  return (
    <Card className="mb-3" data-testid={testId}>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <span className="fw-semibold me-auto">{title}{count !== undefined && <> <Badge bg="secondary">{count}</Badge></>}</span>
        {actions}
      </Card.Header>
      <Card.Body className="p-0">
        {live.error && <ErrorAlert error={live.error} onRetry={() => void live.reload()} className="m-2" />}
        {live.data === undefined && live.loading ? <Loading /> : empty ? <EmptyState text={live.at ? `at ${fmtDateTime(live.at)}` : undefined} /> : (
          <div className="app-ant-scroll" style={scroll ? { maxHeight: ANT_LIST_HEIGHT_PX, overflowY: 'auto' } : undefined}>{children}</div>
        )}
      </Card.Body>
    </Card>
  );
}

const when = (ms: number) => (ms ? fmtDateTime(ms) : '');

const reloadBtn = (live: LiveView, label: string, onClick?: () => void) => (
  <Button size="sm" variant="outline-secondary" disabled={live.loading} aria-label={label} onClick={onClick ?? (() => void live.reload())}>↻</Button>
);

/** Task list (001 §2): Id, step, item, time; at most 15 rows; reload asks the hub to re-read its queue. */
export function TaskListCard({ live }: { live: Live<AntTaskView[]> }) {
  const rows = (live.data ?? []).slice(0, ANT_TASK_LIST_ROWS);
  return (
    <ListCard title="Task list" testId="ant-task-list" live={live} empty={rows.length === 0}
      actions={reloadBtn(live, 'Reload task list', () => void antCommand('reload_task_list', undefined, 'Reload task list', (r) => plural(r.length, 'task')).then((r) => r && live.setData(() => r)))}>
      <Table size="sm" className="mb-0 align-middle">
        <thead><tr><th>Id</th><th>step</th><th>item</th><th>time</th></tr></thead>
        <tbody>{rows.map((t) => (
          <tr key={t.Id}><td>{t.Id}</td><td title={stepDescription(t.step)}>{t.step}</td><td className="small text-break">{t.item}</td><td className="small text-nowrap">{when(t.time)}</td></tr>
        ))}</tbody>
      </Table>
    </ListCard>
  );
}

/** Task stats (001 §2): step, the spec's description, count; refresh. */
export function TaskStatsCard({ live }: { live: Live<AntTaskStat[]> }) {
  const rows = live.data ?? [];
  return (
    <ListCard title="Task stats" testId="ant-task-stats" live={live} empty={rows.length === 0} actions={reloadBtn(live, 'Refresh task stats')}>
      <Table size="sm" className="mb-0 align-middle">
        <thead><tr><th>step</th><th>description</th><th className="text-end">count</th></tr></thead>
        <tbody>{rows.map((s) => (
          <tr key={s.step} data-step={s.step}><td>{s.step}</td><td>{s.description || stepDescription(s.step)}</td><td className="text-end">{fmtNumber(s.count)}</td></tr>
        ))}</tbody>
      </Table>
    </ListCard>
  );
}

/** Proxy list (001 §2): count, Id, ip, login, password (masked); refresh asks the hub to re-read; 300 px scroll. */
export function ProxyListCard({ live }: { live: Live<ProxyView[]> }) {
  const rows = live.data ?? [];
  return (
    <ListCard title="Proxy list" testId="ant-proxy-list" count={rows.length} live={live} empty={rows.length === 0} scroll
      actions={reloadBtn(live, 'Refresh proxy list', () => void antCommand('update_proxy_list', undefined, 'Refresh proxy list', (r) => plural(r.length, 'proxy', 'proxies')).then((r) => r && live.setData(() => r)))}>
      <Table size="sm" className="mb-0 align-middle">
        <thead><tr><th>Id</th><th>ip</th><th>login</th><th>password</th><th>error</th></tr></thead>
        <tbody>{rows.map((p) => (
          <tr key={p.Id}><td>{p.Id}</td><td className="font-monospace small">{p.ip}</td><td>{p.login}</td><td className="font-monospace">{p.pass}</td>
            <td className="small text-danger text-break">{p.last_error ? `${p.last_error}${p.fail_count ? ` (${plural(p.fail_count, 'fail')})` : ''}` : ''}{p.aside_until > Date.now() ? <span className="text-secondary"> aside until {when(p.aside_until)}</span> : null}</td></tr>
        ))}</tbody>
      </Table>
    </ListCard>
  );
}

/** AI accounts (001 §2): Id, login, last_error, ttl_start, connects; Reset error per account; the preload list is read again on demand; 300 px scroll. */
export function AiAccountsCard({ live }: { live: Live<AiAccountView[]> }) {
  const rows = live.data ?? [];
  return (
    <ListCard title="AI accounts" testId="ant-ai-accounts" count={rows.length} live={live} empty={rows.length === 0} scroll
      actions={<Button size="sm" variant="outline-secondary" disabled={live.loading}
        onClick={() => void antCommand('server.open_ai.run_account_preload', undefined, 'Preload list', (r) => plural(r.length, 'account')).then((r) => r && live.setData(() => r))}>Preload list</Button>}>
      <Table size="sm" className="mb-0 align-middle">
        <thead><tr><th>Id</th><th>login</th><th>last_error</th><th>ttl_start</th><th className="text-end">connects</th><th /></tr></thead>
        <tbody>{rows.map((a) => (
          <tr key={a.Id}><td>{a.Id}</td><td>{a.login}</td><td className="small text-danger text-break">{a.last_error ?? ''}</td><td className="small">{when(a.ttl_start)}</td>
            <td className="text-end">{fmtNumber(a.connects)}</td>
            <td className="text-end">{a.last_error ? <Button size="sm" variant="outline-warning" aria-label={`Reset error ${a.login}`}
              onClick={() => void antCommand('server.open_ai.reset_account_error', { Id: a.Id }, `Reset error ${a.login}`, () => 'error cleared').then((r) => r && live.setData((d) => d?.map((x) => (x.Id === r.Id ? r : x))))}>Reset error</Button> : null}</td></tr>
        ))}</tbody>
      </Table>
    </ListCard>
  );
}

/** The wait-task list (001 §2; docs/ant.md): tasks held by an ant under lease, or waiting for a retry. */
export function WaitTasksCard({ live }: { live: Live<AntWaitTask[]> }) {
  const rows = live.data ?? [];
  return (
    <ListCard title="Wait tasks" testId="ant-wait-tasks" count={rows.length} live={live} empty={rows.length === 0} scroll actions={reloadBtn(live, 'Refresh wait tasks')}>
      <Table size="sm" className="mb-0 align-middle">
        <thead><tr><th>Id</th><th>step</th><th>item</th><th>state</th><th>ant</th><th>until</th><th className="text-end">attempts</th><th>last error</th></tr></thead>
        <tbody>{rows.map((t) => (
          <tr key={t.Id}><td>{t.Id}</td><td title={stepDescription(t.step)}>{t.step}</td><td className="small text-break">{t.item}</td><td>{t.state}</td>
            <td className="small">{t.antName ?? t.ant ?? ''}</td><td className="small text-nowrap">{when(t.until)}</td><td className="text-end">{t.attempts}</td>
            <td className="small text-danger text-break">{t.last_error ?? ''}</td></tr>
        ))}</tbody>
      </Table>
    </ListCard>
  );
}
