import { useCallback, useMemo, useRef, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { Link, useSearchParams } from 'react-router-dom';
import { SERVER_TYPE_IDS, serverTypeName } from '../../../contracts/srv.js';
import { MASS_LINE_MAX, MASS_TYPE_NONE } from '../../../contracts/terminal.js';
import { errorText } from '../../api/http.js';
import { useRpc } from '../../api/hooks.js';
import { plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import '../srv/api.js';
import { RunOncePanel } from '../deploy/RunOncePanel.js';
import { terminalApi } from './api.js';
import { GridOptions, TerminalGrid } from './TerminalGrid.js';
import type { PaneStatus } from './TerminalPane.js';
import { parseIds } from './TerminalsPage.js';

/**
 * The mass terminal (000 §2 /srv/MassTerminal, query `type`, default -1: none): pick a server type,
 * choose its nodes (kept in the URL as `ids`), and each chosen node gets a shell in its own pane; the
 * one input line is written to every open shell at once (`node_control.mass_write`, audited per host).
 * Below it, Run once (src/ui/areas/deploy/RunOncePanel.tsx): the same nodes as separate executions.
 */
export default function MassTerminalPage() {
  const [params, setParams] = useSearchParams();
  const typeRaw = Number(params.get('type') ?? MASS_TYPE_NONE);
  const type = Number.isInteger(typeRaw) ? typeRaw : MASS_TYPE_NONE;
  const ids = parseIds(params.get('ids'));
  const servers = useRpc('srv.getList', { type }, { enabled: type !== MASS_TYPE_NONE });
  const list = useMemo(() => (type === MASS_TYPE_NONE ? [] : (servers.data ?? [])), [servers.data, type]);
  const selected = list.filter((s) => ids.includes(s.Id)).map((s) => ({ Id: s.Id, name: s.name }));
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const [line, setLine] = useState('');
  const [sending, setSending] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const set = (patch: Record<string, string | null>) =>
    setParams((prev) => {
      const p = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === '') p.delete(k);
        else p.set(k, v);
      }
      return p;
    });
  /** Changes the chosen nodes from the URL as it is when applied, so quick clicks never lose one. */
  const setIds = (change: (ids: number[]) => number[]) =>
    setParams((prev) => {
      const p = new URLSearchParams(prev);
      const next = change(parseIds(p.get('ids')));
      if (next.length) p.set('ids', next.join(','));
      else p.delete('ids');
      return p;
    });
  const onStatus = useCallback((Id: number, s: PaneStatus) => setOpen((o) => ({ ...o, [Id]: s.status === 'open' })), []);
  const openKeys = selected.filter((s) => open[s.Id]).map((s) => s.Id);

  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!openKeys.length) return;
    setSending(true);
    try {
      const r = await terminalApi.massWrite(openKeys, line);
      if (r.refused.length) notify.error(`Not sent to ${plural(r.refused.length, 'node')}: ${r.refused.map((x) => x.message).join('; ')}`);
      setLine('');
    } catch (err) {
      notify.error(errorText(err));
    } finally {
      setSending(false);
      input.current?.focus();
    }
  };

  return (
    <>
      <PageTitle
        title="Mass terminal"
        actions={<Link className="btn btn-outline-secondary btn-sm" to="/srv/terminal/recordings">Recordings</Link>}
      />
      <div className="d-flex flex-wrap gap-3 align-items-end mb-2">
        <Form.Group controlId="mass-type">
          <Form.Label className="mb-1 small fw-semibold">Server type</Form.Label>
          <Form.Select size="sm" value={String(type)} onChange={(e) => set({ type: e.currentTarget.value === String(MASS_TYPE_NONE) ? null : e.currentTarget.value, ids: null })}>
            <option value={MASS_TYPE_NONE}>Choose type…</option>
            {SERVER_TYPE_IDS.map((t) => <option key={t} value={t}>{serverTypeName(t)}</option>)}
          </Form.Select>
        </Form.Group>
        <GridOptions />
      </div>
      {type === MASS_TYPE_NONE ? (
        <EmptyState title="No server type chosen" text="Choose a server type, then the nodes to work on." />
      ) : servers.error ? (
        <ErrorAlert error={servers.error} onRetry={servers.reload} />
      ) : servers.loading && !servers.data ? (
        <Loading />
      ) : !list.length ? (
        <EmptyState text={`No server of type ${serverTypeName(type)}.`} />
      ) : (
        <>
          <div className="d-flex flex-wrap gap-3 align-items-center mb-2" aria-label="Nodes">
            {list.map((s) => (
              <Form.Check
                key={s.Id}
                id={`mass-node-${s.Id}`}
                type="checkbox"
                label={s.name}
                checked={ids.includes(s.Id)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setIds((now) => (on ? [...now.filter((x) => x !== s.Id), s.Id] : now.filter((x) => x !== s.Id)));
                }}
              />
            ))}
            <Button size="sm" variant="link" className="p-0" onClick={() => setIds(() => list.map((s) => s.Id))}>All</Button>
            <Button size="sm" variant="link" className="p-0" onClick={() => setIds(() => [])}>None</Button>
          </div>
          <Form onSubmit={send} className="mb-3">
            <InputGroup size="sm">
              <InputGroup.Text>{openKeys.length}/{selected.length} open</InputGroup.Text>
              <Form.Control
                ref={input}
                aria-label="Command line for all selected nodes"
                placeholder={selected.length ? 'One line, sent to every open terminal below (Enter)' : 'Choose nodes first'}
                value={line}
                maxLength={MASS_LINE_MAX}
                disabled={!selected.length}
                onChange={(e) => setLine(e.currentTarget.value)}
                className="font-monospace"
              />
              <Button type="submit" disabled={!openKeys.length || sending}>Send</Button>
            </InputGroup>
          </Form>
          <div className="mb-3"><RunOncePanel servers={selected} /></div>
          {selected.length ? (
            <TerminalGrid nodes={selected} onStatus={onStatus} onRemove={(Id) => setIds((now) => now.filter((x) => x !== Id))} />
          ) : (
            <EmptyState title="No node chosen" text="Tick the nodes to open a terminal on each." />
          )}
        </>
      )}
    </>
  );
}
