import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link } from 'react-router-dom';
import { COMPILATION_TYPE_LABEL, COMPILATIONS_PAGE, type CompilationList, type CompilationType } from '../../../contracts/compilations.js';
import { useRest } from '../../api/hooks.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam, useQueryParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import './compilations.css';

/** /compilation (001 §2): cards with Edit, 'Create new', `q` and `p_` in the URL, 20 per page, newest first. */
export default function CompilationListPage() {
  const [page, setPage] = usePageParam();
  const [q, setQ] = useQueryParam('q');
  const [draft, setDraft] = useState(q);
  const { data, error, loading, reload } = useRest<CompilationList>('/compilation/get_list', {
    page, limit: COMPILATIONS_PAGE, getCount: 1, joinItems: 0, sort: 'time_desc', ...(q ? { q } : {}),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQ(draft.trim());
  };
  return (
    <>
      <PageTitle title="Compilations" actions={<Link className="btn btn-sm btn-primary" to="/compilation/add">Create new</Link>} />
      <Form className="d-flex gap-2 mb-3" onSubmit={submit} role="search">
        <Form.Control size="sm" style={{ maxWidth: 320 }} placeholder="Title or id" aria-label="q" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />
        <Button size="sm" type="submit">Search</Button>
        {q && <Button size="sm" variant="outline-secondary" onClick={() => { setDraft(''); setQ(''); }}>Clear</Button>}
      </Form>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <Loading />}
      {data && !data.list.length && <EmptyState text={q ? `Nothing matches "${q}"` : 'No compilations yet'} />}
      <div className="app-compilation-cards mb-3" data-testid="compilation-cards">
        {data?.list.map((c) => (
          <Card key={c.Id_compilation} className="app-compilation-card" data-id={c.Id_compilation}>
            <Card.Body className="d-flex flex-column">
              <Card.Title className="h6 mb-1 text-break">{c.title_short || c.meta_title}</Card.Title>
              <Card.Subtitle className="small text-secondary mb-2 text-break">{c.meta_h1}</Card.Subtitle>
              <div className="small text-secondary mb-2">
                #{c.Id_compilation} · {COMPILATION_TYPE_LABEL[c.type as CompilationType] ?? c.type} · {plural(c.items_count, 'item')}
                {c.time_update && <> · {fmtDateTime(c.time_update)}</>}
              </div>
              <div className="mt-auto">
                <Link className="btn btn-sm btn-outline-primary" to={`/compilation/edit/${c.Id_compilation}`} aria-label={`Edit ${c.Id_compilation}`}>Edit</Link>
              </div>
            </Card.Body>
          </Card>
        ))}
      </div>
      <Pager page={page} count={data?.count ?? 0} limit={COMPILATIONS_PAGE} onPage={setPage} unknown={!data} loading={loading} />
    </>
  );
}
