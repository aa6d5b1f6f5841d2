import { Fragment, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { SEARCH_MSG, SPHINX_ROTATE_TIMEOUT_S, type SourceLive, type SourceView, type SourceWorking } from '../../../contracts/search-nodes.js';
import { errorText } from '../../api/http.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { fmtDateTime, fmtNumber, fmtSize } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { SphinxConfButton } from './SphinxConfButton.js';
import './api.js';

/** The last working time range: 'start – end' (the end's date only when it differs). */
function timeRange(w: SourceWorking): string {
  const a = fmtDateTime(w.timeStart);
  const b = fmtDateTime(w.timeEnd);
  return `${a} – ${b.slice(0, 10) === a.slice(0, 10) ? b.slice(11) : b}`;
}

function LiveCell({ live }: { live?: SourceLive[] }) {
  if (!live) return null;
  if (!live.length) return <span className="text-secondary small">no Search server</span>;
  return (
    <div className="small">
      {live.map((l) => (
        <div key={l.Id} className={l.ok ? '' : 'text-danger'}>
          {l.node}: {l.ok ? `${fmtNumber(l.indexed_documents ?? 0)} docs, ${fmtSize(l.disk_bytes ?? 0)}` : l.message}
        </div>
      ))}
    </div>
  );
}

/**
 * /search/sources (001 §2; §4 "the Rotate button shows loading until the result returns, then replaces
 * the source's working info"; §8 "Source errors appear as an error alert in the list row"; §9 sizes in
 * kb or mb): each source with its last working time range, docs and size, or its errors; Rotate and
 * the config rebuild for admins; 'Live figures' reads each index on the Search servers.
 */
export default function SourcesPage() {
  const session = useSession();
  const admin = roleAllows(session?.role, Role.admin);
  const [live, setLive] = useState<0 | 1>(0);
  const list = useRpc('source.get', { live });
  const [rotating, setRotating] = useState<Set<number>>(new Set());

  const rotate = async (s: SourceView) => {
    setRotating((r) => new Set(r).add(s.Id));
    try {
      const r = await rpc('source.rotate', { Id: s.Id }, { timeoutMs: SPHINX_ROTATE_TIMEOUT_S * 1000 });
      list.setData((rows) => rows?.map((x) => (x.Id === s.Id ? { ...x, working: r.working, time_run: r.working.timeStart } : x)));
      if (r.working.errors.length) notify.error(`${s.source}: ${r.working.errors[0]}`);
      else notify.success(`${s.source}: ${fmtNumber(r.working.docs)} docs, ${fmtSize(r.working.bytes)}`);
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setRotating((r) => {
        const n = new Set(r);
        n.delete(s.Id);
        return n;
      });
    }
  };

  const cols = 7 + (live ? 1 : 0);
  return (
    <>
      <PageTitle
        title="Sources"
        actions={(
          <div className="d-flex gap-2 flex-wrap">
            <Link className="btn btn-sm btn-outline-secondary" to="/search">Hosts</Link>
            <Button size="sm" variant={live ? 'secondary' : 'outline-secondary'} onClick={() => setLive(live ? 0 : 1)} disabled={list.loading}>Live figures</Button>
            {admin && <Link className="btn btn-sm btn-primary" to="/search/add_source">Add source</Link>}
            {admin && <SphinxConfButton />}
          </div>
        )}
      />
      {list.error && <ErrorAlert error={list.error} onRetry={() => void list.reload()} />}
      {!list.data && list.loading && <Loading />}
      {list.data && !list.data.length && <EmptyState text="No source yet" />}
      {list.data && list.data.length > 0 && (
        <Table size="sm" responsive data-testid="sources">
          <thead>
            <tr>
              <th>Source</th><th>Index</th><th className="text-end">TTL, min</th><th>Last working</th><th className="text-end">Docs</th><th className="text-end">Size</th>
              {live ? <th>Live</th> : null}<th />
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => {
              const w = s.working;
              const busy = rotating.has(s.Id);
              return (
                <Fragment key={s.Id}>
                  <tr data-source={s.Id}>
                    <td>{admin ? <Link to={`/search/edit_source/${s.Id}`}>{s.source}</Link> : s.source}</td>
                    <td><code>{s.index}</code></td>
                    <td className="text-end">{s.ttl_min}</td>
                    <td className="small" data-testid="working-time">{w ? timeRange(w) : <span className="text-secondary">never rotated</span>}</td>
                    <td className="text-end" data-testid="working-docs">{w ? fmtNumber(w.docs) : ''}</td>
                    <td className="text-end" data-testid="working-size">{w ? fmtSize(w.bytes) : ''}</td>
                    {live ? <td><LiveCell live={s.live} /></td> : null}
                    <td className="text-end">
                      {admin && (
                        <Button size="sm" variant="outline-primary" onClick={() => void rotate(s)} disabled={busy} data-testid="rotate">
                          {busy ? <><Spinner animation="border" size="sm" className="me-1" />Rotating…</> : SEARCH_MSG.rotate}
                        </Button>
                      )}
                    </td>
                  </tr>
                  {w && w.errors.length > 0 && (
                    <tr data-source-error={s.Id}>
                      <td colSpan={cols} className="border-0 pt-0">
                        <Alert variant="danger" className="py-1 px-2 mb-1 small" data-testid="source-error">
                          {w.errors.map((e, i) => <div key={i}>{e}</div>)}
                        </Alert>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </Table>
      )}
    </>
  );
}
