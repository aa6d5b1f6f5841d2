import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import { COMMENT_MSG, COMMENT_STATUS, COMMENT_STATUS_LABEL, COMMENTS_PAGE, type CommentAction, type CommentView } from '../../../contracts/comments.js';
import type { Paged } from '../../../contracts/auth.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState } from '../../kit/states.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { useAction } from '../../kit/useAction.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'comments.getList': { args: { p_?: number; status?: number }; result: Paged<CommentView> };
    'comments.moderate': { args: { ids: number[]; action: CommentAction }; result: { count: number; message: string } };
  }
}

/**
 * /comments (001 §2 menu, admin; docs/content.md "Comments"): the comments the sites reported through
 * the input stream, 20 per page on `p_`; the queue (Pending) by default, `status` in the URL. Approve
 * keeps a comment on its site, Hide hides it there, Delete (confirmed) removes it; the sites read the
 * decisions back.
 */
export default function CommentsPage() {
  const [page] = usePageParam();
  const [statusParam, setStatus] = useQueryParam('status', String(COMMENT_STATUS.pending));
  const status = Number(statusParam) in COMMENT_STATUS_LABEL ? Number(statusParam) : COMMENT_STATUS.pending;
  const { data, error, loading, reload } = useRpc('comments.getList', { p_: page, status });
  const { run, busy } = useAction();
  const act = async (c: CommentView, action: CommentAction) => {
    if (await run(() => rpc('comments.moderate', { ids: [c.Id], action }), COMMENT_MSG[action])) await reload();
  };
  const columns: Column<CommentView>[] = [
    {
      key: 'text', title: 'Comment',
      render: (c) => (
        <>
          <div className="small text-secondary">
            {c.author || 'anonymous'} · {fmtDateTime(c.written_at)} · {c.site || `site ${c.site_id}`}
            {c.url ? <> · <a href={c.url} target="_blank" rel="noreferrer noopener">page</a></> : null}
            {c.Id_book ? ` · book ${c.Id_book}` : ''}
          </div>
          <div className="text-break" style={{ whiteSpace: 'pre-wrap' }} data-testid="comment-text">{c.text}</div>
        </>
      ),
    },
    { key: 'reason', title: 'Reported', render: (c) => <span className="small">{c.reason || '—'}<br /><span className="text-secondary">{c.reports}× · {fmtDateTime(c.reported_at)}</span></span> },
    {
      key: 'action', title: '', className: 'text-end text-nowrap',
      render: (c) => (
        <div className="d-inline-flex gap-1">
          {c.status !== COMMENT_STATUS.approved && <Button size="sm" variant="outline-success" disabled={busy} onClick={() => void act(c, 'approve')}>Approve</Button>}
          {c.status !== COMMENT_STATUS.hidden && <Button size="sm" variant="outline-secondary" disabled={busy} onClick={() => void act(c, 'hide')}>Hide</Button>}
          <ConfirmButton disabled={busy} text="Delete this comment? The site removes it." onConfirm={() => act(c, 'delete')} />
        </div>
      ),
    },
  ];
  return (
    <>
      <PageTitle title="Comments" />
      <ButtonGroup size="sm" className="mb-3" aria-label="Status">
        {Object.entries(COMMENT_STATUS_LABEL).map(([v, label]) => (
          <Button key={v} variant={Number(v) === status ? 'primary' : 'outline-primary'} onClick={() => setStatus(v)}>{label}</Button>
        ))}
      </ButtonGroup>
      <PaginatedTable
        columns={columns} rows={data?.list} rowKey={(c) => c.Id} count={data?.count ?? 0} limit={COMMENTS_PAGE} loading={loading} error={error} onRetry={reload} minWidth={640}
        empty={<EmptyState title="No comments" text={status === COMMENT_STATUS.pending ? 'Nothing waits for moderation: the sites report comments through the input stream.' : undefined} />}
      />
    </>
  );
}
