import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { SEARCH_MSG, SearchHostInsertArgs, type SearchHostView } from '../../../contracts/search-nodes.js';
import { SECRET_MASK } from '../../../contracts/secrets.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import type { ConnectInput } from './api.js';

interface Values { name: string; connect: ConnectInput[] }
const EMPTY: Values = { name: '', connect: [{ name: '', query: '' }] };
const LIST = '/search';
const valuesOf = (h: SearchHostView): Values => ({ name: h.name, connect: h.connect.length ? h.connect.map((c) => ({ ...c })) : [{ name: '', query: '' }] });

/**
 * /search/add_host and /search/edit_host/{Id} (001 §2, §5: host name, connect name and query
 * required): one form. Each connection is a name and a URL mysql://user:password@host:port/db; a
 * stored password shows as *** and is kept when the URL is saved with *** in its place.
 */
export default function SearchHostEditPage() {
  const { Id: idParam } = useParams();
  const Id = idParam && /^\d+$/.test(idParam) ? Number(idParam) : undefined;
  const editing = idParam !== undefined;
  const navigate = useNavigate();
  const loaded = useRpc('hosts.getById', { Id: Id ?? 0 }, { enabled: Id !== undefined });
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

  const setConn = (i: number, k: keyof ConnectInput, value: string) => {
    setV((old) => ({ ...old, connect: old.connect.map((c, j) => (j === i ? { ...c, [k]: value } : c)) }));
    errs.clear(`connect.${i}.${k}`);
  };
  const addConn = () => setV((old) => ({ ...old, connect: [...old.connect, { name: '', query: '' }] }));
  const removeConn = (i: number) => {
    setV((old) => ({ ...old, connect: old.connect.filter((_, j) => j !== i) }));
    errs.clear();
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = { name: v.name, connect: v.connect.map((c) => ({ name: c.name, query: c.query })) };
    const bad = validate(SearchHostInsertArgs, body);
    if (bad) return errs.set(bad);
    const ok = Id !== undefined
      ? await run(() => rpc('hosts.update', { Id, ...body }), SEARCH_MSG.updateOk, (err) => errs.take(err))
      : await run(() => rpc('hosts.insert', body), SEARCH_MSG.insertOk, (err) => errs.take(err));
    if (!ok) return;
    unsaved.allowNext();
    navigate(LIST);
  };

  if (editing && Id === undefined) return <><PageTitle title="Search host" /><EmptyState text={SEARCH_MSG.hostNotFound} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && loaded.error) return <><PageTitle title="Search host" /><ErrorAlert error={loaded.error} onRetry={() => void loaded.reload()} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && !loaded.data) return <Loading />;

  return (
    <div style={{ maxWidth: 900 }}>
      <PageTitle title={loaded.data ? `Search host ${loaded.data.Id}: ${loaded.data.name}` : 'Add search host'} actions={<Link className="btn btn-sm btn-outline-secondary" to={LIST}>Back</Link>} />
      <Form onSubmit={save} noValidate aria-label="Search host">
        <Card className="mb-3">
          <Card.Body>
            <TextField name="name" label="Host name" required value={v.name} onChange={(x) => { setV((o) => ({ ...o, name: x })); errs.clear('name'); }} error={errs.of('name')} maxLength={190} />
            <div className="small fw-semibold mb-1 mt-3">Connections <span className="text-danger">*</span></div>
            {errs.of('connect') && <div className="text-danger small mb-2" data-testid="connect-error">{errs.of('connect')}</div>}
            {v.connect.map((c, i) => (
              <div key={i} className="d-flex gap-2 align-items-start flex-wrap" data-testid="connect-row">
                <TextField name={`connect.${i}.name`} label={i === 0 ? 'Connect name' : undefined} placeholder="main" value={c.name} onChange={(x) => setConn(i, 'name', x)} error={errs.of(`connect.${i}.name`)} className="mb-2 flex-shrink-0" size="sm" maxLength={64} />
                <div className="flex-grow-1" style={{ minWidth: 280 }}>
                  <TextField
                    name={`connect.${i}.query`} label={i === 0 ? 'Connect query' : undefined} placeholder="mysql://user:password@host:3306/db"
                    value={c.query} onChange={(x) => setConn(i, 'query', x)} error={errs.of(`connect.${i}.query`)} size="sm" autoComplete="off"
                    help={c.query.includes(`:${SECRET_MASK}@`) ? 'The stored password is kept while *** stays in its place' : undefined}
                  />
                </div>
                <Button size="sm" variant="outline-danger" className={i === 0 ? 'mt-4' : ''} onClick={() => removeConn(i)} disabled={v.connect.length === 1} aria-label={`Remove connection ${i + 1}`}>×</Button>
              </div>
            ))}
            <Button size="sm" variant="outline-secondary" onClick={addConn}>Add connection</Button>
          </Card.Body>
        </Card>
        <Button type="submit" disabled={busy}>Save</Button>
      </Form>
    </div>
  );
}
