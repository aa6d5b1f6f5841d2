import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import type { Paged } from '../../../contracts/auth.js';
import { NET_LIMIT_MAX, NET_MSG, NET_STORAGE_DEFAULT, NetPageInsert, NetPageUpdate, type NetCat, type NetPage } from '../../../contracts/network-info.js';
import { expandStoragePlaceholders } from '../../../contracts/storage.js';
import { useAsync, useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { RichText } from '../../kit/RichText.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { CoverField, HostSelect, ImageTools, useHosts } from './parts.js';
import './api.js';

interface Draft {
  host: string; title: string; description: string; h1: string; body: string; keys_relay: string; storage: string; cover: string; cats: number[];
}
const draftOf = (p: Partial<NetPage> | undefined, host = ''): Draft => ({
  host: p?.host ? String(p.host) : host,
  title: p?.title ?? '', description: p?.description ?? '', h1: p?.h1 ?? '',
  // {storage:<alias>} placeholders shown as images (001 §4); the server turns the URLs back on save.
  body: expandStoragePlaceholders(p?.body ?? ''),
  keys_relay: p?.keys_relay ?? '', storage: String(p?.storage ?? NET_STORAGE_DEFAULT), cover: p?.cover ?? '',
  cats: (p?.categoriesRelay ?? []).map((c) => c.Id).sort((a, b) => a - b),
});
const payloadOf = (d: Draft) => ({
  host: d.host, title: d.title, description: d.description, h1: d.h1, body: d.body, keys_relay: d.keys_relay, storage: d.storage, cover: d.cover,
  categoriesRelay: d.cats,
});

/**
 * /network_info/pages/create and /network_info/pages/edit/{Id} (001 §2, §4, §5): one screen, create
 * when there is no Id (`?host=` preselects the host). The host select comes first and Save stays off
 * until a host is chosen; the body is the kit's rich-text editor with stored images shown; the cover
 * is an alias with its preview; categories are the chosen host's; the kit's image editor adds an
 * image to the body or sets the cover.
 */
export default function PageEditPage() {
  const { Id: param } = useParams();
  const [query] = useSearchParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const isNew = param === undefined;
  const queryHost = /^\d+$/.test(query.get('host') ?? '') ? (query.get('host') as string) : '';
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(
    async (signal) => (Id ? (rpc('network_info.Page.get', { Id, joinCatRelay: 1 }, { signal }) as Promise<Partial<NetPage>>) : undefined),
    `net-page:${param ?? 'new'}`,
  );
  const { hosts } = useHosts();
  const [d, setD] = useState<Draft>(() => draftOf(undefined, queryHost));
  const initial = useMemo(() => JSON.stringify(payloadOf(draftOf(data, queryHost))), [data, queryHost]);
  useEffect(() => setD(draftOf(data, queryHost)), [data, queryHost]);
  const dirty = JSON.stringify(payloadOf(d)) !== initial;
  const unsaved = useUnsavedPrompt(dirty);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const hostId = /^\d+$/.test(d.host) ? Number(d.host) : 0;
  const host = hosts.find((h) => h.Id === hostId);
  const cats = useRpc('network_info.Cats.get', { host: hostId, select: 'Id,title', limit: NET_LIMIT_MAX }, { enabled: hostId > 0 });
  const hostCats = ((cats.data as Paged<Partial<NetCat>> | undefined)?.list ?? []) as Pick<NetCat, 'Id' | 'title'>[];

  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => { setD((p) => ({ ...p, [k]: v })); errs.clear(k === 'cats' ? 'categoriesRelay' : k); };
  // Categories belong to a host: another host starts with none.
  const setHost = (v: string) => { setD((p) => ({ ...p, host: v, cats: v === p.host ? p.cats : [] })); errs.clear('host'); errs.clear('categoriesRelay'); };
  const toggleCat = (c: number, on: boolean) => set('cats', on ? [...new Set([...d.cats, c])].sort((a, b) => a - b) : d.cats.filter((x) => x !== c));

  const save = async () => {
    if (!hostId) { errs.set({ host: NET_MSG.chooseHost }); return; }
    const body = payloadOf(d);
    const bad = validate(Id ? NetPageUpdate : NetPageInsert, Id ? { Id, ...body } : body);
    if (bad) { errs.set(bad); return; }
    if (Id) {
      const r = await run(() => rpc('network_info.Page.update', { Id, ...body }), (x) => x.message, (e) => errs.take(e));
      if (r) await reload();
      return;
    }
    const r = await run(() => rpc('network_info.Page.insert', body), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    unsaved.allowNext();
    navigate(`/network_info/pages/edit/${r.insertId}`, { replace: true });
  };

  const back = `/network_info/pages${hostId ? `?host=${hostId}` : ''}`;
  if (!isNew && !Id) return <><PageTitle title="Page" /><ErrorAlert error={NET_MSG.pageNotFound} /><Link to="/network_info/pages">Back to pages</Link></>;
  if (loading && !data) return <Loading text="Loading the page…" />;
  if (error) return <><PageTitle title="Page" /><ErrorAlert error={error} onRetry={reload} /><Link to="/network_info/pages">Back to pages</Link></>;
  const text = (f: 'title' | 'description' | 'h1' | 'keys_relay', label: string, opts: { required?: boolean; rows?: number; help?: string } = {}) => (
    <TextField name={f} label={label} required={opts.required} rows={opts.rows} help={opts.help} value={d[f]} error={errs.of(f)} onChange={(v) => set(f, v)} />
  );
  return (
    <>
      <PageTitle
        title={isNew ? 'New page' : `Page ${Id}: ${data?.title ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to={back}>Back</Link>
          {!hostId && <span className="small text-secondary align-self-center" data-testid="choose-host">{NET_MSG.chooseHost}</span>}
          <Button size="sm" disabled={busy || !hostId || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Row>
        <Col lg={8}>
          <Card body className="mb-3">
            <HostSelect value={d.host} onChange={setHost} hosts={hosts} error={errs.of('host')} />
            {text('title', 'title', { required: true })}
            {text('description', 'description', { rows: 2 })}
            {text('h1', 'h1')}
          </Card>
          <Card body className="mb-3">
            <ImageTools hostId={hostId} host={host} onInsert={(url) => setD((p) => ({ ...p, body: `${p.body}<p><img src="${url}" alt=""></p>` }))} onCover={(alias) => set('cover', alias)} />
            <RichText id="body" label="body" value={d.body} onChange={(v) => set('body', v)} error={errs.of('body')} minHeight={260} />
          </Card>
        </Col>
        <Col lg={4}>
          <Card body className="mb-3">
            <CoverField value={d.cover} onChange={(v) => set('cover', v)} error={errs.of('cover')} />
            <TextField name="storage" label="storage" type="number" min={0} value={d.storage} error={errs.of('storage')} onChange={(v) => set('storage', v)} />
            {text('keys_relay', 'keys_relay', { rows: 3 })}
            {Id && data && (
              <div className="small text-secondary" data-testid="dates">
                date {data.date ? fmtDateTime(data.date) : '—'} · date_update {data.date_update ? fmtDateTime(data.date_update) : '—'}
              </div>
            )}
          </Card>
          <Card body className="mb-3" data-testid="page-cats">
            <div className="small fw-semibold mb-1">Categories</div>
            {!hostId && <div className="small text-secondary">Choose a host to see its categories.</div>}
            {hostId > 0 && cats.error && <ErrorAlert error={cats.error} onRetry={cats.reload} />}
            {hostId > 0 && !cats.loading && !cats.error && hostCats.length === 0 && (
              <div className="small text-secondary">This host has no categories yet (<Link to={`/network_info/cats/create?host=${hostId}`}>create one</Link>).</div>
            )}
            {hostCats.map((c) => (
              <Form.Check key={c.Id} id={`cat-${c.Id}`} type="checkbox" label={c.title} checked={d.cats.includes(c.Id)} onChange={(e) => toggleCat(c.Id, e.currentTarget.checked)} />
            ))}
            {errs.of('categoriesRelay') && <div className="text-danger small mt-1">{errs.of('categoriesRelay')}</div>}
          </Card>
        </Col>
      </Row>
    </>
  );
}
