import { Link } from 'react-router-dom';
import { JOKE_CATS_PAGE, type JokeCatRow } from '../../../contracts/jokes.js';
import { useRest } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';

const columns: Column<JokeCatRow>[] = [
  { key: 'cid', title: 'cid', width: 80, render: (c) => <Link to={`/jokes/cat_edit/${c.cid}`}>{c.cid}</Link> },
  { key: 'title', title: 'title', render: (c) => <Link to={`/jokes/cat_edit/${c.cid}`}>{c.title || '—'}</Link> },
  { key: 'meta_h1', title: 'meta_h1', render: (c) => c.meta_h1 },
  { key: 'meta_title', title: 'meta_title', render: (c) => c.meta_title },
  { key: 'body_length', title: 'cat_body length', className: 'text-end', width: 130, render: (c) => fmtNumber(c.body_length) },
];

/** /content/cat_jokes (001 §2): the joke categories, 15 per page on `p_`, each opening its editor. */
export default function JokeCatsPage() {
  const [page] = usePageParam();
  const { data, error, loading, reload } = useRest<{ list: JokeCatRow[]; count: number }>('/jokes/cat/list', { page, limit: JOKE_CATS_PAGE });
  return (
    <>
      <PageTitle title="Jokes categories" />
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(c) => c.cid} count={data?.count ?? 0} limit={JOKE_CATS_PAGE} loading={loading} error={error} onRetry={reload}
        empty="No joke categories yet: they come from the network through the content import (entity joke_cats)." />
    </>
  );
}
