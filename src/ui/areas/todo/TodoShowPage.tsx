import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link, useParams } from 'react-router-dom';
import {
  fmtZoned, TODO_MSG, TODO_STATUS, TODO_STATUS_LABELS, TODO_TYPE_LABELS, type MailState, type TodoDelivery, type TodoHistoryEntry, type TodoView,
} from '../../../contracts/todo.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { StatusBadge, TypeLabel } from './parts.js';
import './api.js';

const MAIL_LABEL: Record<MailState, { text: string; bg: string }> = {
  none: { text: 'no e-mail', bg: 'light' },
  pending: { text: 'e-mail waiting', bg: 'info' },
  sending: { text: 'e-mail sending', bg: 'info' },
  sent: { text: 'e-mail sent', bg: 'success' },
  retry: { text: 'e-mail failed, will try again', bg: 'warning' },
  failed: { text: 'e-mail failed', bg: 'danger' },
  cancelled: { text: 'e-mail cancelled (finished)', bg: 'secondary' },
};

function Delivery({ d, tz }: { d: TodoDelivery; tz: string }) {
  const m = MAIL_LABEL[d.mail_state] ?? { text: d.mail_state, bg: 'light' };
  return (
    <tr data-testid="todo-delivery" data-mail={d.mail_state}>
      <td className="text-nowrap">{fmtZoned(d.due_at, tz)}{d.late ? <Badge bg="warning" text="dark" className="ms-2">late</Badge> : null}</td>
      <td className="text-nowrap">{d.notified_at ? fmtDateTime(d.notified_at * 1000) : '—'}</td>
      <td>
        <Badge bg={m.bg} text={m.bg === 'light' || m.bg === 'warning' ? 'dark' : undefined}>{m.text}</Badge>
        {d.mail_to && <span className="small text-secondary ms-2">{d.mail_to}</span>}
        {d.mail_tries > 0 && <span className="small text-secondary ms-2">tries {d.mail_tries}</span>}
        {d.mail_state === 'retry' && d.mail_next_at > 0 && <span className="small text-secondary ms-2">next try {fmtDateTime(d.mail_next_at * 1000)}</span>}
        {d.mail_error && <div className="small text-danger text-break">{d.mail_error}</div>}
      </td>
    </tr>
  );
}

const ACTION_LABEL: Record<TodoHistoryEntry['action'], string> = { update: 'Edited', finish: 'Finished', restore: 'Restored' };

function History({ list }: { list: TodoHistoryEntry[] }) {
  const [open, setOpen] = useState<number | null>(null);
  if (!list.length) return <div className="small text-secondary">No changes yet.</div>;
  return (
    // 001 §9: the history list scrolls at 300 px.
    <div style={{ maxHeight: 300, overflowY: 'auto' }} data-testid="todo-history">
      {list.map((h) => (
        <div key={h.Id} className="border-bottom py-1 small" data-testid="todo-history-entry">
          <div className="d-flex flex-wrap gap-2 align-items-center">
            <span className="fw-semibold">{ACTION_LABEL[h.action] ?? h.action}</span>
            <span>by {h.who || `#${h.uid}`}</span>
            <span className="text-secondary">{fmtDateTime(h.ts * 1000)}</span>
            <Button size="sm" variant="link" className="p-0 ms-auto" onClick={() => setOpen(open === h.Id ? null : h.Id)}>
              {open === h.Id ? 'Hide' : 'Version before'}
            </Button>
          </div>
          {open === h.Id && (
            <div className="mt-1 p-2 bg-body-tertiary rounded">
              <div><span className="text-secondary">title</span> {h.title}</div>
              <div><span className="text-secondary">type</span> {TODO_TYPE_LABELS[h.type] ?? h.type} · <span className="text-secondary">status</span> {TODO_STATUS_LABELS[h.status] ?? h.status}
                {' '}· <span className="text-secondary">alert</span> {h.alert_type || 'none'}</div>
              {/* Stored through the server's sanitiser (cleanHtml) like the current text. */}
              <div className="app-todo-text mt-1" dangerouslySetInnerHTML={{ __html: h.text }} />
            </div>
          )}
        </div>
      ))}
    </div>
  );
}

/**
 * /todo/show/{Id} (001 §2): the todo, its text, its alert with every delivery (late or not, the e-mail's
 * state, a failure and the next try), and its history with who and when. Edit opens /todo/edit/{Id};
 * Finish and Restore change the status (001 §8 'Todo close!', 'Todo restore OK!').
 */
export default function TodoShowPage() {
  const { Id: param } = useParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const { data, error, loading, reload, setData } = useAsync(
    async (signal) => (Id ? (rpc('todo.get', { Id }, { signal }) as Promise<TodoView>) : undefined),
    `todo:${param}`,
  );
  const { run, busy } = useAction();
  const setStatus = async (status: number) => {
    if (!Id) return;
    const r = await run(() => rpc('todo.update', { Id, status }), (x) => x.message);
    if (r) setData(r.todo);
  };
  if (!Id) return <><PageTitle title="Todo" /><ErrorAlert error={TODO_MSG.notFound} /><Link to="/todo">Back to the list</Link></>;
  if (loading && !data) return <Loading text="Loading the todo…" />;
  if (error || !data) return <><PageTitle title="Todo" /><ErrorAlert error={error ?? TODO_MSG.notFound} onRetry={reload} /><Link to="/todo">Back to the list</Link></>;
  const t = data;
  const tz = t.alerts.tz;
  return (
    <>
      <PageTitle
        title={`Todo ${t.Id}: ${t.title}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/todo">Back</Link>
          <Link className="btn btn-sm btn-outline-primary" to={`/todo/edit/${t.Id}`}>Edit</Link>
          {t.status === TODO_STATUS.open
            ? <Button size="sm" variant="success" disabled={busy} onClick={() => setStatus(TODO_STATUS.finished)}>{busy && <Spinner size="sm" className="me-1" />}Finish</Button>
            : <Button size="sm" variant="warning" disabled={busy} onClick={() => setStatus(TODO_STATUS.open)}>{busy && <Spinner size="sm" className="me-1" />}Restore</Button>}
        </>}
      />
      <Row>
        <Col lg={8}>
          <Card body className="mb-3">
            <div className="d-flex flex-wrap gap-3 align-items-center mb-2 small">
              <StatusBadge status={t.status} />
              <span><span className="text-secondary">type</span> <TypeLabel type={t.type} /></span>
              <span><span className="text-secondary">owner</span> {t.owner || `#${t.uid}`}</span>
              <span><span className="text-secondary">created</span> {fmtDateTime(t.ts_create * 1000)}</span>
              <span><span className="text-secondary">updated</span> {fmtDateTime(t.ts_update * 1000)}</span>
            </div>
            {/* Sanitised on the server (cleanHtml) before it was stored. */}
            {t.text ? <div className="app-todo-text" data-testid="todo-text" dangerouslySetInnerHTML={{ __html: t.text }} /> : <div className="text-secondary small">No text.</div>}
          </Card>
          <Card body className="mb-3">
            <div className="fw-semibold small mb-1">Alert</div>
            <div className="small mb-2" data-testid="todo-alert">
              {t.alerts.description}
              {t.alert_next > 0 && <span className="text-secondary"> · next {fmtZoned(t.alert_next, tz)}</span>}
              <span className="text-secondary"> · time zone {tz}</span>
            </div>
            {t.alerts.deliveries.length > 0 && (
              <Table size="sm" className="mb-0">
                <thead><tr><th>Due</th><th>In the console</th><th>E-mail</th></tr></thead>
                <tbody>{t.alerts.deliveries.map((d) => <Delivery key={d.Id} d={d} tz={tz} />)}</tbody>
              </Table>
            )}
          </Card>
        </Col>
        <Col lg={4}>
          <Card body className="mb-3">
            <div className="fw-semibold small mb-1">History</div>
            <History list={t.history} />
          </Card>
        </Col>
      </Row>
    </>
  );
}
