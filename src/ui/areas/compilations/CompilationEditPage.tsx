import { useEffect, useMemo, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import CloseButton from 'react-bootstrap/CloseButton';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import ListGroup from 'react-bootstrap/ListGroup';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router-dom';
import {
  COMPILATION_MSG, COMPILATION_TYPE_LABEL, COMPILATION_TYPES, type CompilationBook, type CompilationRelay, type CompilationView,
} from '../../../contracts/compilations.js';
import { useAsync } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { rest } from '../../api/rest.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SelectField, TextField, useFieldErrors } from '../../kit/fields.js';
import { fmtDateTime, fmtNumber, plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { RichText } from '../../kit/RichText.js';
import { SortableList } from '../../kit/SortableList.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import '../books/api.js';
import '../categories/api.js';
import './api.js';
import { AutoCompilationDialog } from './AutoCompilationDialog.js';
import { ItemIdsDialog } from './ItemIdsDialog.js';
import './compilations.css';

interface Item { item_id: number; book_title: string; views: number }
interface Draft {
  meta_title: string; meta_description: string; meta_h1: string; title_short: string; type: number;
  body_top: string; body_bottom: string; items: Item[]; relay: CompilationRelay[];
}
/** 001 §4: new creates type 1 with empty relays and items. */
const blank = (): Draft => ({ meta_title: '', meta_description: '', meta_h1: '', title_short: '', type: 1, body_top: '', body_bottom: '', items: [], relay: [] });
const draftOf = (c: CompilationView | undefined): Draft => (c ? {
  meta_title: c.meta_title, meta_description: c.meta_description, meta_h1: c.meta_h1, title_short: c.title_short, type: c.type,
  body_top: c.body_top, body_bottom: c.body_bottom,
  items: (c.items ?? []).map((i) => ({ item_id: i.item_id, book_title: i.book_title, views: i.views })), relay: c.relay ?? [],
} : blank());
/** What a save sends (and what "unsaved" compares). */
const payloadOf = (d: Draft) => ({
  meta_title: d.meta_title, meta_description: d.meta_description, meta_h1: d.meta_h1, title_short: d.title_short, type: d.type,
  body_top: d.body_top, body_bottom: d.body_bottom, items: d.items.map((i) => i.item_id), relay: d.relay.map((r) => r.id),
});
/** The form's four required fields (001 §5) with their labels. */
const REQUIRED = [['meta_title', 'title'], ['meta_description', 'description'], ['meta_h1', 'H1'], ['title_short', 'short title']] as const;
const toItem = (b: CompilationBook): Item => ({ item_id: b.item_id, book_title: b.book_title, views: b.views });

/** /compilation/add and /compilation/edit/{Id_compilation} (001 §2, §3, §4, §5): one form. */
export default function CompilationEditPage() {
  const { Id_compilation: param } = useParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const isNew = param === undefined;
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(
    async (signal) => (Id ? rest.get<CompilationView>('/compilation/get_list', { Id_compilation: Id, joinItems: 1, joinRelay: 1 }, { signal }) : undefined),
    `compilation:${param ?? 'new'}`,
  );
  const history = useAsync(async () => (Id && data ? rpc('compilation.history', { Id_compilation: Id }) : []), `compilation-history:${Id}:${data?.time_update ?? ''}`);
  const [d, setD] = useState<Draft>(blank);
  const initial = useMemo(() => JSON.stringify(payloadOf(draftOf(data))), [data]);
  useEffect(() => setD(draftOf(data)), [data]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const dirty = JSON.stringify(payloadOf(d)) !== initial;
  const unsaved = useUnsavedPrompt(dirty);
  const [dialog, setDialog] = useState<'' | 'ids' | 'auto'>('');
  const [addId, setAddId] = useState('');
  const [search, setSearch] = useState('');
  const [found, setFound] = useState<Item[] | null>(null);
  const [catQ, setCatQ] = useState('');
  const [catFound, setCatFound] = useState<CompilationRelay[] | null>(null);

  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => { setD((p) => ({ ...p, [k]: v })); errs.clear(k); };
  const addItems = (books: Item[]) => {
    const have = new Set(d.items.map((i) => i.item_id));
    const fresh = books.filter((b) => !have.has(b.item_id));
    if (fresh.length < books.length) notify.info(`Already in the list: ${books.filter((b) => have.has(b.item_id)).map((b) => b.item_id).join(', ')}`);
    if (fresh.length) set('items', [...d.items, ...fresh]);
  };

  const addById = async (e: FormEvent) => {
    e.preventDefault();
    const n = Number(addId.trim());
    if (!/^\d+$/.test(addId.trim()) || n < 1) { notify.error('Item id must be a number'); return; }
    const r = await run(() => rpc('compilation.items', { ids: [n] }));
    if (!r) return;
    if (r.unknown.length) notify.error(`Unknown item ids: ${r.unknown.join(', ')}`);
    else { addItems(r.found.map(toItem)); setAddId(''); }
  };
  const searchTitle = async (e: FormEvent) => {
    e.preventDefault();
    if (!search.trim()) { setFound(null); return; }
    const r = await run(() => rpc('book.getList', { book_title: search.trim(), limit: 10, p_: 1 }));
    if (r) setFound(r.list.map((b) => ({ item_id: b.Id_book, book_title: b.book_title, views: b.views })));
  };
  const searchCat = async (e: FormEvent) => {
    e.preventDefault();
    if (!catQ.trim()) { setCatFound(null); return; }
    const r = await run(() => rpc('cat.get', { cat_title: catQ.trim(), limit: 10 }));
    if (r && 'list' in r) setCatFound(r.list.map((c) => ({ id: c.Id_cat, label: c.cat_title })));
  };

  const save = async () => {
    const missing: Record<string, string> = {};
    for (const [f, label] of REQUIRED) if (!d[f].trim()) missing[f] = `${label} is required`;
    if (Object.keys(missing).length) { errs.set(missing); notify.error('Fill in the required fields'); return; }
    const r = await run(
      () => rest.post<{ Id_compilation: number; message: string }>('/compilation/save', { ...payloadOf(d), ...(Id ? { Id_compilation: Id } : {}) }),
      (x) => x.message, (e) => errs.take(e),
    );
    if (!r) return;
    if (!Id) {
      unsaved.allowNext();
      navigate(`/compilation/edit/${r.Id_compilation}`, { replace: true });
    } else await reload();
  };
  const remove = async () => {
    const r = await run(() => rest.post<{ message: string }>('/compilation/delete', { Id_compilation: Id }), (x) => x.message);
    if (!r) return;
    unsaved.allowNext();
    navigate('/compilation');
  };
  const restore = async (hid: number) => {
    const r = await run(() => rpc('compilation.restore', { Id: hid }), (x) => `Version ${hid} restored`);
    if (r) await reload();
  };

  if (!isNew && !Id) return <><PageTitle title="Compilation" /><ErrorAlert error={COMPILATION_MSG.notFound} /><Link to="/compilation">Back to compilations</Link></>;
  if (loading && !data) return <Loading text="Loading the compilation…" />;
  if (error) return <><PageTitle title="Compilation" /><ErrorAlert error={error} onRetry={reload} /><Link to="/compilation">Back to compilations</Link></>;

  const text = (f: (typeof REQUIRED)[number][0], label: string, rows?: number) => (
    <TextField name={f} label={label} required rows={rows} value={d[f]} error={errs.of(f)} onChange={(v) => set(f, v)} />
  );
  return (
    <>
      <PageTitle
        title={isNew ? 'New compilation' : `Compilation ${Id}: ${data?.title_short ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/compilation">Back</Link>
          {Id && <ConfirmButton size="sm" label="Delete" text={`Delete compilation ${Id}?`} onConfirm={remove} />}
          <Button size="sm" disabled={busy || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Row>
        <Col lg={7}>
          <Card body className="mb-3">
            {text('meta_title', 'title')}
            {text('meta_description', 'description', 3)}
            <Row>
              <Col sm={6}>{text('meta_h1', 'H1')}</Col>
              <Col sm={6}>{text('title_short', 'short title')}</Col>
            </Row>
            <SelectField name="type" label="type" value={d.type} onChange={(v) => set('type', Number(v))} error={errs.of('type')}
              options={COMPILATION_TYPES.map((t) => ({ value: t, label: COMPILATION_TYPE_LABEL[t] }))} />
          </Card>
          <Card body className="mb-3">
            <RichText id="body_top" label="body_top" value={d.body_top} onChange={(v) => set('body_top', v)} error={errs.of('body_top')} minHeight={120} />
            <RichText id="body_bottom" label="body_bottom" value={d.body_bottom} onChange={(v) => set('body_bottom', v)} error={errs.of('body_bottom')} minHeight={120} />
          </Card>
          <Card body className="mb-3">
            <div className="small fw-semibold mb-1">Categories</div>
            <div className="d-flex flex-wrap gap-1 mb-2 app-compilation-chips" data-testid="relay">
              {d.relay.length === 0 && <span className="text-secondary small">No categories</span>}
              {d.relay.map((r) => (
                <Badge key={r.id} bg="light" text="dark" className="border d-inline-flex align-items-center gap-1">
                  {r.label || `#${r.id}`}
                  <CloseButton aria-label={`Remove category ${r.label || r.id}`} style={{ fontSize: '0.6em' }} onClick={() => set('relay', d.relay.filter((x) => x.id !== r.id))} />
                </Badge>
              ))}
            </div>
            <Form onSubmit={searchCat}>
              <InputGroup size="sm">
                <Form.Control placeholder="Category name" aria-label="Category name" value={catQ} onChange={(e) => setCatQ(e.currentTarget.value)} />
                <Button type="submit" variant="outline-secondary">Find</Button>
              </InputGroup>
            </Form>
            {catFound && (
              <ListGroup className="mt-2" data-testid="cat-found">
                {catFound.length === 0 && <ListGroup.Item className="small text-secondary">No category matches</ListGroup.Item>}
                {catFound.map((c) => (
                  <ListGroup.Item key={c.id} action disabled={d.relay.some((r) => r.id === c.id)} className="small"
                    onClick={() => { set('relay', [...d.relay, c]); setCatFound(null); setCatQ(''); }}>
                    {c.label} <span className="text-secondary">#{c.id}</span>
                  </ListGroup.Item>
                ))}
              </ListGroup>
            )}
            {errs.of('relay') && <div className="text-danger small mt-1">{errs.of('relay')}</div>}
          </Card>
        </Col>
        <Col lg={5}>
          <Card body className="mb-3">
            <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
              <span className="fw-semibold me-auto" data-testid="items-count">Items: {d.items.length}</span>
              <Button size="sm" variant="outline-secondary" onClick={() => setDialog('ids')}>Items id</Button>
              <Button size="sm" variant="outline-secondary" onClick={() => setDialog('auto')}>Auto compilation</Button>
              {d.items.length > 0 && <Button size="sm" variant="outline-danger" onClick={() => set('items', [])}>Clear</Button>}
            </div>
            <Form onSubmit={addById} className="mb-2">
              <InputGroup size="sm">
                <Form.Control name="add_id" inputMode="numeric" placeholder="Book id" aria-label="Book id" value={addId} onChange={(e) => setAddId(e.currentTarget.value)} />
                <Button type="submit" variant="outline-primary">Add</Button>
              </InputGroup>
            </Form>
            <Form onSubmit={searchTitle} className="mb-2">
              <InputGroup size="sm">
                <Form.Control name="search_title" placeholder="Book title" aria-label="Book title" value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
                <Button type="submit" variant="outline-secondary">Search</Button>
              </InputGroup>
            </Form>
            {found && (
              <ListGroup className="mb-2" data-testid="book-found">
                {found.length === 0 && <ListGroup.Item className="small text-secondary">No book matches</ListGroup.Item>}
                {found.map((b) => (
                  <ListGroup.Item key={b.item_id} className="d-flex align-items-center gap-2 small">
                    <span className="flex-grow-1 app-compilation-item-title" title={b.book_title}>{b.book_title} <span className="text-secondary">#{b.item_id}</span></span>
                    <Button size="sm" variant="outline-primary" disabled={d.items.some((i) => i.item_id === b.item_id)} onClick={() => addItems([b])} aria-label={`Add ${b.item_id}`}>Add</Button>
                  </ListGroup.Item>
                ))}
              </ListGroup>
            )}
            {errs.of('items') && <div className="text-danger small mb-2" data-testid="items-error">{errs.of('items')}</div>}
            {d.items.length === 0 ? <div className="text-secondary small">No items yet: add them by id, by title, or with the auto compilation.</div> : (
              <SortableList testId="items" items={d.items} keyOf={(i) => i.item_id} onReorder={(items) => set('items', items)} labelOf={(i) => `item ${i.item_id}`}
                render={(i, n) => (
                  <div className="d-flex align-items-center gap-2 small">
                    <span className="text-secondary" style={{ minWidth: '2em' }}>{n + 1}.</span>
                    <span className="flex-grow-1 app-compilation-item-title" title={i.book_title}>{i.book_title || <em className="text-secondary">no such book</em>}</span>
                    <span className="text-secondary">#{i.item_id} · {fmtNumber(i.views)}</span>
                    <CloseButton aria-label={`Remove item ${i.item_id}`} onClick={() => set('items', d.items.filter((x) => x.item_id !== i.item_id))} />
                  </div>
                )} />
            )}
          </Card>
          {Id && (
            <Card body className="mb-3" data-testid="history">
              <div className="fw-semibold mb-2">History</div>
              {history.error && <ErrorAlert error={history.error} onRetry={history.reload} />}
              {history.data && history.data.length === 0 && <div className="text-secondary small">No earlier versions</div>}
              <ListGroup variant="flush">
                {history.data?.map((h) => (
                  <ListGroup.Item key={h.Id} className="d-flex align-items-center gap-2 small px-0" data-history={h.Id}>
                    <span className="flex-grow-1">
                      #{h.Id} · {h.ts_update ? fmtDateTime(h.ts_update) : '—'} · {h.meta_title} · {plural(h.items_count, 'item')}
                    </span>
                    <ConfirmButton size="sm" variant="outline-secondary" label="Restore" text={`Save version #${h.Id} as the compilation's new version?`} onConfirm={() => restore(h.Id)} />
                  </ListGroup.Item>
                ))}
              </ListGroup>
            </Card>
          )}
        </Col>
      </Row>
      <ItemIdsDialog show={dialog === 'ids'} ids={d.items.map((i) => i.item_id)} onHide={() => setDialog('')}
        onApply={(books) => { set('items', books.map(toItem)); setDialog(''); notify.info(`${plural(books.length, 'item')} in the list: review and Save`); }} />
      <AutoCompilationDialog show={dialog === 'auto'} onHide={() => setDialog('')}
        onResult={(books) => { set('items', books.map(toItem)); setDialog(''); notify.info(`${plural(books.length, 'book')} found: review the list and Save`); }} />
    </>
  );
}

