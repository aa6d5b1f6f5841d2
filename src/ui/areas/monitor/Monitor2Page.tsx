import { useMemo } from 'react';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { loadColour, type Balancing, type BalancingRow, type NodeAverage } from '../../../contracts/monitoring.js';
import { BALANCE_ROLES, serverTypeName } from '../../../contracts/srv.js';
import NotFoundPage from '../../app/pages/NotFoundPage.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { fmtLoad, LoadValue, MonitorFilter, MonitorNav } from './parts.js';
import { useBalancing, useMonitorUpdates, useNodeAverages } from './useMonitorData.js';
import { useMonitorUrl } from './useMonitorUrl.js';
import './monitor.css';

/** Balancing sections of GET /monitoring/get_balancing, in this order. */
const SECTIONS: Array<{ key: keyof Balancing; title: string }> = [
  { key: 'Proxy', title: 'Proxy' },
  { key: 'WEBCluster', title: 'WEB cluster' },
  { key: 'db', title: 'DB' },
];

/** Highest load first; servers never read (null) last, by name. */
export function sortAverages(list: NodeAverage[]): NodeAverage[] {
  return [...list].sort((a, b) => (b.load ?? -1) - (a.load ?? -1) || a.name.localeCompare(b.name));
}

/**
 * /monitor2 and /monitor2/{cat} (000 §2 "Monitoring", §3 Node average): the mean 1-minute load of each
 * node over the range as a sorted bar list coloured as the tiles, and the balancing view (proxies, web
 * clusters and databases with their balancer fields and current load). Refreshed after each round.
 */
export default function Monitor2Page() {
  const url = useMonitorUrl();
  const avg = useNodeAverages(url.type, url.minutes);
  const bal = useBalancing();
  useMonitorUpdates(() => {
    void avg.reload();
    void bal.reload();
  });
  const sameType = avg.data && avg.data.key.split('|')[0] === avg.key.split('|')[0];
  const list = useMemo(() => (sameType ? sortAverages(avg.data!.value) : undefined), [sameType, avg.data]);
  const max = Math.max(1, ...(list ?? []).map((n) => n.load ?? 0));
  const title = url.cat ? `Node load · ${url.cat}` : 'Node load';
  const busy = avg.loading && !!list && avg.data!.key !== avg.key;

  if (url.rawCat !== undefined && !url.cat) return <NotFoundPage />;

  return (
    <div className="app-mon">
      <PageTitle title={title} actions={<Button size="sm" variant="outline-secondary" onClick={() => { void avg.reload(); void bal.reload(); }} disabled={avg.loading}>Refresh</Button>} />
      <MonitorNav base="/monitor2" search={url.search} cat={url.cat} />
      <MonitorFilter minutes={url.minutes} onMinutes={url.setMinutes} busy={busy} />

      <section className="app-card mb-3" aria-label="Node averages">
        <h2 className="h6">Average load over the range</h2>
        <ErrorAlert error={avg.error} onRetry={() => void avg.reload()} />
        {!list && avg.loading && <Loading />}
        {list && list.length === 0 && <EmptyState title="No servers" />}
        {list && list.length > 0 && (
          <ol className={`app-mon-bars list-unstyled mb-0 ${busy ? 'app-mon-busy' : ''}`} aria-busy={busy}>
            {list.map((n) => {
              const c = loadColour(n.load);
              return (
                <li key={n.Id} className="app-mon-bar-row" data-server={n.name} data-colour={c ?? 'none'}>
                  <span className="app-mon-bar-name text-truncate" title={n.name}>{n.name}</span>
                  <span className="app-mon-bar-track">
                    <span className={`app-mon-bar ${c ? `app-mon-bar-${c}` : ''}`} style={{ width: `${n.load === null ? 0 : Math.max(0.5, (n.load / max) * 100)}%` }} />
                  </span>
                  <LoadValue value={n.load} className="app-mon-bar-value" />
                </li>
              );
            })}
          </ol>
        )}
      </section>

      <section aria-label="Balancing">
        <h2 className="h6">Balancing</h2>
        <ErrorAlert error={bal.error} onRetry={() => void bal.reload()} />
        {!bal.data && bal.loading && <Loading />}
        {bal.data && (
          <div className="app-mon-balancing">
            {SECTIONS.map((s) => <BalancingSection key={s.key} title={s.title} name={s.key} rows={bal.data![s.key]?.data ?? []} />)}
          </div>
        )}
      </section>
    </div>
  );
}

const role = (v: number) => (BALANCE_ROLES as Record<number, string>)[v] ?? String(v);
const onOff = (v: number) => (v ? 'on' : 'off');

function BalancingSection({ title, name, rows }: { title: string; name: string; rows: BalancingRow[] }) {
  return (
    <div className="app-card mb-3" data-section={name}>
      <h3 className="h6 mb-2">{title}</h3>
      {rows.length === 0 ? (
        <EmptyState title="Empty" />
      ) : (
        <Table size="sm" responsive className="mb-0 app-mon-bal-table" aria-label={`Balancing ${title}`}>
          <thead>
            <tr>
              <th>Name</th><th>Type</th><th>Status</th><th>Web</th><th>DB</th><th>Cache</th><th>MemCache</th><th className="text-end">Load</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.Id} data-server={r.name} className={r.status ? undefined : 'app-mon-off'}>
                <td className="fw-semibold">{r.name}</td>
                <td>{serverTypeName(r.type)}</td>
                <td>{onOff(r.status)}</td>
                <td>{onOff(r.balance_web)}</td>
                <td>{role(r.balance_db)}</td>
                <td>{role(r.balance_cache)}</td>
                <td>{role(r.balance_memcache)}</td>
                <td className="text-end" title={fmtLoad(r.cpu_la)}><LoadValue value={r.cpu_la} /></td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
