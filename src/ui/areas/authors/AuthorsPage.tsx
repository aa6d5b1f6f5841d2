import { useCallback, useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { AUTHOR_MSG, AUTHORS_FILTER_DEFAULT, AUTHORS_PAGE, type AuthorView } from '../../../contracts/authors.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useAsync, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { plural } from '../../kit/format.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { getAuthorList, updateAuthorList } from './api.js';
import { Link } from 'react-router-dom';

const LIMITS = [AUTHORS_FILTER_DEFAULT, AUTHORS_PAGE, 50];

/** One author's name, editable in place for role 10 and stronger ('Save ok'). */
function NameCell({ a, canEdit, onSaved, onDirty }: { a: AuthorView; canEdit: boolean; onSaved: () => void; onDirty: (Id: number, dirty: boolean) => void }) {
  const [v, setV] = useState(a.a_fio);
  const { run, busy } = useAction();
  const changed = v.trim() !== a.a_fio && v.trim() !== '';
  // The page asks before unsaved names are left (one prompt for every cell).
  useEffect(() => {
    onDirty(a.Id_author, canEdit && changed);
    return () => onDirty(a.Id_author, false);
  }, [a.Id_author, canEdit, changed, onDirty]);
  if (!canEdit) return <>{a.a_fio}</>;
  return (
    <Form className="d-flex gap-1" onSubmit={async (e) => { e.preventDefault(); if (changed && (await run(() => updateAuthorList([{ Id_author: a.Id_author, a_fio: v.trim() }]), AUTHOR_MSG.saveOk))) onSaved(); }}>
      <Form.Control size="sm" aria-label={`a_fio ${a.Id_author}`} value={v} onChange={(e) => setV(e.currentTarget.value)} />
      {changed && <Button size="sm" type="submit" disabled={busy}>Save</Button>}
    </Form>
  );
}

/**
 * /content/authors (001 §2, §9): all authors, 20 per page on `p_`; the filter (name, with its limit,
 * default 10) in the URL. A list that cannot be read says 'getAuthor list undefined'.
 */
export default function AuthorsPage() {
  const [page] = usePageParam();
  const [name, setName] = useQueryParam('a_fio');
  const [limitRaw, setLimit] = useQueryParam('limit');
  const limit = LIMITS.includes(Number(limitRaw)) ? Number(limitRaw) : AUTHORS_PAGE;
  const [draft, setDraft] = useState({ name, limit: String(limitRaw ? limit : AUTHORS_FILTER_DEFAULT) });
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const { data, error, loading, reload } = useAsync((signal) => getAuthorList({ page, limit, ...(name ? { a_fio: name } : {}) }, signal), `${page}:${limit}:${name}`);
  const { run } = useAction();
  const [dirtyIds, setDirtyIds] = useState<ReadonlySet<number>>(() => new Set());
  const onDirty = useCallback((Id: number, dirty: boolean) => setDirtyIds((prev) => {
    if (prev.has(Id) === dirty) return prev;
    const next = new Set(prev);
    if (dirty) next.add(Id);
    else next.delete(Id);
    return next;
  }), []);
  useUnsavedPrompt(dirtyIds.size > 0);
  const submit = (e: FormEvent) => { e.preventDefault(); setName(draft.name.trim()); setLimit(draft.limit); };

  const columns: Column<AuthorView>[] = [
    { key: 'Id_author', title: 'Id_author', width: 100 },
    { key: 'a_fio', title: 'a_fio', render: (a) => <NameCell key={`${a.Id_author}:${a.a_fio}`} a={a} canEdit={canEdit} onSaved={() => void reload()} onDirty={onDirty} /> },
    { key: 'count_books', title: 'Books', className: 'text-end', width: 80 },
    { key: 'candidates', title: 'Duplicates', width: 120, render: (a) => (a.candidates.length ? <Link to={`/author/marge`}>{plural(a.candidates.length, 'candidate')}</Link> : '—') },
    { key: 'opublic', title: 'Status', width: 90, render: (a) => (a.opublic === 0 ? 'Public' : <span className="text-danger">Block</span>) },
    {
      key: 'act', title: '', width: 110, className: 'text-end',
      render: (a) => canEdit && (
        <ConfirmButton
          label={a.opublic === 0 ? 'Block' : 'Unblock'} variant={a.opublic === 0 ? 'outline-danger' : 'outline-success'} confirmVariant={a.opublic === 0 ? 'danger' : 'success'}
          text={a.opublic === 0 ? `Block ${a.a_fio}?` : `Make ${a.a_fio} public again?`}
          onConfirm={async () => { if (await run(() => rpc('author.setBlock', { Id_author: a.Id_author, opublic: a.opublic === 0 ? 1 : 0 }), (r) => r.message)) await reload(); }}
        />
      ),
    },
  ];
  return (
    <>
      <PageTitle title="Authors" actions={<Link className="btn btn-sm btn-outline-primary" to="/author/marge">Authors merge</Link>} />
      <Form className="d-flex flex-wrap gap-2 mb-3" onSubmit={submit} role="search">
        <Form.Control size="sm" style={{ maxWidth: 300 }} placeholder="a_fio" aria-label="a_fio" value={draft.name} onChange={(e) => setDraft((d) => ({ ...d, name: e.currentTarget.value }))} />
        <Form.Select size="sm" style={{ maxWidth: 100 }} aria-label="limit" value={draft.limit} onChange={(e) => setDraft((d) => ({ ...d, limit: e.currentTarget.value }))}>
          {LIMITS.map((l) => <option key={l} value={l}>{l}</option>)}
        </Form.Select>
        <Button size="sm" type="submit">Filter</Button>
      </Form>
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(a) => a.Id_author} count={data?.count ?? 0} limit={limit} loading={loading} error={error} onRetry={reload} />
    </>
  );
}
