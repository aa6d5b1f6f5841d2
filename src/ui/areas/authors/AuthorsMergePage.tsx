import { useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { AUTHOR_MSG, AUTHORS_MERGE_PAGE, type AuthorView } from '../../../contracts/authors.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useAsync, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { getAuthorList, updateAuthorList, type AuthorRecordInput } from './api.js';
import { MergeHistory } from './MergeHistory.js';
import './authors.css';

type Choice = 'yes' | 'no';
/** Decisions changed on this page: author id -> candidate id -> Yes / No (absent: unchanged). */
type Changes = Record<number, Record<number, Choice | null>>;

const ids = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean).map(Number);

/** The records of POST /author/update_list for the authors with changes (001 §5: the server trims, de-duplicates, drops empty ids and 'not same' ids from new_relay). */
export function recordsOf(list: AuthorView[], changes: Changes): AuthorRecordInput[] {
  const out: AuthorRecordInput[] = [];
  for (const a of list) {
    const ch = changes[a.Id_author];
    if (!ch || !Object.keys(ch).length) continue;
    const yes = new Set(ids(a.new_relay));
    const no = new Set(ids(a.not_relay));
    for (const [k, v] of Object.entries(ch)) {
      const id = Number(k);
      yes.delete(id);
      no.delete(id);
      if (v === 'yes') yes.add(id);
      if (v === 'no') no.add(id);
    }
    out.push({ Id_author: a.Id_author, a_fio: a.a_fio.trim(), new_relay: [...yes].join(','), not_relay: [...no].join(',') });
  }
  return out;
}

/** /author/marge (001 §2, §4, §5): authors with candidate duplicates, 10 per page on `p_`; Yes/No per candidate, 'Saved list', merge and undo. */
export default function AuthorsMergePage() {
  const [page, setPage] = usePageParam();
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const [version, setVersion] = useState(0);
  const { data, error, loading, reload } = useAsync((signal) => getAuthorList({ page, limit: AUTHORS_MERGE_PAGE, only_double: 1 }, signal), `${page}:${version}`);
  const [changes, setChanges] = useState<Changes>({});
  const dirty = Object.values(changes).some((c) => Object.keys(c).length > 0);
  const unsaved = useUnsavedPrompt(dirty);
  const { run, busy } = useAction();

  const choiceOf = (a: AuthorView, candId: number): Choice | null => {
    const ch = changes[a.Id_author];
    if (ch && candId in ch) return ch[candId];
    if (ids(a.new_relay).includes(candId)) return 'yes';
    if (ids(a.not_relay).includes(candId)) return 'no';
    return null;
  };
  const choose = (a: AuthorView, candId: number, c: Choice, on: boolean) =>
    setChanges((prev) => ({ ...prev, [a.Id_author]: { ...prev[a.Id_author], [candId]: on ? c : null } }));

  const save = async () => {
    if (!data) return;
    const records = recordsOf(data.list, changes);
    const r = await run(() => updateAuthorList(records), AUTHOR_MSG.savedOk);
    if (r) { setChanges({}); unsaved.allowNext(); setVersion((v) => v + 1); }
  };
  const merge = async (a: AuthorView) => {
    const r = await run(() => rpc('author.merge', { Id_author: a.Id_author }), (m) => `Merged into ${m.kept_fio}: ${plural(m.books_count, 'book')} moved`);
    if (r) setVersion((v) => v + 1);
  };
  const pages = useMemo(() => data?.count ?? 0, [data]);

  return (
    <>
      <PageTitle
        title="Authors merge"
        actions={dirty && canEdit ? <Button size="sm" onClick={save} disabled={busy}>{busy && <Spinner size="sm" className="me-1" />}{AUTHOR_MSG.savedList}</Button> : undefined}
      />
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {data && data.list.length === 0 && <EmptyState title="No duplicates" text="No author has a candidate duplicate left" />}
      {data && data.list.length > 0 && (
        <>
          <Pager page={page} count={pages} limit={AUTHORS_MERGE_PAGE} onPage={setPage} className="mb-2" />
          {data.list.map((a) => {
            const marked = ids(a.new_relay);
            const authorDirty = !!changes[a.Id_author] && Object.keys(changes[a.Id_author]).length > 0;
            return (
              <Card key={a.Id_author} className="mb-2 app-author-card" data-author={a.Id_author}>
                <Card.Header className="py-2 d-flex flex-wrap align-items-center gap-2">
                  <span className="fw-semibold">{a.a_fio}</span>
                  <span className="text-secondary small">Id {a.Id_author} · {plural(a.count_books, 'book')}</span>
                  {a.opublic !== 0 && <Badge bg="danger">Block</Badge>}
                  {canEdit && marked.length > 0 && (
                    <ConfirmButton
                      className="ms-auto" label={`Merge ${marked.length}`} variant="outline-primary" confirmVariant="primary" disabled={authorDirty || busy}
                      text={`Merge ${marked.length} author(s) marked 'Yes' into ${a.a_fio}? Their books move to ${a.a_fio}; the merge can be undone from the history below.`}
                      onConfirm={() => merge(a)}
                    />
                  )}
                </Card.Header>
                <Card.Body className="py-2">
                  <div className="small text-secondary mb-1">{AUTHOR_MSG.question}</div>
                  {a.candidates.map((c) => {
                    const ch = choiceOf(a, c.Id_author);
                    return (
                      <div key={c.Id_author} className="d-flex flex-wrap align-items-center gap-3 app-author-cand" data-cand={c.Id_author}>
                        <span className="app-author-cand-name">{c.a_fio} <span className="text-secondary small">(Id {c.Id_author}, {plural(c.count_books, 'book')})</span></span>
                        <span className="small">{c.reasons.map((r) => <Badge key={r} bg="light" text="dark" className="me-1 border">{r}</Badge>)}</span>
                        <Form.Check inline type="checkbox" id={`y-${a.Id_author}-${c.Id_author}`} label="Yes" disabled={!canEdit} checked={ch === 'yes'} onChange={(e) => choose(a, c.Id_author, 'yes', e.currentTarget.checked)} />
                        <Form.Check inline type="checkbox" id={`n-${a.Id_author}-${c.Id_author}`} label="No" disabled={!canEdit} checked={ch === 'no'} onChange={(e) => choose(a, c.Id_author, 'no', e.currentTarget.checked)} />
                      </div>
                    );
                  })}
                </Card.Body>
              </Card>
            );
          })}
          <Pager page={page} count={pages} limit={AUTHORS_MERGE_PAGE} onPage={setPage} />
        </>
      )}
      <MergeHistory version={version} canEdit={canEdit} onChange={() => setVersion((v) => v + 1)} />
    </>
  );
}
