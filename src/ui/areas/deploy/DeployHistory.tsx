/** The deploy history (issue 11): who, when, type, host, per-node outcome and exit code, duration; p_ in the URL. */
import { useEffect } from 'react';
import Badge from 'react-bootstrap/Badge';
import { DEPLOY_HISTORY_PAGE_SIZE, type DeployRunView } from '../../../contracts/deploy.js';
import { useRpc } from '../../api/hooks.js';
import { fmtDateTime } from '../../kit/format.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import './api.js';

const fmtMs = (ms: number | null) => (ms === null ? '…' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

const columns: Column<DeployRunView>[] = [
  { key: 'started_at', title: 'When', render: (r) => fmtDateTime(r.started_at), width: 170 },
  { key: 'type', title: 'Type', width: 90 },
  { key: 'host', title: 'Host', width: 140 },
  { key: 'login', title: 'Who', render: (r) => r.login ?? 'cron', width: 110 },
  {
    key: 'ok', title: 'Result', width: 90,
    render: (r) => (r.ok === null ? <Badge bg="secondary">running</Badge> : r.ok ? <Badge bg="success">ok</Badge> : <Badge bg="danger">failed</Badge>),
  },
  {
    key: 'nodes', title: 'Nodes',
    render: (r) => (
      <div className="d-flex flex-wrap gap-1">
        {r.nodes.map((n) => (
          <Badge key={n.name} bg={n.ok ? 'success' : 'danger'} title={n.error ?? ''} data-node={n.name}>
            {n.name} {n.code ?? '--'}
          </Badge>
        ))}
      </div>
    ),
  },
  { key: 'duration_ms', title: 'Duration', render: (r) => fmtMs(r.duration_ms), width: 90 },
];

export function DeployHistory({ host, refresh = 0 }: { host?: string; refresh?: number }) {
  const [page] = usePageParam();
  const list = useRpc('deploy.getHistory', { page, ...(host ? { host } : {}) });
  // A deploy ended (here or by another admin): reload once the nodes' end markers have settled.
  useEffect(() => {
    if (!refresh) return;
    const timer = setTimeout(() => void list.reload(), 500);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refresh]);
  return (
    <section className="mt-4" data-testid="deploy-history">
      <h2 className="h6">History{host ? ` of ${host}` : ''}</h2>
      <PaginatedTable
        columns={columns}
        rows={list.data?.list}
        rowKey={(r) => r.Id}
        count={list.data?.count ?? 0}
        limit={DEPLOY_HISTORY_PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={() => void list.reload()}
        empty="No deploys yet"
        minWidth={800}
      />
    </section>
  );
}
