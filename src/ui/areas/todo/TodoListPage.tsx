import Form from 'react-bootstrap/Form';
import { Link, useNavigate } from 'react-router-dom';
import { Role } from '../../../contracts/roles.js';
import { TODO_PAGE, TODO_STATUS_LABELS, TODO_TYPE_LABELS, type TodoList, type TodoRow } from '../../../contracts/todo.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { AlertSummary, StatusBadge, TypeLabel } from './parts.js';
import './api.js';

const STATUS_OPTIONS = [0, -1];

/**
 * /todo (001 §2 "Todo"): the user's todos (an admin's: everyone's, or only theirs), newest first, 20 a
 * page; the filters `status` (0 in progress, the default, or -1 finished) and `type` live in the URL with
 * the page `p_`, so a reload or a shared link shows the same list. Add opens /todo/create.
 */
export default function TodoListPage() {
  const session = useSession();
  const admin = (session?.role ?? 100) <= Role.admin;
  const [page] = usePageParam();
  const [status, setStatus] = useQueryParam('status', '0');
  const [type, setType] = useQueryParam('type');
  const [mine, setMine] = useQueryParam('mine');
  const navigate = useNavigate();
  const statusN = status === '-1' ? -1 : 0;
  const typeN = /^[1-6]$/.test(type) ? Number(type) : undefined;
  const { data, error, loading, reload } = useRpc('todo.get', {
    status: statusN, p_: page, limit: TODO_PAGE, ...(typeN !== undefined ? { type: typeN } : {}), ...(admin && mine === '1' ? { mine: 1 as const } : {}),
  });
  const list = data as TodoList | undefined;
  const tz = list?.tz ?? '';
  const columns: Column<TodoRow>[] = [
    { key: 'Id', title: 'Id', width: 70 },
    { key: 'title', title: 'Title', render: (r) => <Link to={`/todo/show/${r.Id}`}>{r.title}</Link> },
    { key: 'type', title: 'Type', width: 120, render: (r) => <TypeLabel type={r.type} /> },
    { key: 'status', title: 'Status', width: 120, render: (r) => <StatusBadge status={r.status} /> },
    { key: 'alert', title: 'Alert', render: (r) => <AlertSummary alertType={r.alert_type} tsAlert={r.ts_alert} next={r.alert_next} tz={tz} /> },
    ...(admin ? [{ key: 'owner', title: 'Owner', width: 140, render: (r: TodoRow) => r.owner || `#${r.uid}` }] : []),
    { key: 'ts_update', title: 'Updated', width: 170, render: (r) => fmtDateTime(r.ts_update * 1000) },
  ];
  return (
    <>
      <PageTitle title="Todo" actions={<Link className="btn btn-sm btn-primary" to="/todo/create">Add</Link>} />
      <div className="d-flex flex-wrap align-items-center gap-3 mb-2">
        <Form.Select size="sm" aria-label="Status" style={{ width: 170 }} value={String(statusN)} onChange={(e) => setStatus(e.currentTarget.value)}>
          {STATUS_OPTIONS.map((s) => <option key={s} value={s}>{TODO_STATUS_LABELS[s]}</option>)}
        </Form.Select>
        <Form.Select size="sm" aria-label="Type" style={{ width: 170 }} value={typeN === undefined ? '' : String(typeN)} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="">All types</option>
          {[1, 2, 3, 4, 5, 6].map((t) => <option key={t} value={t}>{TODO_TYPE_LABELS[t]}</option>)}
        </Form.Select>
        {admin && (
          <Form.Check type="switch" id="todo-mine" label="Only mine" checked={mine === '1'} onChange={(e) => setMine(e.currentTarget.checked ? '1' : '')} />
        )}
      </div>
      <PaginatedTable columns={columns} rows={list?.list} rowKey={(r) => r.Id} count={list?.count ?? 0} limit={TODO_PAGE}
        loading={loading} error={error} onRetry={reload} onRowClick={(r) => navigate(`/todo/show/${r.Id}`)}
        empty={statusN === -1 ? 'No finished todos.' : 'No todos in progress.'} />
    </>
  );
}
