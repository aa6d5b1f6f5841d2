import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import ListGroup from 'react-bootstrap/ListGroup';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { NET_CAT_PAGES_MAX, NET_MSG, NET_STORAGE_DEFAULT, NetCatInsert, NetCatUpdate, type NetCat } from '../../../contracts/network-info.js';
import { expandStoragePlaceholders } from '../../../contracts/storage.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { RichText } from '../../kit/RichText.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { CoverField, HostSelect, ImageTools, useHosts } from './parts.js';
import './api.js';

interface Draft { host: string; title: string; description: string; h1: string; body_bottom: string; storage: string; cover: string }
const draftOf = (c: Partial<NetCat> | undefined, host = ''): Draft => ({
  host: c?.host ? String(c.host) : host,
  title: c?.title ?? '', description: c?.description ?? '', h1: c?.h1 ?? '',
  // Stored images ({storage:<alias>}) are shown; the server turns their URLs back into placeholders (001 §4).
  body_bottom: expandStoragePlaceholders(c?.body_bottom ?? ''),
  storage: String(c?.storage ?? NET_STORAGE_DEFAULT), cover: c?.cover ?? '',
});

/**
 * /network_info/cats/create and /network_info/cats/edit/{Id} (001 §2, §4): one screen, create when there
 * is no Id (`?host=` preselects the host): host, title, description, h1, body_bottom (the kit's
 * rich-text editor), storage and cover, the image editor for both; an existing category lists its pages.
 */
export default function CatEditPage() {
  const { Id: param } = useParams();
  const [query] = useSearchParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const isNew = param === undefined;
  const queryHost = /^\d+$/.test(query.get('host') ?? '') ? (query.get('host') as string) : '';
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(
    async (signal) => (Id ? (rpc('network_info.Cats.get', { Id, joinCatRelay: 1 }, { signal }) as Promise<Partial<NetCat>>) : undefined),
    `net-cat:${param ?? 'new'}`,
  );
  const { hosts } = useHosts();
  const [d, setD] = useState<Draft>(() => draftOf(undefined, queryHost));
  const initial = useMemo(() => JSON.stringify(draftOf(data, queryHost)), [data, queryHost]);
  useEffect(() => setD(draftOf(data, queryHost)), [data, queryHost]);
  const dirty = JSON.stringify(d) !== initial;
  const unsaved = useUnsavedPrompt(dirty);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const hostId = /^\d+$/.test(d.host) ? Number(d.host) : 0;
  const host = hosts.find((h) => h.Id === hostId);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => { setD((p) => ({ ...p, [k]: v })); errs.clear(k); };

  const save = async () => {
    if (!hostId) { errs.set({ host: NET_MSG.chooseHost }); return; }
    const bad = validate(Id ? NetCatUpdate : NetCatInsert, Id ? { Id, ...d } : d);
    if (bad) { errs.set(bad); return; }
    if (Id) {
      const r = await run(() => rpc('network_info.Cats.update', { Id, ...d }), (x) => x.message, (e) => errs.take(e));
      if (r) await reload();
      return;
    }
    const r = await run(() => rpc('network_info.Cats.insert', d), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    unsaved.allowNext();
    navigate(`/network_info/cats/edit/${r.insertId}`, { replace: true });
  };

  const back = `/network_info/cats${hostId ? `?host=${hostId}` : ''}`;
  if (!isNew && !Id) return <><PageTitle title="Category" /><ErrorAlert error={NET_MSG.catNotFound} /><Link to="/network_info/cats">Back to categories</Link></>;
  if (loading && !data) return <Loading text="Loading the category…" />;
  if (error) return <><PageTitle title="Category" /><ErrorAlert error={error} onRetry={reload} /><Link to="/network_info/cats">Back to categories</Link></>;
  const text = (f: 'title' | 'description' | 'h1', label: string, opts: { required?: boolean; rows?: number } = {}) => (
    <TextField name={f} label={label} required={opts.required} rows={opts.rows} value={d[f]} error={errs.of(f)} onChange={(v) => set(f, v)} />
  );
  const pages = data?.pages ?? [];
  return (
    <>
      <PageTitle
        title={isNew ? 'New category' : `Category ${Id}: ${data?.title ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to={back}>Back</Link>
          {!hostId && <span className="small text-secondary align-self-center" data-testid="choose-host">{NET_MSG.chooseHost}</span>}
          <Button size="sm" disabled={busy || !hostId || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Row>
        <Col lg={8}>
          <Card body className="mb-3">
            <HostSelect value={d.host} onChange={(v) => set('host', v)} hosts={hosts} error={errs.of('host')} />
            {text('title', 'title', { required: true })}
            {text('description', 'description', { rows: 2 })}
            {text('h1', 'h1')}
          </Card>
          <Card body className="mb-3">
            <ImageTools hostId={hostId} host={host} onInsert={(url) => setD((p) => ({ ...p, body_bottom: `${p.body_bottom}<p><img src="${url}" alt=""></p>` }))} onCover={(alias) => set('cover', alias)} />
            <RichText id="body_bottom" label="body_bottom" value={d.body_bottom} onChange={(v) => set('body_bottom', v)} error={errs.of('body_bottom')} minHeight={200} />
          </Card>
        </Col>
        <Col lg={4}>
          <Card body className="mb-3">
            <CoverField value={d.cover} onChange={(v) => set('cover', v)} error={errs.of('cover')} />
            <TextField name="storage" label="storage" type="number" min={0} value={d.storage} error={errs.of('storage')} onChange={(v) => set('storage', v)} />
          </Card>
          {Id && (
            <Card className="mb-3" data-testid="cat-pages">
              <Card.Header className="py-2">
                Pages: {plural(data?.pages_count ?? 0, 'page')}
                {(data?.pages_count ?? 0) > NET_CAT_PAGES_MAX && <span className="text-secondary small"> (the newest {NET_CAT_PAGES_MAX} shown)</span>}
              </Card.Header>
              <ListGroup variant="flush">
                {pages.length === 0 && <ListGroup.Item className="small text-secondary">No pages in this category.</ListGroup.Item>}
                {pages.map((p) => (
                  <ListGroup.Item key={p.Id} className="small"><Link to={`/network_info/pages/edit/${p.Id}`}>{p.title}</Link> <span className="text-secondary">#{p.Id}</span></ListGroup.Item>
                ))}
              </ListGroup>
            </Card>
          )}
        </Col>
      </Row>
    </>
  );
}
