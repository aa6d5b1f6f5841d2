import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { Link } from 'react-router-dom';
import { STREAM_ITEMS_PAGE, type StreamItemRow } from '../../../contracts/input-stream.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { ctrText, posText, StreamToolbar, useDays } from './parts.js';
import './api.js';

const columns: Column<StreamItemRow>[] = [
  { key: 'Id_book', title: 'Id_book', width: 90, render: (r) => <Link to={`/book/edit/open/${r.Id_book}-1`}>{r.Id_book}</Link> },
  { key: 'book_title', title: 'book_title' },
  { key: 'cat', title: 'Category', render: (r) => <Link to={`/input_stream/cat/${r.Id_cat}`}>{r.cat_title || `#${r.Id_cat}`}</Link> },
  { key: 'shows', title: 'Shows', className: 'text-end', render: (r) => fmtNumber(r.shows) },
  { key: 'clicks', title: 'Clicks', className: 'text-end', render: (r) => fmtNumber(r.clicks) },
  { key: 'ctr', title: 'CTR', className: 'text-end', render: (r) => ctrText(r.ctr) },
  { key: 'pos', title: 'Avg position', className: 'text-end', render: (r) => posText(r.pos) },
];
const idOrNone = (s: string) => (/^\d+$/.test(s) && Number(s) > 0 ? Number(s) : undefined);

/** /input_stream/items: books per category with their stats (20 per page); Id_book, Id_cat and days filters in the URL. */
export default function StreamItemsPage() {
  const [page] = usePageParam();
  const [days, setDays] = useDays();
  const [book, setBook] = useQueryParam('Id_book');
  const [cat, setCat] = useQueryParam('Id_cat');
  const [draft, setDraft] = useState({ book, cat });
  const Id_book = idOrNone(book);
  const Id_cat = idOrNone(cat);
  const { data, error, loading, reload } = useRpc('stream.items', { p_: page, days, ...(Id_book ? { Id_book } : {}), ...(Id_cat ? { Id_cat } : {}) });
  const submit = (e: FormEvent) => { e.preventDefault(); setBook(draft.book.trim()); setCat(draft.cat.trim()); };
  return (
    <>
      <PageTitle title="Input stream: items" />
      <StreamToolbar days={days} onDays={setDays}>
        <Form className="d-flex gap-2" onSubmit={submit} role="search">
          <Form.Control size="sm" style={{ width: 110 }} inputMode="numeric" placeholder="Id_book" aria-label="Id_book" value={draft.book} onChange={(e) => setDraft((d) => ({ ...d, book: e.currentTarget.value }))} />
          <Form.Control size="sm" style={{ width: 110 }} inputMode="numeric" placeholder="Id_cat" aria-label="Id_cat" value={draft.cat} onChange={(e) => setDraft((d) => ({ ...d, cat: e.currentTarget.value }))} />
          <Button size="sm" type="submit">Filter</Button>
        </Form>
      </StreamToolbar>
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(r) => `${r.Id_cat}-${r.Id_book}`} count={data?.count ?? 0} limit={STREAM_ITEMS_PAGE} loading={loading} error={error} onRetry={reload} empty={<p className="text-secondary">No item statistics in this window</p>} />
    </>
  );
}
