import { lazy, Suspense } from 'react';
import Card from 'react-bootstrap/Card';
import { Link, useParams } from 'react-router-dom';
import { STREAM_CAT_BOOKS_PAGE } from '../../../contracts/input-stream.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { ctrText, posText, StreamToolbar, useDays } from './parts.js';
import './api.js';
import './input-stream.css';

const StreamBookCharts = lazy(() => import('./StreamBookCharts.js'));

/** /input_stream/cat/{id} (001 §2): per book of the category three area charts (position, shows/clicks, CTR%); `id` and `p_`, 50 books per page. */
export default function StreamCatPage() {
  const { id = '' } = useParams();
  const catId = /^\d+$/.test(id) ? Number(id) : 0;
  const [page, setPage] = usePageParam();
  const [days, setDays] = useDays();
  const { data, error, loading, reload } = useRpc('stream.cat', { id: catId, p_: page, days }, { enabled: catId > 0 });
  if (!catId) return <><PageTitle title="Input stream" /><ErrorAlert error={new Error('Cat not found!')} /></>;
  return (
    <>
      <PageTitle title={data ? `Input stream: ${data.cat_title}` : `Input stream: category ${catId}`} actions={<Link className="btn btn-sm btn-outline-secondary" to={`/book_cat/${catId}`}>Category books</Link>} />
      <StreamToolbar days={days} onDays={setDays} />
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {data && data.list.length === 0 && <EmptyState text="No books of this category were reported in this window" />}
      {data && data.list.length > 0 && (
        <>
          <Pager page={page} count={data.count} limit={STREAM_CAT_BOOKS_PAGE} onPage={setPage} className="mb-2" />
          {data.list.map((b) => (
            <Card key={b.Id_book} className="mb-2 app-stream-book" data-book={b.Id_book}>
              <Card.Header className="py-1 small d-flex flex-wrap gap-3">
                <Link to={`/book/edit/open/${b.Id_book}-1`} className="fw-semibold">{b.book_title || `#${b.Id_book}`}</Link>
                <span>Id {b.Id_book}</span>
                <span>Shows {fmtNumber(b.shows)}</span>
                <span>Clicks {fmtNumber(b.clicks)}</span>
                <span>CTR {ctrText(b.ctr)}</span>
                <span>Avg position {posText(b.pos)}</span>
              </Card.Header>
              <Card.Body className="p-1">
                <Suspense fallback={<Loading text="Loading charts…" />}>
                  <StreamBookCharts book={b} step={data.step} />
                </Suspense>
              </Card.Body>
            </Card>
          ))}
          {data.list.length > 5 && <Pager page={page} count={data.count} limit={STREAM_CAT_BOOKS_PAGE} onPage={setPage} />}
        </>
      )}
    </>
  );
}
