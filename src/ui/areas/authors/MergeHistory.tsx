import Badge from 'react-bootstrap/Badge';
import Card from 'react-bootstrap/Card';
import Table from 'react-bootstrap/Table';
import { AUTHORS_MERGE_PAGE } from '../../../contracts/authors.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { Pager, usePageParam } from '../../kit/pagination.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';

/** The merge history with Undo (behind a confirm); its page in `h_` so the author list keeps `p_`. */
export function MergeHistory({ version, onChange, canEdit }: { version: number; onChange: () => void; canEdit: boolean }) {
  const [page, setPage] = usePageParam('h_');
  // Reloads when the page merged something (version) as well as on paging.
  const { data, error, loading, reload } = useAsync(() => rpc('author.mergeHistory', { p_: page }), `${page}:${version}`);
  const { run } = useAction();
  return (
    <Card className="mt-4">
      <Card.Header className="py-2 d-flex align-items-center gap-2">
        <span className="fw-semibold me-auto">Merge history</span>
        <button type="button" className="btn btn-sm btn-link p-0" onClick={() => void reload()}>Refresh</button>
      </Card.Header>
      <Card.Body className="p-2">
        <ErrorAlert error={error} onRetry={reload} />
        {loading && !data && <Loading />}
        {data && data.list.length === 0 && <p className="text-secondary mb-0">No merges yet</p>}
        {data && data.list.length > 0 && (
          <>
            <Table size="sm" className="align-middle mb-2 app-merge-history">
              <thead className="table-light"><tr><th>#</th><th>Kept</th><th>Merged</th><th className="text-end">Books</th><th>By</th><th>When</th><th /></tr></thead>
              <tbody>
                {data.list.map((m) => (
                  <tr key={m.Id} data-merge={m.Id}>
                    <td>{m.Id}</td>
                    <td>{m.kept_fio || '—'} <span className="text-secondary">({m.kept_id})</span></td>
                    <td>{m.merged.map((a) => `${a.a_fio} (${a.Id_author})`).join(', ')}</td>
                    <td className="text-end">{m.books_count}</td>
                    <td>{m.user_name}</td>
                    <td>{fmtDateTime(m.created_at)}</td>
                    <td className="text-end">
                      {m.undone_at ? <Badge bg="secondary">Undone {fmtDateTime(m.undone_at)}</Badge> : canEdit && (
                        <ConfirmButton
                          label="Undo" variant="outline-warning" confirmVariant="warning"
                          text={`Undo merge #${m.Id}? ${m.merged.map((a) => a.a_fio).join(', ')} come back with the books that are still with ${m.kept_fio}.`}
                          onConfirm={async () => {
                            const r = await run(() => rpc('author.undoMerge', { Id: m.Id }), (x) => `Merge undone: ${plural(x.books_restored, 'book')} returned`);
                            if (r) { await reload(); onChange(); }
                          }}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <Pager page={page} count={data.count} limit={AUTHORS_MERGE_PAGE} onPage={setPage} />
          </>
        )}
      </Card.Body>
    </Card>
  );
}
