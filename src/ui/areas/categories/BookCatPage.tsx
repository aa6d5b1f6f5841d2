import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link } from 'react-router-dom';
import { CAT_FILTER_DEFAULT, type CategoryView } from '../../../contracts/categories.js';
import type { Paged } from '../../../contracts/auth.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam, useQueryParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import './api.js';
import './categories.css';

const LIMITS = [CAT_FILTER_DEFAULT, 36, 72];

/** /book_cat (001 §2): the category list with its filter (title, limit default 18), `p_` and the filter in the URL; each opens /book_cat/{Id_cat}. */
export default function BookCatPage() {
  const [page, setPage] = usePageParam();
  const [title, setTitle] = useQueryParam('cat_title');
  const [limitRaw, setLimit] = useQueryParam('limit', String(CAT_FILTER_DEFAULT));
  const limit = LIMITS.includes(Number(limitRaw)) ? Number(limitRaw) : CAT_FILTER_DEFAULT;
  const [draft, setDraft] = useState(title);
  const { data, error, loading, reload } = useRpc('cat.get', { p_: page, limit, ...(title ? { cat_title: title } : {}) });
  const paged = data as Paged<CategoryView> | undefined;
  const submit = (e: FormEvent) => { e.preventDefault(); setTitle(draft.trim()); };
  return (
    <>
      <PageTitle title="Categories" />
      <Form className="d-flex flex-wrap gap-2 mb-3" onSubmit={submit} role="search">
        <Form.Control size="sm" style={{ maxWidth: 300 }} placeholder="cat_title" aria-label="cat_title" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />
        <Form.Select size="sm" style={{ maxWidth: 110 }} aria-label="limit" value={limit} onChange={(e) => setLimit(e.currentTarget.value)}>
          {LIMITS.map((l) => <option key={l} value={l}>{l}</option>)}
        </Form.Select>
        <Button size="sm" type="submit">Filter</Button>
      </Form>
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !paged && <Loading />}
      {paged && paged.list.length === 0 && <EmptyState text="No categories match the filter" />}
      {paged && paged.list.length > 0 && (
        <>
          <Pager page={page} count={paged.count} limit={limit} onPage={setPage} className="mb-2" />
          <div className="app-bookcat-grid mb-2">
            {paged.list.map((c) => (
              <Card key={c.Id_cat} body className="app-bookcat-card">
                <Link to={`/book_cat/${c.Id_cat}`} className="fw-semibold">{c.cat_title || `#${c.Id_cat}`}</Link>
                <div className="small text-secondary">Id {c.Id_cat} · books {fmtNumber(c.count_books)} · views {fmtNumber(c.cat_views)}</div>
              </Card>
            ))}
          </div>
        </>
      )}
    </>
  );
}
