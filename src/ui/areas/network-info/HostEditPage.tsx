import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { NET_MSG, NetHostInsert, NetHostUpdate, type NetHost } from '../../../contracts/network-info.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';

type Draft = { name: string; domain: string; code_in_storage: string };
const draftOf = (h: Partial<NetHost> | undefined): Draft => ({ name: h?.name ?? '', domain: h?.domain ?? '', code_in_storage: h?.code_in_storage ?? '' });

/**
 * /network_info/hosts/create and /network_info/hosts/edit/{Id} (001 §2: one screen, create when there
 * is no Id): name, domain and code_in_storage (empty: the domain). 'Insert ok!' then the edit screen
 * of the new host; 'Update ok!'.
 */
export default function HostEditPage() {
  const { Id: param } = useParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const isNew = param === undefined;
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(
    async (signal) => (Id ? (rpc('network_info.Host.get', { Id }, { signal }) as Promise<Partial<NetHost>>) : undefined), `net-host:${param ?? 'new'}`,
  );
  const [d, setD] = useState<Draft>(() => draftOf(undefined));
  const initial = useMemo(() => JSON.stringify(draftOf(data)), [data]);
  useEffect(() => setD(draftOf(data)), [data]);
  const dirty = JSON.stringify(d) !== initial;
  const unsaved = useUnsavedPrompt(dirty);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const set = (k: keyof Draft, v: string) => { setD((p) => ({ ...p, [k]: v })); errs.clear(k); };

  const save = async () => {
    const bad = validate(Id ? NetHostUpdate : NetHostInsert, Id ? { Id, ...d } : d);
    if (bad) { errs.set(bad); return; }
    if (Id) {
      const r = await run(() => rpc('network_info.Host.update', { Id, ...d }), (x) => x.message, (e) => errs.take(e));
      if (r) await reload();
      return;
    }
    const r = await run(() => rpc('network_info.Host.insert', d), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    unsaved.allowNext();
    navigate(`/network_info/hosts/edit/${r.insertId}`, { replace: true });
  };

  if (!isNew && !Id) return <><PageTitle title="Host" /><ErrorAlert error={NET_MSG.hostNotFound} /><Link to="/network_info/hosts">Back to hosts</Link></>;
  if (loading && !data) return <Loading text="Loading the host…" />;
  if (error) return <><PageTitle title="Host" /><ErrorAlert error={error} onRetry={reload} /><Link to="/network_info/hosts">Back to hosts</Link></>;
  return (
    <>
      <PageTitle
        title={isNew ? 'New host' : `Host ${Id}: ${data?.domain ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/network_info/hosts">Back</Link>
          {Id && <Link className="btn btn-sm btn-outline-secondary" to={`/network_info/pages?host=${Id}`}>Pages</Link>}
          {Id && <Link className="btn btn-sm btn-outline-secondary" to={`/network_info/cats?host=${Id}`}>Categories</Link>}
          <Button size="sm" disabled={busy || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Card body style={{ maxWidth: 640 }}>
        <TextField name="name" label="name" required value={d.name} error={errs.of('name')} onChange={(v) => set('name', v)} />
        <TextField name="domain" label="domain" required value={d.domain} error={errs.of('domain')} onChange={(v) => set('domain', v)} placeholder="books.example" />
        <TextField name="code_in_storage" label="code_in_storage" value={d.code_in_storage} error={errs.of('code_in_storage')} onChange={(v) => set('code_in_storage', v)}
          help="The host's code in the image storage (letters, digits, '.', '_', '-'); empty: the domain." />
      </Card>
    </>
  );
}
