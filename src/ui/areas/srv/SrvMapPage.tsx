import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { CONFIRM_LABELS, MSG } from '../../../contracts/messages.js';
import {
  BALANCE_ROLES, FREE_GROUP, PARENT_TYPE, PROXY_TYPE, WEB_TYPE, serverTypeName,
  type ServerGroup, type ServersMap, type ServerTypeGroup, type ServerView, type SshTestResult,
} from '../../../contracts/srv.js';
import { ApiError, errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { TextField } from '../../kit/fields.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { ServerEditDialog } from './ServerEditDialog.js';
import { useServersMap, type Toggle } from './useServersMap.js';
import './srv.css';

interface RowActions {
  toggle: (s: ServerView, field: Toggle, on: boolean) => void;
  detail: (s: ServerView) => void;
  edit: (s: ServerView) => void;
  clone: (s: ServerView) => void;
  remove: (s: ServerView) => void;
  test: (s: ServerView) => void;
  addChild: (parent: ServerView) => void;
  /** Opens the terminal grid on this node (/srv/terminal?ids=Id). */
  terminal: (s: ServerView) => void;
}

type TestState = { busy: true } | { busy: false; ok: SshTestResult } | { busy: false; error: string; reason?: string };

/** A plain Bootstrap switch (no react-bootstrap wrapper: the map renders thousands of them). */
function Switch({ s, field, label, actions }: { s: ServerView; field: Toggle; label: string; actions: RowActions }) {
  return (
    <div className="form-check form-switch app-srv-switch">
      <input
        type="checkbox"
        role="switch"
        className="form-check-input"
        id={`${field}-${s.Id}`}
        checked={s[field] === 1}
        aria-label={`${label} ${s.name}`}
        title={label}
        onChange={(e) => actions.toggle(s, field, e.currentTarget.checked)}
      />
    </div>
  );
}

/** Per-node buttons: detail, edit, clone, SSH test, terminal (terminals area), delete. */
function NodeButtons({ s, actions, testing }: { s: ServerView; actions: RowActions; testing: boolean }) {
  return (
    <div className="app-srv-actions d-flex flex-wrap gap-1">
      <button type="button" className="btn btn-outline-secondary btn-xs" aria-label={`Details ${s.name}`} onClick={() => actions.detail(s)}>Info</button>
      <button type="button" className="btn btn-outline-primary btn-xs" aria-label={`Edit ${s.name}`} onClick={() => actions.edit(s)}>Edit</button>
      <button type="button" className="btn btn-outline-primary btn-xs" aria-label={`Clone ${s.name}`} onClick={() => actions.clone(s)}>Clone</button>
      <button type="button" className="btn btn-outline-success btn-xs" aria-label={`Test SSH ${s.name}`} onClick={() => actions.test(s)} disabled={testing}>
        {testing ? <Spinner animation="border" size="sm" /> : 'SSH'}
      </button>
      <button type="button" className="btn btn-outline-dark btn-xs" aria-label={`Terminal ${s.name}`} onClick={() => actions.terminal(s)}>Terminal</button>
      <button type="button" className="btn btn-outline-danger btn-xs" aria-label={`Delete ${s.name}`} onClick={() => actions.remove(s)}>Delete</button>
    </div>
  );
}

const ServerRow = memo(function ServerRow({ s, actions, testing }: { s: ServerView; actions: RowActions; testing: boolean }) {
  return (
    <tr data-server={s.name} className={s.status ? undefined : 'app-srv-off'}>
      <td className="fw-semibold text-nowrap">
        <button type="button" className="btn btn-link btn-sm p-0 fw-semibold" onClick={() => actions.detail(s)}>{s.name}</button>
      </td>
      <td><Switch s={s} field="status" label="Status" actions={actions} /></td>
      <td className="font-monospace small" data-label="Local IP">{s.ip_local || <span className="text-secondary">-</span>}</td>
      <td className="font-monospace small" data-label="SSH port">{s.sshport}</td>
      <td className="text-nowrap app-srv-flags">
        {s.type === WEB_TYPE && (
          <span className="d-inline-flex align-items-center gap-1 small">
            <Switch s={s} field="balance_web" label="Balancer" actions={actions} /> balancer
          </span>
        )}
        {s.type === PROXY_TYPE && (
          <span className="d-inline-flex align-items-center gap-1 small">
            <Switch s={s} field="read_nginx_log_firewall" label="Firewall log" actions={actions} /> firewall log
          </span>
        )}
      </td>
      <td className="app-srv-actions-cell"><NodeButtons s={s} actions={actions} testing={testing} /></td>
    </tr>
  );
});

const TypeSection = memo(function TypeSection({ t, actions, testing }: { t: ServerTypeGroup; actions: RowActions; testing: ReadonlySet<number> }) {
  return (
    <div className="app-srv-type" data-type={t.type}>
      <div className="app-srv-type-title px-2 py-1 small fw-semibold text-secondary">
        {t.type_name} <span className="fw-normal">({t.list.length})</span>
      </div>
      <Table size="sm" hover className="mb-0 align-middle app-srv-table">
        <thead>
          <tr>
            <th>Name</th><th style={{ width: 56 }}>On</th><th style={{ width: 140 }}>Local IP</th><th style={{ width: 80 }}>SSH port</th><th style={{ width: 150 }} /><th style={{ width: 330 }} />
          </tr>
        </thead>
        <tbody>
          {t.list.map((s) => <ServerRow key={s.Id} s={s} actions={actions} testing={testing.has(s.Id)} />)}
        </tbody>
      </Table>
    </div>
  );
});

const GroupCard = memo(function GroupCard({ g, actions, testing }: { g: ServerGroup; actions: RowActions; testing: ReadonlySet<number> }) {
  const count = g.types.reduce((n, t) => n + t.list.length, 0);
  const p = g.parent;
  return (
    <Card className="mb-3 app-srv-group" data-group={g.name}>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2 py-1">
        {p ? (
          <>
            <h2 className="h6 mb-0">{p.name}</h2>
            <span className="font-monospace small text-secondary">{p.ip || p.ip_local}</span>
            <Switch s={p} field="status" label="Status" actions={actions} />
            <Badge bg="light" text="dark">{count}</Badge>
            <div className="ms-auto d-flex flex-wrap gap-1 app-srv-head-actions">
              <button type="button" className="btn btn-outline-primary btn-xs" aria-label={`Add server under ${p.name}`} onClick={() => actions.addChild(p)}>+ Server</button>
              <NodeButtons s={p} actions={actions} testing={testing.has(p.Id)} />
            </div>
          </>
        ) : (
          <>
            <h2 className="h6 mb-0">{FREE_GROUP}</h2>
            <span className="small text-secondary">parent unknown</span>
            <Badge bg="light" text="dark">{count}</Badge>
          </>
        )}
      </Card.Header>
      {g.types.length > 0 && <Card.Body className="p-0">{g.types.map((t) => <TypeSection key={t.type} t={t} actions={actions} testing={testing} />)}</Card.Body>}
    </Card>
  );
});

function filterMap(map: ServersMap, q: string): ServersMap {
  const needle = q.trim().toLowerCase();
  if (!needle) return map;
  const hit = (s: ServerView) => s.name.toLowerCase().includes(needle) || s.ip.includes(needle) || s.ip_local.includes(needle);
  const groups = map.groups
    .map((g) => ({ ...g, types: g.types.map((t) => ({ ...t, list: t.list.filter(hit) })).filter((t) => t.list.length) }))
    .filter((g) => g.types.length || (g.parent && hit(g.parent)));
  return { ...map, groups };
}

function DetailDialog({ s, test, onClose, onEdit, actions, onAccepted }: { s: ServerView | null; test?: TestState; onClose: () => void; onEdit: (s: ServerView) => void; actions: RowActions; onAccepted: () => void }) {
  const rows: Array<[string, ReactNode]> = s
    ? [
        ['Id', s.Id], ['Type', `${s.type} · ${serverTypeName(s.type)}`], ['Parent (cod)', s.cod || '-'], ['Status', s.status ? 'on' : 'off'],
        ['IP', s.ip || '-'], ['Local IP', s.ip_local || '-'], ['SSH login', s.sshlogin || '-'], ['SSH port', s.sshport],
        ['SSH password', s.has_sshpass ? 'set' : 'not set'], ['Private key', s.has_private_key ? 'set' : 'not set'],
        ...(s.type === 2 ? [['Cluster key', s.has_cluster_key ? 'set' : 'not set'] as [string, ReactNode]] : []),
        ...(s.type === 4 ? [['Number in nginx', s.number_in_nginx] as [string, ReactNode]] : []),
        ['DB balance', BALANCE_ROLES[s.balance_db as 0] ?? s.balance_db], ['Cache balance', BALANCE_ROLES[s.balance_cache as 0] ?? s.balance_cache],
        ['MemCache balance', BALANCE_ROLES[s.balance_memcache as 0] ?? s.balance_memcache],
        ['Web balancer', s.balance_web ? 'on' : 'off'], ['Firewall log', s.read_nginx_log_firewall ? 'on' : 'off'],
        ['Host key', s.host_key ? <code>{s.host_key}</code> : 'not pinned yet (pinned on the first successful connect)'],
      ]
    : [];
  const accept = async () => {
    if (!s?.host_key_pending) return;
    try {
      await rpc('srv.acceptHostKey', { Id: s.Id, fingerprint: s.host_key_pending });
      notify.success(MSG.saveOk);
      onAccepted();
    } catch (e) {
      notify.error(errorText(e));
    }
  };
  return (
    <AppModal
      show={!!s}
      onHide={onClose}
      title={s ? `${s.name} · ${serverTypeName(s.type)}` : ''}
      footer={
        s && (
          <>
            <Button size="sm" variant="outline-success" onClick={() => actions.test(s)} disabled={test?.busy}>Test SSH</Button>
            <Button size="sm" variant="outline-dark" onClick={() => actions.terminal(s)}>Terminal</Button>
            <Button size="sm" variant="outline-primary" onClick={() => onEdit(s)}>Edit</Button>
            <Button size="sm" variant="secondary" onClick={onClose}>Close</Button>
          </>
        )
      }
    >
      {s && (
        <>
          <Table size="sm" className="mb-2 app-srv-detail">
            <tbody>
              {rows.map(([k, v]) => (
                <tr key={k}><th className="text-secondary fw-normal" style={{ width: 160 }}>{k}</th><td>{v}</td></tr>
              ))}
            </tbody>
          </Table>
          {s.host_key_pending && (
            <div className="alert alert-danger py-2 d-flex flex-wrap align-items-center gap-2" role="alert">
              <span className="flex-grow-1">
                The host now offers a different key: <code>{s.host_key_pending}</code>. Connections are refused until you accept it.
              </span>
              <ConfirmButton label="Accept new key" variant="danger" confirmVariant="danger" title="Accept the new host key"
                text={<>Pin <code>{s.host_key_pending}</code> for {s.ip || s.ip_local}:{s.sshport}? Do this only if you know why the key changed.</>}
                onConfirm={accept} />
            </div>
          )}
          {test && (
            <div className="small" data-testid="ssh-test-result">
              {test.busy ? <Loading inline text="Connecting…" /> : 'ok' in test ? (
                <span className="text-success">{MSG.connectOk} · {test.ok.hostname} · {test.ok.latency_ms} ms{test.ok.pinned_now ? ' · host key pinned' : ''}</span>
              ) : (
                <span className="text-danger">{test.error}</span>
              )}
            </div>
          )}
        </>
      )}
    </AppModal>
  );
}

const idParam = (v: string | null | undefined) => (v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : null);
const SEARCH_KEYS = { info: 'server', edit: 'edit', filter: 'q' } as const;

/**
 * What the map shows, kept in the URL so that it survives a reload and can be shared: `?q=` the filter,
 * `?server=Id` the Info dialog (also reached as /srv/srv_map/Id), `?edit=Id` the edit dialog. Opening a
 * dialog adds a history entry (Back closes it); closing goes back to the entry it was opened from.
 */
function useMapUrl() {
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const { Id: pathId } = useParams();
  const fromMap = (location.state as { mapDialog?: boolean } | null)?.mapDialog === true;

  // /srv/srv_map/12 -> /srv/srv_map?server=12: one URL form for an open dialog.
  useEffect(() => {
    if (pathId === undefined) return;
    const next = new URLSearchParams(location.search);
    if (idParam(pathId)) next.set(SEARCH_KEYS.info, pathId);
    navigate({ pathname: '/srv/srv_map', search: next.size ? `?${next}` : '' }, { replace: true });
  }, [pathId, location.search, navigate]);

  const withDialog = (kind: 'info' | 'edit' | null, Id?: number) => {
    const next = new URLSearchParams(params);
    next.delete(SEARCH_KEYS.info);
    next.delete(SEARCH_KEYS.edit);
    if (kind && Id) next.set(SEARCH_KEYS[kind], String(Id));
    return next.size ? `?${next}` : '';
  };
  const open = (kind: 'info' | 'edit', Id: number) =>
    navigate({ pathname: '/srv/srv_map', search: withDialog(kind, Id) }, { replace: fromMap, state: { mapDialog: true } });
  const close = () => {
    if (fromMap) navigate(-1);
    else navigate({ pathname: '/srv/srv_map', search: withDialog(null) }, { replace: true });
  };
  const setFilter = (q: string) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (q) next.set(SEARCH_KEYS.filter, q);
        else next.delete(SEARCH_KEYS.filter);
        return next;
      },
      { replace: true, state: location.state },
    );

  return {
    infoId: idParam(pathId) ?? idParam(params.get(SEARCH_KEYS.info)),
    editId: idParam(params.get(SEARCH_KEYS.edit)),
    filter: params.get(SEARCH_KEYS.filter) ?? '',
    open,
    close,
    setFilter,
  };
}

/** /srv/srv_map (000 §2): servers by parent and type, switches, detail/edit/clone/remove, SSH test, nginx upstream. */
export default function SrvMapPage() {
  const { map, upstream, toggle } = useServersMap();
  const url = useMapUrl();
  const [newTarget, setNewTarget] = useState<{ server: null; defaults?: Partial<ServerView> } | null>(null);
  const [cloneOf, setCloneOf] = useState<ServerView | null>(null);
  const [cloneName, setCloneName] = useState('');
  const [removeOf, setRemoveOf] = useState<ServerView | null>(null);
  const [busy, setBusy] = useState(false);
  const [tests, setTests] = useState<Record<number, TestState>>({});
  // The input follows the URL (back/forward, a shared link) and writes it as the user types.
  const [filter, setFilterText] = useState(url.filter);
  useEffect(() => setFilterText((f) => (f.trim() === url.filter.trim() ? f : url.filter)), [url.filter]);
  const changeFilter = (v: string) => {
    setFilterText(v);
    url.setFilter(v.trim());
  };
  const deferred = useDeferredValue(filter);

  const testing = useMemo(() => new Set(Object.entries(tests).filter(([, v]) => v.busy).map(([k]) => Number(k))), [tests]);
  const shown = useMemo(() => (map.data ? filterMap(map.data, deferred) : undefined), [map.data, deferred]);
  const all = useMemo(() => map.data?.groups.flatMap((g) => [...(g.parent ? [g.parent] : []), ...g.types.flatMap((t) => t.list)]) ?? [], [map.data]);
  const parents = useMemo(() => all.filter((s) => s.type === PARENT_TYPE).map((s) => ({ Id: s.Id, name: s.name })), [all]);
  const detail = url.infoId === null ? null : all.find((s) => s.Id === url.infoId) ?? null;
  const editServer = url.editId === null ? null : all.find((s) => s.Id === url.editId) ?? null;
  // The form edits a snapshot: a live re-read of the map must not reset what the user typed.
  const editFound = editServer !== null;
  const urlEditTarget = useMemo(() => (editServer ? { server: editServer } : null), [url.editId, editFound]);
  const editTarget = newTarget ?? urlEditTarget;

  // A link to a server that does not exist (or was just removed by another operator).
  const missing = map.data ? [url.infoId, url.editId].find((Id) => Id !== null && !all.some((s) => s.Id === Id)) : undefined;
  useEffect(() => {
    if (missing === undefined || missing === null) return;
    notify.error(`Server ${missing} not found`);
    url.close();
  }, [missing]);

  const runTest = async (s: ServerView) => {
    setTests((t) => ({ ...t, [s.Id]: { busy: true } }));
    try {
      const r = await rpc('srv.test_connect_ssh', { Id: s.Id }, { timeoutMs: 60_000 });
      setTests((t) => ({ ...t, [s.Id]: { busy: false, ok: r } }));
      notify.success(`${MSG.connectOk} · ${r.hostname} · ${r.latency_ms} ms`);
      if (r.pinned_now) void map.reload();
    } catch (e) {
      const reason = e instanceof ApiError ? e.fields?.reason : undefined;
      setTests((t) => ({ ...t, [s.Id]: { busy: false, error: errorText(e), reason } }));
      notify.error(errorText(e));
      if (reason === 'hostkey') {
        await map.reload();
        latest.current.url.open('info', s.Id);
      }
    }
  };

  // Stable callbacks for the memoised rows; they read the latest state through a ref.
  const navigate = useNavigate();
  const latest = useRef({ toggle, runTest, url, navigate });
  latest.current = { toggle, runTest, url, navigate };
  const actions = useMemo<RowActions>(() => ({
    toggle: (s, f, on) => void latest.current.toggle(s, f, on),
    detail: (s) => latest.current.url.open('info', s.Id),
    edit: (s) => latest.current.url.open('edit', s.Id),
    clone: (s) => { setCloneName(''); setCloneOf(s); },
    remove: (s) => setRemoveOf(s),
    test: (s) => void latest.current.runTest(s),
    addChild: (p) => setNewTarget({ server: null, defaults: { cod: p.Id } }),
    terminal: (s) => latest.current.navigate(`/srv/terminal?ids=${s.Id}`),
  }), []);
  const closeEdit = useCallback(() => {
    if (newTarget) setNewTarget(null);
    else url.close();
  }, [newTarget, url.close]);

  const doRemove = async () => {
    if (!removeOf) return;
    setBusy(true);
    try {
      const r = await rpc('srv.remove_server_by_id', { Id: removeOf.Id, get_map: true });
      if ('groups' in r) map.setData(r);
      else void map.reload();
      notify.success(MSG.deleteOk);
      setRemoveOf(null);
      void upstream.reload();
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const doClone = async () => {
    if (!cloneOf) return;
    setBusy(true);
    try {
      const r = await rpc('srv.clone_server', { clone_by: cloneOf.Id, ...(cloneName.trim() ? { name: cloneName.trim() } : {}) });
      notify.success(`${MSG.saveServerOk} (${r.name})`);
      setCloneOf(null);
      await map.reload();
      void upstream.reload();
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="app-srv-map">
      <PageTitle
        title="Servers map"
        actions={
          <>
            <Form.Control size="sm" type="search" placeholder="Filter by name or ip" value={filter} onChange={(e) => changeFilter(e.currentTarget.value)} aria-label="Filter servers" className="app-srv-filter" />
            <Button size="sm" variant="outline-secondary" onClick={() => void map.reload()} disabled={map.loading}>Reload</Button>
            <Button size="sm" variant="primary" onClick={() => setNewTarget({ server: null })}>Add server</Button>
          </>
        }
      />
      <ErrorAlert error={map.error} onRetry={() => void map.reload()} />
      {!map.data && map.loading && <Loading />}
      {map.data && map.data.count === 0 && <EmptyState text="No servers yet: add one." />}
      {map.data && map.data.count > 0 && shown && shown.groups.length === 0 && (
        <EmptyState title="Nothing matches">
          <div className="app-srv-nomatch" role="status">
            No server matches <strong>{deferred.trim()}</strong> (name or ip).{' '}
            <Button size="sm" variant="link" className="p-0 align-baseline" onClick={() => changeFilter('')}>Clear the filter</Button>
          </div>
        </EmptyState>
      )}
      {shown && (
        <div className="app-srv-groups" data-count={map.data?.count}>
          {shown.groups.map((g) => <GroupCard key={g.Id ?? FREE_GROUP} g={g} actions={actions} testing={testing} />)}
        </div>
      )}

      <Card className="mt-3 app-srv-upstream">
        <Card.Header className="py-1 d-flex flex-wrap align-items-center">
          <h2 className="h6 mb-0 me-auto">Nginx upstream</h2>
          <span className="small text-secondary">web servers with the balancer on; off servers are marked down</span>
        </Card.Header>
        <Card.Body className="p-2">
          <ErrorAlert error={upstream.error} />
          {upstream.data && (upstream.data.servers.length ? <pre className="mb-0 small app-srv-upstream-text">{upstream.data.text}</pre> : <div className="small text-secondary">No web server has the balancer on.</div>)}
        </Card.Body>
      </Card>

      <ServerEditDialog
        target={editTarget}
        parents={parents}
        onClose={closeEdit}
        onSaved={() => { closeEdit(); void map.reload(); void upstream.reload(); }}
      />
      <DetailDialog s={detail} test={detail ? tests[detail.Id] : undefined} onClose={url.close} onEdit={(s) => url.open('edit', s.Id)} actions={actions} onAccepted={() => void map.reload()} />

      <AppModal
        show={!!cloneOf}
        onHide={() => !busy && setCloneOf(null)}
        title={cloneOf ? `Clone ${cloneOf.name}` : ''}
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={() => setCloneOf(null)} disabled={busy}>{CONFIRM_LABELS.cancel}</Button>
            <Button size="sm" variant="primary" onClick={() => void doClone()} disabled={busy}>Clone</Button>
          </>
        }
      >
        <p className="small text-secondary mb-2">A copy with every field and the stored credentials, under a new name.</p>
        <TextField name="clone_name" label="New name" value={cloneName} onChange={setCloneName} placeholder={cloneOf ? `${cloneOf.name}-clone` : ''} autoFocus />
      </AppModal>

      <AppModal
        show={!!removeOf}
        onHide={() => !busy && setRemoveOf(null)}
        title="Delete"
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={() => setRemoveOf(null)} disabled={busy}>{CONFIRM_LABELS.cancel}</Button>
            <Button size="sm" variant="danger" onClick={() => void doRemove()} disabled={busy}>{CONFIRM_LABELS.confirm}</Button>
          </>
        }
      >
        {removeOf && (
          <>
            Delete server <strong>{removeOf.name}</strong>?
            {removeOf.type === PARENT_TYPE && <div className="small text-secondary mt-1">Its servers will be listed under {FREE_GROUP}.</div>}
          </>
        )}
      </AppModal>
    </div>
  );
}
