import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { Link } from 'react-router-dom';
import { CATS_PAGE, type CategoryView } from '../../../contracts/categories.js';
import { useRpc } from '../../api/hooks.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import './api.js';

const columns: Column<CategoryView>[] = [
  { key: 'Id_cat', title: 'Id', width: 80, render: (c) => <Link to={`/book/categories/edit/${c.Id_cat}`}>{c.Id_cat}</Link> },
  { key: 'cat_title', title: 'cat_title', render: (c) => <Link to={`/book/categories/edit/${c.Id_cat}`}>{c.cat_title || '—'}</Link> },
  { key: 'count_books', title: 'count_books', className: 'text-end', render: (c) => fmtNumber(c.count_books) },
  { key: 'cat_views', title: 'cat_views', className: 'text-end', render: (c) => fmtNumber(c.cat_views) },
  { key: 'rating_day', title: 'rating_day', className: 'text-end', render: (c) => fmtNumber(c.rating_day) },
  { key: 'cron_time', title: 'cron_time', render: (c) => (c.cron_time ? fmtDateTime(c.cron_time) : '—') },
];

/** /book/categories (001 §2): Id, cat_title, count_books, cat_views, rating_day, cron_time; 20 per page on `p_`; title filter in the URL. */
export default function CategoriesPage() {
  const [page] = usePageParam();
  const [title, setTitle] = useQueryParam('cat_title');
  const [draft, setDraft] = useState(title);
  const { data, error, loading, reload } = useRpc('book_cats.get', { p_: page, limit: CATS_PAGE, ...(title ? { cat_title: title } : {}) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTitle(draft.trim());
  };
  return (
    <>
      <PageTitle title="Book categories" actions={<Link className="btn btn-sm btn-outline-primary" to="/book/categories/edit/new">Add category</Link>} />
      <Form className="d-flex gap-2 mb-3" onSubmit={submit} role="search">
        <Form.Control size="sm" style={{ maxWidth: 320 }} placeholder="cat_title" aria-label="cat_title" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />
        <Button size="sm" type="submit">Filter</Button>
        {title && <Button size="sm" variant="outline-secondary" onClick={() => { setDraft(''); setTitle(''); }}>Clear</Button>}
      </Form>
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(c) => c.Id_cat} count={data?.count ?? 0} limit={CATS_PAGE} loading={loading} error={error} onRetry={reload} />
    </>
  );
}
