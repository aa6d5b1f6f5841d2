import { useEffect, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link, useSearchParams } from 'react-router-dom';
import { BLOCK_RANGES, BOOK_DEFAULT_ID_FILTER, BOOK_PAGE_SIZE, blockRangeLabel, type BookListRow } from '../../../contracts/content.js';
import { useRpc } from '../../api/hooks.js';
import { SelectField, TextField } from '../../kit/fields.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import './api.js';
import './books.css';

const SORTS = [
  { value: 'none', label: 'none' },
  { value: 'id_desc', label: 'Id_book, newest first' },
  { value: 'id_asc', label: 'Id_book, oldest first' },
  { value: 'views_desc', label: 'views, most first' },
];

/** Status of 001 §4: public 0 = Public, else Block (with the range's label). */
export function StatusBadge({ value }: { value: number }) {
  return value === 0 ? <Badge bg="success">Public</Badge> : <Badge bg="danger" title={blockRangeLabel(value)}>Block</Badge>;
}

const columns: Column<BookListRow>[] = [
  { key: 'Id_book', title: 'Id_book', width: 110, render: (r) => <Link to={`/book/edit/open/${r.Id_book}-1`}>{r.Id_book}</Link> },
  { key: 'book_title', title: 'book_title', render: (r) => r.book_title },
  { key: 'book_pages', title: 'Pages', width: 90, render: (r) => fmtNumber(r.book_pages) },
  { key: 'views', title: 'views', width: 110, render: (r) => fmtNumber(r.views) },
  { key: 'public', title: 'Status', width: 100, render: (r) => <StatusBadge value={r.public} /> },
];

/**
 * /book/list (001 §2): books, 20 per page on `p_`, filters in the URL. The Id_book filter starts at
 * 906702 (absent from the URL); a blank field means unset (written `Id_book=` so it stays unset).
 * Blank fields and sort 'none' are not sent.
 */
export default function BookListPage() {
  const [params, setParams] = useSearchParams();
  const [page, setPage] = usePageParam();
  const idParam = params.get('Id_book');
  const filter = {
    Id_book: idParam === null ? String(BOOK_DEFAULT_ID_FILTER) : idParam,
    book_title: params.get('book_title') ?? '',
    public: params.get('public') ?? '',
    sort: params.get('sort') ?? 'none',
  };
  const [form, setForm] = useState(filter);
  const filterKey = JSON.stringify(filter);
  // Back/forward and links change the URL: the panel shows the filter in effect.
  useEffect(() => setForm(JSON.parse(filterKey) as typeof filter), [filterKey]);
  const args: Record<string, string | number> = { p_: page, limit: BOOK_PAGE_SIZE };
  if (/^\d+$/.test(filter.Id_book)) args.Id_book = Number(filter.Id_book);
  if (filter.book_title.trim()) args.book_title = filter.book_title.trim();
  if (/^\d+$/.test(filter.public)) args.public = Number(filter.public);
  if (filter.sort !== 'none') args.sort = filter.sort;
  const list = useRpc('book.getList', args as never);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    next.set('Id_book', form.Id_book.trim());
    if (form.Id_book.trim() === String(BOOK_DEFAULT_ID_FILTER)) next.delete('Id_book');
    if (form.book_title.trim()) next.set('book_title', form.book_title.trim());
    if (form.public !== '') next.set('public', form.public);
    if (form.sort !== 'none') next.set('sort', form.sort);
    setParams(next);
  };
  const reset = () => { setForm({ Id_book: String(BOOK_DEFAULT_ID_FILTER), book_title: '', public: '', sort: 'none' }); setParams(new URLSearchParams()); };

  return (
    <>
      <PageTitle title="Books" />
      <Form onSubmit={apply} className="mb-3" aria-label="Filter">
        <Row className="g-2 align-items-end">
          <Col xs={6} md={2}><TextField name="Id_book" label="Id_book" value={form.Id_book} onChange={(v) => setForm({ ...form, Id_book: v })} help="at most; blank: all" className="mb-0" /></Col>
          <Col xs={12} md={4}><TextField name="book_title" label="book_title" value={form.book_title} onChange={(v) => setForm({ ...form, book_title: v })} className="mb-0" /></Col>
          <Col xs={6} md={2}>
            <SelectField name="public" label="Status" value={form.public} onChange={(v) => setForm({ ...form, public: v })} className="mb-0"
              options={[{ value: '', label: 'any' }, { value: '0', label: 'Public' }, ...BLOCK_RANGES.map((r) => ({ value: String(r.value), label: `Block: ${r.label}` }))]} />
          </Col>
          <Col xs={6} md={2}><SelectField name="sort" label="sort" value={form.sort} onChange={(v) => setForm({ ...form, sort: v })} options={SORTS} className="mb-0" /></Col>
          <Col xs={12} md={2} className="d-flex gap-2">
            <Button type="submit" size="sm">Filter</Button>
            <Button type="button" size="sm" variant="outline-secondary" onClick={reset}>Reset</Button>
          </Col>
        </Row>
      </Form>
      <PaginatedTable
        columns={columns}
        rows={list.data?.list}
        rowKey={(r) => r.Id_book}
        count={list.data?.count ?? 0}
        limit={BOOK_PAGE_SIZE}
        page={page}
        onPage={setPage}
        loading={list.loading}
        error={list.error}
        onRetry={() => void list.reload()}
        empty="No books match the filter"
      />
    </>
  );
}
