import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { WORKER_MSG, WORKERS_PAGE, type WorkerView } from '../../../contracts/workers.js';
import { useRest } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';

/**
 * /worker (001 §2, §4 Worker): the console's own background workers, 20 per page on `p_`, with status,
 * schedule, last run and last error. Status 'ok' shows Stop, otherwise Start; the button switches the
 * worker on every instance (persisted) and the row shows the answer.
 */
export default function WorkersPage() {
  const [page] = usePageParam();
  const { data, error, loading, reload, setData } = useRest<{ list: WorkerView[]; count: number }>('/worker/list', { page });
  const { run, busy } = useAction();
  const toggle = async (w: WorkerView) => {
    const stop = w.status === 'ok';
    const r = await run(() => rpc(stop ? 'worker.stop' : 'worker.start', { name: w.name }), stop ? WORKER_MSG.stopped : WORKER_MSG.started);
    if (r) setData((d) => d && { ...d, list: d.list.map((x) => (x.name === r.name ? r : x)) });
  };
  const columns: Column<WorkerView>[] = [
    { key: 'label', title: 'Worker', render: (w) => <><div className="fw-semibold">{w.label}</div><div className="small text-secondary font-monospace">{w.name}</div></> },
    { key: 'schedule', title: 'Schedule', render: (w) => <span className="small">{w.schedule}</span> },
    {
      key: 'status', title: 'Status',
      render: (w) => <Badge bg={w.status === 'ok' ? 'success' : 'secondary'} data-testid={`worker-status-${w.name}`}>{w.status}</Badge>,
    },
    { key: 'last_run', title: 'Last run', render: (w) => (w.last_run ? fmtDateTime(w.last_run) : '—') },
    {
      key: 'last_error', title: 'Last error',
      render: (w) => (w.last_error ? <span className="text-danger small text-break">{w.last_error}</span> : <span className="text-secondary">—</span>),
    },
    {
      key: 'action', title: '', className: 'text-end',
      render: (w) => (
        <Button size="sm" variant={w.status === 'ok' ? 'outline-danger' : 'outline-success'} disabled={busy} onClick={() => void toggle(w)} aria-label={`${w.status === 'ok' ? 'Stop' : 'Start'} ${w.label}`}>
          {w.status === 'ok' ? 'Stop' : 'Start'}
        </Button>
      ),
    },
  ];
  const scheduling = data?.list[0]?.scheduling;
  return (
    <>
      <PageTitle title="Workers" actions={<Button size="sm" variant="outline-secondary" onClick={() => void reload()} disabled={loading}>Refresh</Button>} />
      {scheduling === false && (
        <p className="small text-secondary">This instance runs no scheduled work (CRON_ENABLED is off): the switches apply to the instances that do.</p>
      )}
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(w) => w.name} count={data?.count ?? 0} limit={WORKERS_PAGE} loading={loading} error={error} onRetry={reload} minWidth={760} />
    </>
  );
}
