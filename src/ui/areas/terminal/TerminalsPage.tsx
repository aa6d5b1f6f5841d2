import { useMemo } from 'react';
import Form from 'react-bootstrap/Form';
import { Link, useSearchParams } from 'react-router-dom';
import { serverTypeName } from '../../../contracts/srv.js';
import { useRpc } from '../../api/hooks.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import '../srv/api.js';
import { GridOptions, TerminalGrid } from './TerminalGrid.js';

/** `ids=3,5` of the URL as a list of distinct positive ids, in order. */
export function parseIds(v: string | null): number[] {
  return [...new Set((v ?? '').split(',').map((s) => Number(s)).filter((n) => Number.isSafeInteger(n) && n > 0))];
}

/**
 * Terminals (000 §2 terminal grid): `/srv/terminal?ids=3,5&rows=x2&cols=2` opens a shell on each
 * listed node (the server map's Terminal button links here with one id). Nodes are added and removed
 * here; the list, Rows and Cols stay in the URL (a deep link reopens the same grid).
 */
export default function TerminalsPage() {
  const [params, setParams] = useSearchParams();
  const ids = parseIds(params.get('ids'));
  const servers = useRpc('srv.getList', {});
  const byId = useMemo(() => new Map((servers.data ?? []).map((s) => [s.Id, s])), [servers.data]);
  const setIds = (next: number[]) =>
    setParams((prev) => {
      const p = new URLSearchParams(prev);
      if (next.length) p.set('ids', next.join(','));
      else p.delete('ids');
      return p;
    });
  const nodes = ids.filter((Id) => byId.has(Id)).map((Id) => ({ Id, name: byId.get(Id)!.name }));
  const unknown = servers.data ? ids.filter((Id) => !byId.has(Id)) : [];

  return (
    <>
      <PageTitle
        title="Terminals"
        actions={
          <>
            <Link className="btn btn-outline-secondary btn-sm" to="/srv/MassTerminal">Mass terminal</Link>
            <Link className="btn btn-outline-secondary btn-sm" to="/srv/terminal/recordings">Recordings</Link>
          </>
        }
      />
      <div className="d-flex flex-wrap gap-3 align-items-end mb-3">
        <Form.Group controlId="term-add">
          <Form.Label className="mb-1 small fw-semibold">Add node</Form.Label>
          <Form.Select size="sm" value="" disabled={!servers.data} onChange={(e) => { const v = Number(e.currentTarget.value); if (v) setIds([...ids, v]); }}>
            <option value="">Choose a server…</option>
            {(servers.data ?? []).filter((s) => !ids.includes(s.Id)).map((s) => (
              <option key={s.Id} value={s.Id}>{s.name} ({serverTypeName(s.type)})</option>
            ))}
          </Form.Select>
        </Form.Group>
        <GridOptions />
      </div>
      {servers.error && <ErrorAlert error={servers.error} onRetry={servers.reload} />}
      {unknown.length > 0 && <div className="alert alert-warning py-2">Unknown server id(s): {unknown.join(', ')}</div>}
      {servers.loading && !servers.data ? (
        <Loading />
      ) : nodes.length ? (
        <TerminalGrid nodes={nodes} onRemove={(Id) => setIds(ids.filter((x) => x !== Id))} />
      ) : (
        <EmptyState title="No terminal open" text="Choose a node above, or use the Terminal button of a server on the servers map." />
      )}
    </>
  );
}
