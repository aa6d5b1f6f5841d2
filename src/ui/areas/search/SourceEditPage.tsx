import { useEffect, useMemo, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { SEARCH_MSG, SOURCE_TTL_DEFAULT, SOURCE_TTL_MAX, sourceConnect, SourceInsertArgs, type SourceView } from '../../../contracts/search-nodes.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';

interface Values { source: string; connect: string; ttl_min: string; query: string; attribute: string; index: string }
const EMPTY: Values = { source: '', connect: '', ttl_min: String(SOURCE_TTL_DEFAULT), query: '', attribute: '', index: '' };
const LIST = '/search/sources';
const valuesOf = (s: SourceView): Values => ({ source: s.source, connect: s.connect, ttl_min: String(s.ttl_min), query: s.query, attribute: s.attribute, index: s.index });

/**
 * /search/add_source and /search/edit_source/{Id} (001 §5: source, connection, TTL minutes, query,
 * attribute and index required): one form. The connection is one of the search hosts' connections
 * (`{hostId}-{name}`); the query is the sql_query (its first column the document id); attribute the
 * comma-separated uint attributes. The Search servers read it after 'Rebuild search config'.
 */
export default function SourceEditPage() {
  const { Id: idParam } = useParams();
  const Id = idParam && /^\d+$/.test(idParam) ? Number(idParam) : undefined;
  const editing = idParam !== undefined;
  const navigate = useNavigate();
  const loaded = useRpc('source.getById', { Id: Id ?? 0 }, { enabled: Id !== undefined });
  const hosts = useRpc('hosts.get', undefined);
  const [v, setV] = useState<Values>(EMPTY);
  const [base, setBase] = useState<Values>(EMPTY);
  const unsaved = useUnsavedPrompt(JSON.stringify(v) !== JSON.stringify(base));
  const errs = useFieldErrors();
  const { run, busy } = useAction();

  useEffect(() => {
    if (!loaded.data) return;
    setV(valuesOf(loaded.data));
    setBase(valuesOf(loaded.data));
  }, [loaded.data]);

  const options = useMemo(() => {
    const list = (hosts.data ?? []).flatMap((h) => h.connect.map((c) => ({ value: sourceConnect(h.Id, c.name), label: `${h.name} / ${c.name} (${c.query})` })));
    if (v.connect && !list.some((o) => o.value === v.connect)) list.unshift({ value: v.connect, label: `${v.connect} (not found)` });
    return [{ value: '', label: 'Choose a connection…' }, ...list];
  }, [hosts.data, v.connect]);

  const set = <K extends keyof Values>(k: K, value: Values[K]) => {
    setV((old) => ({ ...old, [k]: value }));
    errs.clear(k);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = { source: v.source, connect: v.connect, ttl_min: v.ttl_min, query: v.query, attribute: v.attribute, index: v.index };
    const bad = validate(SourceInsertArgs, body);
    if (bad) return errs.set(bad);
    const ok = Id !== undefined
      ? await run(() => rpc('source.update', { Id, ...body }), SEARCH_MSG.updateOk, (err) => errs.take(err))
      : await run(() => rpc('source.insert', body), SEARCH_MSG.insertOk, (err) => errs.take(err));
    if (!ok) return;
    unsaved.allowNext();
    navigate(LIST);
  };

  if (editing && Id === undefined) return <><PageTitle title="Source" /><EmptyState text={SEARCH_MSG.sourceNotFound} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && loaded.error) return <><PageTitle title="Source" /><ErrorAlert error={loaded.error} onRetry={() => void loaded.reload()} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && !loaded.data) return <Loading />;

  return (
    <div style={{ maxWidth: 900 }}>
      <PageTitle title={loaded.data ? `Source ${loaded.data.Id}: ${loaded.data.source}` : 'Add source'} actions={<Link className="btn btn-sm btn-outline-secondary" to={LIST}>Back</Link>} />
      {hosts.error && <ErrorAlert error={hosts.error} onRetry={() => void hosts.reload()} />}
      <Form onSubmit={save} noValidate aria-label="Source">
        <Card className="mb-3">
          <Card.Body>
            <div className="d-flex gap-3 flex-wrap">
              <TextField name="source" label="Source" required value={v.source} onChange={(x) => set('source', x)} error={errs.of('source')} maxLength={64} help="Sphinx name: letters, digits, _" />
              <TextField name="index" label="Index" required value={v.index} onChange={(x) => set('index', x)} error={errs.of('index')} maxLength={64} help="Sphinx name of the index" />
              <TextField name="ttl_min" label="TTL minutes" required type="number" min={1} max={SOURCE_TTL_MAX} value={v.ttl_min} onChange={(x) => set('ttl_min', x)} error={errs.of('ttl_min')} help="Rotated again after this many minutes" />
            </div>
            <SelectField name="connect" label="Connection" value={v.connect} onChange={(x) => set('connect', x)} options={options} error={errs.of('connect')} help={hosts.data && !hosts.data.length ? 'Add a search host with a connection first' : undefined} />
            <TextField name="query" label="Query" required rows={6} value={v.query} onChange={(x) => set('query', x)} error={errs.of('query')} placeholder="SELECT id, title, body, cat_id FROM books" help="sql_query: the first column is the unique document id" />
            <TextField name="attribute" label="Attribute" required value={v.attribute} onChange={(x) => set('attribute', x)} error={errs.of('attribute')} placeholder="cat_id, status" help="Comma-separated columns of the query kept as uint attributes" />
          </Card.Body>
        </Card>
        <Button type="submit" disabled={busy}>Save</Button>
      </Form>
    </div>
  );
}
