import { useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { CRON_RUNS_PAGE_SIZE, type CronRunStatus, type CronRunView, type CronTaskView } from '../../../contracts/cron.js';
import { useRpc } from '../../api/hooks.js';
import { AppModal } from '../../kit/AppModal.js';
import { fmtDateTime } from '../../kit/format.js';
import { Pager } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import './api.js';

export const STATUS_VARIANT: Record<CronRunStatus, string> = { ok: 'success', error: 'danger', killed: 'warning', skipped: 'secondary', interrupted: 'warning' };

export function StatusBadge({ status }: { status: CronRunStatus | null }) {
  if (!status) return null;
  return <Badge bg={STATUS_VARIANT[status]} text={status === 'killed' || status === 'interrupted' ? 'dark' : undefined} data-status={status}>{status}</Badge>;
}

const fmtMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);

function RunRow({ r }: { r: CronRunView }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr data-run={r.Id} data-status={r.status}>
        <td className="text-nowrap small">{fmtDateTime(r.started)}</td>
        <td className="small">{r.source === 'manual' ? 'run now' : 'schedule'}</td>
        <td><StatusBadge status={r.status} /></td>
        <td className="text-nowrap small text-end">{r.status === 'skipped' ? '' : fmtMs(r.duration_ms)}</td>
        <td className="small text-break">{r.message}</td>
        <td className="text-end">
          {r.output && (
            <Button size="sm" variant="link" className="p-0" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
              {open ? 'Hide output' : 'Output'}
            </Button>
          )}
        </td>
      </tr>
      {open && r.output && (
        <tr>
          <td colSpan={6}>
            <pre className="app-cron-output bg-body-tertiary p-2 rounded" data-testid="run-output">{r.output}</pre>
          </td>
        </tr>
      )}
    </>
  );
}

/** A task's run history (beyond the spec): newest first, with the output tail of each run. */
export function CronRunsModal({ task, onHide }: { task: CronTaskView | null; onHide: () => void }) {
  const [page, setPage] = useState(1);
  const runs = useRpc('cron.getRuns', { Id: task?.Id ?? 0, page, limit: CRON_RUNS_PAGE_SIZE }, { enabled: !!task });
  const { reload } = runs;
  useEffect(() => setPage(1), [task?.Id]);
  // A run of this task ended while the history is open: show it.
  useEffect(() => {
    if (task) void reload();
  }, [task?.last_end, reload]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <AppModal show={!!task} onHide={onHide} title={task ? `History: ${task.name}` : ''} size="full">
      <ErrorAlert error={runs.error} onRetry={() => void reload()} />
      {!runs.data && runs.loading && <Loading />}
      {runs.data && runs.data.count === 0 && <EmptyState text="No runs yet." />}
      {runs.data && runs.data.count > 0 && (
        <>
          <div className="table-responsive">
            <Table size="sm" hover className="align-middle mb-2 app-cron-runs">
              <thead className="table-light">
                <tr><th>Started</th><th>By</th><th>Outcome</th><th className="text-end">Duration</th><th>Message</th><th /></tr>
              </thead>
              <tbody>{runs.data.list.map((r) => <RunRow key={r.Id} r={r} />)}</tbody>
            </Table>
          </div>
          <Pager page={page} count={runs.data.count} limit={CRON_RUNS_PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </AppModal>
  );
}
