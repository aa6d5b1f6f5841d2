import { useEffect, useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { useNavigate, useParams } from 'react-router-dom';
import { BLOCK_RANGES, BookUpdateArgs, CONTENT_MSG, type BookDetail } from '../../../contracts/content.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { ApiError } from '../../api/http.js';
import { useAsync, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';
import './books.css';
import { StatusBadge } from './BookListPage.js';

/** `Id_book` of the route: '123' or 'bookId-pageNumber' (external links use '{Id_book}-1'). */
export function parseBookRef(s: string | undefined): { id: number; page: number } | null {
  const m = /^\s*(\d{1,10})(?:-(\d{1,9}))?\s*$/.exec(s ?? '');
  if (!m) return null;
  const id = Number(m[1]);
  const page = m[2] ? Number(m[2]) : 1;
  return id >= 1 && id <= 2_147_483_647 && page >= 1 ? { id, page } : null;
}

const STATUS_OPTIONS = [{ value: '0', label: 'Public' }, ...BLOCK_RANGES.map((r) => ({ value: String(r.value), label: `Block: ${r.label}` }))];
type BookForm = Record<'book_title' | 'book_description' | 'cover' | 'book_owner' | 'book_cat' | 'public' | 'git' | 'git_public' | 'show_procent' | 'book_pages', string>;
const formOf = (b: BookDetail): BookForm => ({
  book_title: b.book_title, book_description: b.book_description ?? '', cover: b.cover, book_owner: String(b.book_owner), book_cat: String(b.book_cat),
  public: String(b.public), git: b.git, git_public: String(b.git_public), show_procent: String(b.show_procent), book_pages: String(b.book_pages),
});

/** /book/edit: asks for a book id (or 'bookId-pageNumber') and opens it. */
export function BookOpenForm() {
  const nav = useNavigate();
  const [ref, setRef] = useState('');
  const [err, setErr] = useState<string | undefined>();
  const open = (e: FormEvent) => {
    e.preventDefault();
    const r = parseBookRef(ref);
    if (!r) return setErr(CONTENT_MSG.bookNotFoundBang);
    nav(`/book/edit/open/${r.id}-${r.page}`);
  };
  return (
    <Form onSubmit={open} className="d-flex gap-2 align-items-start mb-3" aria-label="Open book">
      <TextField name="book_ref" value={ref} onChange={(v) => { setRef(v); setErr(undefined); }} placeholder="Id_book or Id_book-page" error={err} className="mb-0" />
      <Button type="submit" size="sm">Open</Button>
    </Form>
  );
}

/**
 * /book/edit and /book/edit/open/{Id_book} (001 §2, §5, §6): the book's fields and its pages page by
 * page. show_procent, book_pages, the page body editor and Delete are shown to role 1 only (the
 * server refuses them to others as well); others get the reduced form. The block records answer
 * "why is this book blocked".
 */
export default function BookEditPage() {
  const { Id_book } = useParams();
  const nav = useNavigate();
  const session = useSession();
  const admin = roleAllows(session?.role, Role.admin);
  const ref = Id_book === undefined ? null : parseBookRef(Id_book);
  const book = useAsync((signal) => (ref ? rpc('book.get', { Id_book: ref.id }, { signal }) : Promise.resolve(null)), `b${ref?.id}`);
  const page = useAsync((signal) => (ref ? rpc('book.getPages', { Id: ref.id, num: ref.page }, { signal }) : Promise.resolve(null)), `p${ref?.id}-${ref?.page}`);
  const [form, setForm] = useState<BookForm | null>(null);
  const [body, setBody] = useState('');
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  useEffect(() => { if (book.data) setForm(formOf(book.data)); }, [book.data]);
  useEffect(() => { setBody(page.data?.body ?? ''); }, [page.data]);
  // Unsaved edits ask before they are left (menu, Back, another book). Another page of the same book
  // keeps the book's fields, so only the page body's edits count there.
  const formDirty = !!form && !!book.data && JSON.stringify(form) !== JSON.stringify(formOf(book.data));
  const bodyDirty = admin && !!page.data && body !== (page.data.body ?? '');
  const unsaved = useUnsavedPrompt(formDirty || bodyDirty, {
    isLeaving: (from, to) => {
      if (from.pathname === to.pathname && from.search === to.search) return false;
      if (bodyDirty) return true;
      const m = /^\/book\/edit\/open\/([^/]+)$/.exec(to.pathname);
      return !m || parseBookRef(decodeURIComponent(m[1]))?.id !== ref?.id;
    },
  });

  if (Id_book === undefined) return (<><PageTitle title="Book edit" /><BookOpenForm /></>);
  if (!ref) return (<><PageTitle title="Book edit" /><BookOpenForm /><Alert variant="danger">{CONTENT_MSG.bookNotFoundBang}</Alert></>);
  if (book.loading && !book.data) return <Loading />;
  if (book.error) {
    const missing = book.error instanceof ApiError && book.error.code === 404;
    return (<><PageTitle title="Book edit" /><BookOpenForm />{missing ? <Alert variant="warning">{CONTENT_MSG.bookNotFound}</Alert> : <ErrorAlert error={book.error} onRetry={() => void book.reload()} />}</>);
  }
  const b = book.data;
  if (!b || !form) return <Loading />;
  const set = (k: keyof BookForm) => (v: string) => setForm({ ...form, [k]: v });
  const pages = Math.max(b.pages, page.data?.pages ?? 0);

  const save = async () => {
    const args: Record<string, unknown> = {
      Id_book: b.Id_book, book_title: form.book_title, book_description: form.book_description, cover: form.cover, book_owner: form.book_owner,
      book_cat: form.book_cat, public: form.public, git: form.git, git_public: form.git_public,
    };
    if (admin) Object.assign(args, { show_procent: form.show_procent, book_pages: form.book_pages });
    const bad = validate(BookUpdateArgs, args);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('book.update', args as never), (x) => x.message, (e) => errs.take(e));
    if (r) await book.reload();
  };
  const savePage = async () => {
    const r = await run(() => rpc('book.updatePage', { bid: b.Id_book, num: ref.page, body }), (x) => x.message);
    if (r) await page.reload();
  };
  const remove = async () => {
    const r = await run(() => rpc('book.deleteBook', { Id_book: b.Id_book }), (x) => x.message);
    if (r) { unsaved.allowNext(); nav('/book/list'); }
  };

  return (
    <>
      <PageTitle title={`Book ${b.Id_book}`} actions={<StatusBadge value={b.public} />} />
      <BookOpenForm />
      <Row className="g-3">
        <Col lg={6}>
          <Card>
            <Card.Body>
              <Form onSubmit={(e) => { e.preventDefault(); }} aria-label="Book">
                <TextField name="book_title" label="book_title" value={form.book_title} onChange={set('book_title')} error={errs.errors.book_title} />
                <TextField name="book_description" label="book_description" rows={3} value={form.book_description} onChange={set('book_description')} error={errs.errors.book_description} />
                <TextField name="cover" label="cover" value={form.cover} onChange={set('cover')} error={errs.errors.cover} />
                <Row className="g-2">
                  <Col sm={6}><TextField name="book_owner" label={`book_owner${b.author ? ` (${b.author})` : ''}`} value={form.book_owner} onChange={set('book_owner')} error={errs.errors.book_owner} /></Col>
                  <Col sm={6}><TextField name="book_cat" label="book_cat" value={form.book_cat} onChange={set('book_cat')} error={errs.errors.book_cat} /></Col>
                  <Col sm={6}><SelectField name="public" label="public" value={form.public} onChange={set('public')} options={STATUS_OPTIONS.some((o) => o.value === form.public) ? STATUS_OPTIONS : [...STATUS_OPTIONS, { value: form.public, label: `Block: ${form.public}` }]} /></Col>
                  <Col sm={6}><TextField name="views" label="views" value={fmtNumber(b.views)} onChange={() => undefined} disabled /></Col>
                  <Col sm={6}><TextField name="git" label="git" value={form.git} onChange={set('git')} error={errs.errors.git} /></Col>
                  <Col sm={6}><TextField name="git_public" label="git_public" value={form.git_public} onChange={set('git_public')} error={errs.errors.git_public} /></Col>
                  {admin && (
                    <>
                      <Col sm={6}><TextField name="show_procent" label="show_procent" value={form.show_procent} onChange={set('show_procent')} error={errs.errors.show_procent} /></Col>
                      <Col sm={6}><TextField name="book_pages" label="book_pages" value={form.book_pages} onChange={set('book_pages')} error={errs.errors.book_pages} /></Col>
                    </>
                  )}
                </Row>
                <div className="d-flex gap-2 mt-2">
                  <ConfirmButton label="Save" variant="primary" confirmVariant="primary" text={CONTENT_MSG.confirmSave} onConfirm={save} disabled={busy} />
                  {admin && <ConfirmButton label="Delete" text={CONTENT_MSG.confirmDelete} onConfirm={remove} disabled={busy} />}
                </div>
              </Form>
            </Card.Body>
          </Card>
          <Card className="mt-3">
            <Card.Header>Block history</Card.Header>
            <Card.Body>
              {b.blocks.length === 0 ? <div className="text-secondary small">{b.public === 0 ? 'Never blocked from this console.' : 'Blocked, but no block record names this book (set by an import or before the console).'}</div> : (
                <Table size="sm" className="mb-0" aria-label="Block history">
                  <thead><tr><th>When</th><th>Range</th><th>Who</th><th>Mail body</th></tr></thead>
                  <tbody>
                    {b.blocks.map((k) => (
                      <tr key={k.Id}>
                        <td className="text-nowrap">{fmtDateTime(k.created_at)}</td>
                        <td>{k.range_label}{k.kind === 'author' ? ' (author)' : ''}{k.variant === 'git' ? ' (git)' : ''}</td>
                        <td>{k.user_name}</td>
                        <td><div className="book-block-mail">{k.mail_body || '—'}</div></td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              )}
            </Card.Body>
          </Card>
        </Col>
        <Col lg={6}>
          <Card>
            <Card.Header className="d-flex align-items-center gap-2">
              <span className="me-auto">Page {ref.page}{pages ? ` of ${pages}` : ''}</span>
              {pages > 1 && <Pager page={ref.page} count={pages} limit={1} info={false} onPage={(n) => nav(`/book/edit/open/${b.Id_book}-${n}`)} className="mb-0" />}
            </Card.Header>
            <Card.Body>
              {page.loading && !page.data ? <Loading /> : page.error ? (
                page.error instanceof ApiError && page.error.code === 404 ? <EmptyState title={CONTENT_MSG.pageNotFound} /> : <ErrorAlert error={page.error} onRetry={() => void page.reload()} />
              ) : admin ? (
                <>
                  <TextField name="page_body" label="body" rows={14} value={body} onChange={setBody} />
                  <Button size="sm" onClick={() => void savePage()} disabled={busy}>Save page</Button>
                </>
              ) : (
                <div className="book-mail-preview" data-testid="page-body">{page.data?.body ?? ''}</div>
              )}
            </Card.Body>
          </Card>
        </Col>
      </Row>
    </>
  );
}
