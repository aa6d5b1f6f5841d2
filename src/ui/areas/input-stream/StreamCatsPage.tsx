import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { Link } from 'react-router-dom';
import { STREAM_ITEMS_PAGE, type StreamCatRow } from '../../../contracts/input-stream.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { ctrText, posText, StreamToolbar, useDays } from './parts.js';
import './api.js';

const columns: Column<StreamCatRow>[] = [
  { key: 'Id_cat', title: 'Id', width: 80, render: (c) => <Link to={`/input_stream/cat/${c.Id_cat}`}>{c.Id_cat}</Link> },
  { key: 'cat_title', title: 'Category', render: (c) => <Link to={`/input_stream/cat/${c.Id_cat}`}>{c.cat_title || `#${c.Id_cat}`}</Link> },
  { key: 'books', title: 'Books', className: 'text-end', render: (c) => fmtNumber(c.books) },
  { key: 'shows', title: 'Shows', className: 'text-end', render: (c) => fmtNumber(c.shows) },
  { key: 'clicks', title: 'Clicks', className: 'text-end', render: (c) => fmtNumber(c.clicks) },
  { key: 'ctr', title: 'CTR', className: 'text-end', render: (c) => ctrText(c.ctr) },
  { key: 'pos', title: 'Avg position', className: 'text-end', render: (c) => posText(c.pos) },
];

/** /input_stream/cat: categories with their stats (20 per page), title filter and days in the URL. */
export default function StreamCatsPage() {
  const [page] = usePageParam();
  const [days, setDays] = useDays();
  const [q, setQ] = useQueryParam('q');
  const [draft, setDraft] = useState(q);
  const { data, error, loading, reload } = useRpc('stream.cats', { p_: page, days, ...(q ? { q } : {}) });
  const submit = (e: FormEvent) => { e.preventDefault(); setQ(draft.trim()); };
  return (
    <>
      <PageTitle title="Input stream: categories" />
      <StreamToolbar days={days} onDays={setDays}>
        <Form className="d-flex gap-2" onSubmit={submit} role="search">
          <Form.Control size="sm" placeholder="Category title" aria-label="Category title" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />
          <Button size="sm" type="submit">Filter</Button>
        </Form>
      </StreamToolbar>
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(c) => c.Id_cat} count={data?.count ?? 0} limit={STREAM_ITEMS_PAGE} loading={loading} error={error} onRetry={reload} empty={<p className="text-secondary">No category statistics in this window</p>} />
    </>
  );
}
