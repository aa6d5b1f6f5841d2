import Button from 'react-bootstrap/Button';
import { Link } from 'react-router-dom';
import { SONNIK_PAGE, type SonnikCatRow } from '../../../contracts/sonnik.js';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import type { SonnikCatList } from './api.js';

const columns: Column<SonnikCatRow>[] = [
  { key: 'Id', title: 'Id', width: 80 },
  { key: 'name', title: 'Name', render: (c) => c.name || '—' },
  { key: 'letter', title: 'letter', width: 70 },
  { key: 'body_length', title: 'body length', className: 'text-end', width: 110, render: (c) => fmtNumber(c.body_length) },
  { key: 'posts', title: 'posts', className: 'text-end', width: 80, render: (c) => fmtNumber(c.posts) },
  { key: 'edit', title: '', width: 70, render: (c) => <Link to={`/sonnik/cat/edit/${c.Id}`}>Edit</Link> },
];

/** /sonnik/cat (001 §2): Id, Name, body length and a link to edit; 20 per page on `p_`; `letter` in the URL filters. */
export default function SonnikCatsPage() {
  const [page] = usePageParam();
  const [letter, setLetter] = useQueryParam('letter');
  const { data, error, loading, reload } = useRpc('sonnik.getCat', { p_: page, limit: SONNIK_PAGE, ...(letter ? { letter } : {}) });
  const list = data as SonnikCatList | undefined;
  return (
    <>
      <PageTitle title={letter ? `Sonnik categories: ${letter}` : 'Sonnik categories'} actions={<>
        <Link className="btn btn-sm btn-outline-secondary" to="/sonnik/index">Sonnik</Link>
        {letter && <Button size="sm" variant="outline-secondary" onClick={() => setLetter('')}>All letters</Button>}
      </>} />
      <PaginatedTable columns={columns} rows={list?.list} rowKey={(c) => c.Id} count={list?.count ?? 0} limit={SONNIK_PAGE} loading={loading} error={error} onRetry={reload} />
    </>
  );
}
