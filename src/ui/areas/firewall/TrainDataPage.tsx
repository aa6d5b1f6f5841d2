/**
 * /firewall/train_data?host= (000 §2, §4 "Train review"): the marks of a host that its network disagrees
 * with (firewall.loadHostTrainData: 0.5 marks skipped, output above 0.99 counts as 1). Each can be set
 * to 0 or 1 (firewall.updateTrainDataLog) or deleted after a confirm (firewall.deleteTrainDataLog). The
 * host and the page (`p_`) live in the URL; a host without a model says so.
 */
import { useMemo } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { NN_REVIEW_THRESHOLD, NN_TOP_EFFECTS, trainSetMessage, type TrainMark, type TrainReviewRow } from '../../../contracts/firewall-train.js';
import { MSG } from '../../../contracts/messages.js';
import { useAsync, useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { EmptyState } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { FirewallControls } from './FirewallControls.js';
import { effectsText } from './NeuralScore.js';
import { MarkBadge } from './TrainMarks.js';
import { fmtScore, isNoModel } from './train-api.js';
import './firewall.css';

/** Review rows a page. */
export const TRAIN_REVIEW_PAGE = 50;
type ReviewRow = TrainReviewRow;

/** The features that pushed the output most (against the median of the host's marks). */
function TopFeatures({ r }: { r: ReviewRow }) {
  return <span className="small">{effectsText(r.top, NN_TOP_EFFECTS) || '—'}</span>;
}

function useReview(host: string) {
  return useAsync(
    async (signal) => {
      try {
        return { rows: (await rpc('firewall.loadHostTrainData', { host }, { signal })) as ReviewRow[], noModel: false };
      } catch (e) {
        if (isNoModel(e)) return { rows: [] as ReviewRow[], noModel: true };
        throw e;
      }
    },
    host,
    { enabled: !!host },
  );
}

export default function TrainDataPage() {
  const [host, setHost] = useQueryParam('host');
  const [page] = usePageParam();
  const filter = useRpc('firewall.getFilter', undefined);
  const review = useReview(host);
  const { run, busy } = useAction();
  const rows = review.data?.rows;
  const pageRows = useMemo(() => rows?.slice((page - 1) * TRAIN_REVIEW_PAGE, page * TRAIN_REVIEW_PAGE), [rows, page]);
  const hosts = filter.data?.hosts.map((h) => h.host) ?? [];
  if (host && !hosts.includes(host)) hosts.unshift(host);

  const setMark = async (r: ReviewRow, bal: TrainMark) => {
    if (await run(() => rpc('firewall.updateTrainDataLog', { Id: r.Id, bal }), (x) => x.message ?? trainSetMessage(bal))) await review.reload();
  };
  const remove = async (r: ReviewRow) => {
    if (await run(() => rpc('firewall.deleteTrainDataLog', { Id: r.Id }), (x) => x.message ?? MSG.deleteOk)) await review.reload();
  };

  const columns: Column<ReviewRow>[] = [
    { key: 'ip', title: 'IP', render: (r) => <span className="app-mono fw-semibold">{r.ip}</span> },
    { key: 'bal', title: 'Mark', render: (r) => <MarkBadge bal={r.bal} /> },
    { key: 'output', title: 'Output', className: 'text-end', render: (r) => <span data-output={r.output}>{fmtScore(r.output)}</span> },
    { key: 'predicted', title: 'Predicted', render: (r) => <Badge bg={r.predicted ? 'danger' : 'success'} data-predicted={r.predicted}>{r.predicted}</Badge> },
    { key: 'time', title: 'Time', render: (r) => <span className="small text-nowrap">{fmtDateTime(r.time)}</span> },
    { key: 'top', title: 'Top features', render: (r) => <TopFeatures r={r} /> },
    {
      key: 'actions', title: '', className: 'text-end text-nowrap',
      render: (r) => (
        <div className="d-inline-flex gap-1" role="group" aria-label={`Review ${r.ip}`}>
          <Button size="sm" variant={r.bal === 0 ? 'success' : 'outline-success'} disabled={busy} onClick={() => void setMark(r, 0)}>0</Button>
          <Button size="sm" variant={r.bal === 1 ? 'danger' : 'outline-danger'} disabled={busy} onClick={() => void setMark(r, 1)}>1</Button>
          <ConfirmButton label="Delete" title={`Delete the mark of ${r.ip}`} text={<>Delete the train mark of <strong className="app-mono">{r.ip}</strong>?</>}
            onConfirm={() => remove(r)} disabled={busy} />
        </div>
      ),
    },
  ];

  return (
    <div className="app-fw">
      <PageTitle title="Train data" />
      <FirewallControls />
      <div className="app-card mb-3 d-flex flex-wrap align-items-end gap-2">
        <div>
          <Form.Label htmlFor="td-host" className="small fw-semibold mb-1">Domain</Form.Label>
          <Form.Select id="td-host" size="sm" value={host} onChange={(e) => setHost(e.currentTarget.value)} style={{ minWidth: '14rem' }}>
            <option value="">choose a domain</option>
            {hosts.map((h) => <option key={h} value={h}>{h}</option>)}
          </Form.Select>
        </div>
        {host && <Button size="sm" variant="outline-secondary" onClick={() => void review.reload()} disabled={review.loading}>Refresh</Button>}
        <div className="small text-secondary ms-md-auto">
          Marks the network disagrees with: 0.5 skipped, an output above {NN_REVIEW_THRESHOLD} counts as 1, else 0.
        </div>
      </div>
      {!host && <EmptyState title="Train data" text="Choose a domain to review its marks." />}
      {host && review.data?.noModel && (
        <div className="app-card" data-testid="no-model">
          <EmptyState title="No model" text={`${host} has no trained model yet: mark addresses on the traffic screen, then Train.`} />
        </div>
      )}
      {host && !review.data?.noModel && (
        <div className="app-card">
          <PaginatedTable
            columns={columns}
            rows={pageRows}
            rowKey={(r) => r.Id}
            count={rows?.length ?? 0}
            limit={TRAIN_REVIEW_PAGE}
            loading={review.loading}
            error={review.error}
            onRetry={() => void review.reload()}
            empty={<EmptyState title="No mismatches" text="The network agrees with every mark of this domain." />}
            className="app-fw-review"
          />
        </div>
      )}
    </div>
  );
}
