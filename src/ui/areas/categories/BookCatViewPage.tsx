import { Link, useParams } from 'react-router-dom';
import { CAT_BOOKS_PAGE, type CatBook } from '../../../contracts/categories.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { ErrorAlert } from '../../kit/states.js';
import './api.js';

const columns: Column<CatBook>[] = [
  { key: 'Id_book', title: 'Id_book', width: 100, render: (b) => <Link to={`/book/edit/open/${b.Id_book}-1`}>{b.Id_book}</Link> },
  { key: 'book_title', title: 'book_title' },
  { key: 'book_pages', title: 'Pages', className: 'text-end', render: (b) => fmtNumber(b.book_pages) },
  { key: 'views', title: 'views', className: 'text-end', render: (b) => fmtNumber(b.views) },
  { key: 'public', title: 'Status', render: (b) => (b.public === 0 ? 'Public' : <span className="text-danger">Block</span>) },
];

/** /book_cat/{Id_cat} (001 §2): the category and its books, 50 per page on `p_`. */
export default function BookCatViewPage() {
  const { Id_cat = '' } = useParams();
  const id = /^\d+$/.test(Id_cat) ? Number(Id_cat) : 0;
  const [page] = usePageParam();
  const { data, error, loading, reload } = useRpc('cat.read', { Id_cat: id, p_: page }, { enabled: id > 0 });
  if (!id) return <><PageTitle title="Category" /><ErrorAlert error={new Error('Cat not found!')} /></>;
  return (
    <>
      <PageTitle
        title={data ? `${data.cat.cat_title} (${data.cat.Id_cat})` : `Category ${id}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/book_cat">All categories</Link>
          <Link className="btn btn-sm btn-outline-secondary" to={`/input_stream/cat/${id}`}>Input stream</Link>
        </>}
      />
      {data?.cat.cat_description && <p className="text-secondary">{data.cat.cat_description}</p>}
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(b) => b.Id_book} count={data?.count ?? 0} limit={CAT_BOOKS_PAGE} loading={loading} error={error} onRetry={reload} empty={<p className="text-secondary">No books in this category</p>} />
    </>
  );
}
