import { useEffect, useMemo, useRef, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { CONFIG_TYPES, ConfigInsertRow, ConfigUpdateRow, DOMAIN_CONFIG_TYPE, type ClusterConfigView, type ConfigRowState } from '../../../contracts/srv.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { rpcBatch, type RpcCall } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { validate } from '../../kit/fields.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';
import { useLiveReload } from './useServersMap.js';
import { DeployConfigsDialog } from '../logs/DeployConfigsDialog.js';
import './srv.css';

/** A row of the editor with its client-side state of 000 §4 ('clean' until touched). */
interface EditRow {
  key: string;
  Id?: number;
  type: string;
  value: string;
  state: ConfigRowState | 'clean';
  orig?: { type: string; value: string };
  errors?: Record<string, string>;
}

let seq = 0;
const fromServer = (r: ClusterConfigView): EditRow => ({ key: `id${r.Id}`, Id: r.Id, type: r.type, value: r.value, state: 'clean', orig: { type: r.type, value: r.value } });

/**
 * Cluster configs editor (000 §2 /srv/configs_global, §4): edit in place; new rows insert, edited rows
 * update, deleted rows are hidden and only removals with an Id are sent; one save sends the three batches.
 */
export function useConfigRows() {
  const list = useRpc('cfg.getConfigs', undefined);
  const [rows, setRows] = useState<EditRow[]>([]);
  const [saving, setSaving] = useState(false);
  useEffect(() => { if (list.data) setRows(list.data.map(fromServer)); }, [list.data]);

  const change = (key: string, patch: Partial<Pick<EditRow, 'type' | 'value'>>) =>
    setRows((rs) => rs.map((r) => {
      if (r.key !== key) return r;
      const n = { ...r, ...patch, errors: undefined };
      if (n.state === 'insert') return n;
      const same = n.orig && n.orig.type === n.type && n.orig.value === n.value;
      return { ...n, state: same ? 'clean' : 'update' };
    }));
  const add = () => setRows((rs) => [...rs, { key: `new${++seq}`, type: '', value: '', state: 'insert' }]);
  const remove = (key: string) => setRows((rs) => rs.flatMap((r) => (r.key !== key ? [r] : r.Id ? [{ ...r, state: 'remove' as const }] : [])));
  const restore = () => setRows((rs) => rs.map((r) => (r.state === 'remove' ? { ...r, state: r.orig && (r.orig.type !== r.type || r.orig.value !== r.value) ? 'update' : 'clean' } : r)));

  const pending = {
    insert: rows.filter((r) => r.state === 'insert'),
    update: rows.filter((r) => r.state === 'update'),
    remove: rows.filter((r) => r.state === 'remove' && r.Id),
  };
  const dirty = pending.insert.length + pending.update.length + pending.remove.length > 0;

  // Another operator saved (cfg.configs_changed): re-read when nothing is pending here; with pending
  // edits, say so and let the user choose (re-reading would drop the edits).
  const [staleBy, setStale] = useState(false);
  const state = useRef({ dirty, saving });
  state.current = { dirty, saving };
  const reloadSoon = useLiveReload(() => {
    if (state.current.saving) return;
    if (state.current.dirty) setStale(true);
    else void list.reload();
  });
  useSocketEvent('cfg.configs_changed', () => reloadSoon());
  const reloadNow = async () => {
    setStale(false);
    await list.reload();
  };
  useEffect(() => {
    if (staleBy && !dirty && !saving) void reloadNow();
  }, [staleBy, dirty, saving]);

  const save = async () => {
    let bad = false;
    const checked = rows.map((r) => {
      if (r.state !== 'insert' && r.state !== 'update') return r;
      const e = r.state === 'insert' ? validate(ConfigInsertRow, { type: r.type, value: r.value }) : validate(ConfigUpdateRow, { Id: r.Id, type: r.type, value: r.value });
      if (e) bad = true;
      return { ...r, errors: e ?? undefined };
    });
    setRows(checked);
    if (bad) return notify.error('Fix the marked rows first');
    const calls: RpcCall[] = [];
    if (pending.insert.length) calls.push(['cfg.insertConfigsBatch', pending.insert.map((r) => ({ type: r.type.trim(), value: r.value }))]);
    if (pending.update.length) calls.push(['cfg.updateConfigsBatch', pending.update.map((r) => ({ Id: r.Id!, type: r.type.trim(), value: r.value }))]);
    if (pending.remove.length) calls.push(['cfg.removeConfigs', pending.remove.map((r) => r.Id!)]);
    if (!calls.length) return;
    setSaving(true);
    try {
      const results = await rpcBatch(calls);
      for (const r of results) {
        if (r.status === 'ok') notify.success((r.result as { message: string }).message);
        else notify.error(r.message);
      }
      setStale(false);
      await list.reload();
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setSaving(false);
    }
  };

  return { list, rows, change, add, remove, restore, save, saving, dirty, pending, stale: staleBy, reloadNow };
}

export default function ConfigsGlobalPage() {
  const { list, rows, change, add, remove, restore, save, saving, dirty, pending, stale, reloadNow } = useConfigRows();
  // Leaving with unsaved rows asks first (menu links, Back, closing the tab).
  useUnsavedPrompt(dirty && !saving);
  const [typeFilter, setTypeFilter] = useState('');
  const [deployOpen, setDeployOpen] = useState(false);
  const types = useMemo(() => [...new Set([...CONFIG_TYPES, ...rows.map((r) => r.type).filter(Boolean)])].sort(), [rows]);
  const visible = rows.filter((r) => r.state !== 'remove' && (!typeFilter || r.type === typeFilter || r.state === 'insert'));

  return (
    <div className="app-cfg">
      <PageTitle
        title="Cluster configs"
        actions={
          <>
            <Form.Select size="sm" value={typeFilter} onChange={(e) => setTypeFilter(e.currentTarget.value)} aria-label="Filter by type" style={{ width: 200 }}>
              <option value="">All types</option>
              {types.map((t) => <option key={t} value={t}>{t}</option>)}
            </Form.Select>
            <Button size="sm" variant="outline-primary" onClick={add}>Add row</Button>
            <Button size="sm" variant="primary" onClick={() => void save()} disabled={!dirty || saving}>
              {saving && <Spinner animation="border" size="sm" className="me-1" />}Save
            </Button>
            <Button size="sm" variant="outline-dark" onClick={() => setDeployOpen(true)} disabled={dirty} title={dirty ? 'Save the changes first' : undefined}>Deploy configs</Button>
          </>
        }
      >
        <div className="small text-secondary">
          Rows of type <code>{DOMAIN_CONFIG_TYPE}</code> are the domain list (one domain a row). Changes are sent on Save.
          {dirty && (
            <span className="ms-2" data-testid="cfg-pending">
              <Badge bg="success" className="me-1">{pending.insert.length} new</Badge>
              <Badge bg="primary" className="me-1">{pending.update.length} edited</Badge>
              <Badge bg="danger" className="me-1">{pending.remove.length} deleted</Badge>
              {pending.remove.length > 0 && <Button size="sm" variant="link" className="p-0 align-baseline" onClick={restore}>restore deleted</Button>}
            </span>
          )}
        </div>
      </PageTitle>
      <ErrorAlert error={list.error} onRetry={() => void list.reload()} />
      {stale && dirty && (
        <Alert variant="warning" className="py-2 d-flex flex-wrap align-items-center gap-2" data-testid="cfg-stale">
          <span className="me-auto">Another operator saved cluster configs while you were editing. Saving now keeps your edits.</span>
          <Button size="sm" variant="outline-warning" onClick={() => void reloadNow()}>Reload (drops your edits)</Button>
        </Alert>
      )}
      {!list.data && list.loading && <Loading />}
      {list.data && visible.length === 0 && (
        <EmptyState title={typeFilter ? `No rows of type ${typeFilter}` : 'No cluster config rows yet'}>
          <div className="small">
            Each row is a <code>type</code> and a <code>value</code>: <code>{DOMAIN_CONFIG_TYPE}</code> rows are the domain list, others
            configure deploys, the firewall allowlist and more. <Button size="sm" variant="link" className="p-0 align-baseline" onClick={add}>Add row</Button> starts one;
            Deploy configs sends them to the WEB and Node servers switched on (<Link to="/srv/srv_map">server map</Link>).
          </div>
        </EmptyState>
      )}
      {visible.length > 0 && (
        <Table size="sm" className="align-middle app-cfg-table">
          <thead className="table-light">
            <tr><th style={{ width: 70 }}>Id</th><th style={{ width: 240 }}>type</th><th>value</th><th style={{ width: 90 }} /></tr>
          </thead>
          <tbody>
            {visible.map((r, i) => (
              <tr key={r.key} data-row={r.Id ?? 'new'} data-state={r.state} className={r.state === 'insert' ? 'table-success' : r.state === 'update' ? 'table-primary' : undefined}>
                <td className="text-secondary small">{r.Id ?? 'new'}</td>
                <td>
                  <Form.Control size="sm" list="cfg-types" value={r.type} onChange={(e) => change(r.key, { type: e.currentTarget.value })} aria-label={`type ${r.Id ?? `new ${i + 1}`}`} isInvalid={!!r.errors?.type} />
                  {r.errors?.type && <Form.Control.Feedback type="invalid">{r.errors.type}</Form.Control.Feedback>}
                </td>
                <td>
                  <Form.Control size="sm" as="textarea" rows={Math.min(6, Math.max(1, r.value.split('\n').length))} value={r.value} onChange={(e) => change(r.key, { value: e.currentTarget.value })} aria-label={`value ${r.Id ?? `new ${i + 1}`}`} isInvalid={!!r.errors?.value} className="font-monospace" />
                  {r.errors?.value && <Form.Control.Feedback type="invalid">{r.errors.value}</Form.Control.Feedback>}
                </td>
                <td className="text-end">
                  <Button size="sm" variant="outline-danger" onClick={() => remove(r.key)} aria-label={`Delete row ${r.Id ?? `new ${i + 1}`}`}>Delete</Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <datalist id="cfg-types">{types.map((t) => <option key={t} value={t} />)}</datalist>
      <DeployConfigsDialog show={deployOpen} onHide={() => setDeployOpen(false)} />
    </div>
  );
}
