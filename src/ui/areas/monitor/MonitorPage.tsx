import { lazy, Suspense, useMemo } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import type { ChartItem } from '../../../contracts/monitoring.js';
import { serverTypeName } from '../../../contracts/srv.js';
import NotFoundPage from '../../app/pages/NotFoundPage.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { CollectNow, LoadTiles, LoadValue, MonitorFilter, MonitorNav } from './parts.js';
import { chartColumns } from './series.js';
import { useCharts, useMonitorUpdates, useServerLoads } from './useMonitorData.js';
import { useMonitorUrl } from './useMonitorUrl.js';
import './monitor.css';

/** Highcharts comes with this module only, fetched when the first chart is drawn. */
const ServerChart = lazy(() => import('./ServerChart.js'));
const CHART_HEIGHT = 180;

/**
 * /monitor and /monitor/{cat} (000 §2 "Monitoring"): the chart filter (range and quality in the URL),
 * server load tiles, and an area chart per server of the selected type (the grouped types on /monitor),
 * refreshed when a collection round ends ('update_nginx'). A new range keeps the previous charts until
 * the new answer arrives; the older request is cancelled.
 */
export default function MonitorPage() {
  const url = useMonitorUrl();
  const charts = useCharts(url.type, url.minutes, url.quality);
  const loads = useServerLoads();
  useMonitorUpdates(() => {
    void charts.reload();
    void loads.reload();
  });

  // Charts of another server type are not shown while this type's load (a range change keeps them).
  const sameType = charts.data && charts.data.key.split('|')[0] === charts.key.split('|')[0];
  const items = sameType ? charts.data!.value : undefined;
  const tiles = useMemo(() => (url.type === undefined ? loads.data : loads.data?.filter((s) => s.type === url.type)), [loads.data, url.type]);
  const title = url.cat ? `Monitor · ${url.cat}` : 'Monitor';
  // Busy only while another filter's answer is awaited; the refresh after each round is silent.
  const busy = charts.loading && !!items && charts.data!.key !== charts.key;

  if (url.rawCat !== undefined && !url.cat) return <NotFoundPage />;

  return (
    <div className="app-mon">
      <PageTitle
        title={title}
        actions={
          <>
            <CollectNow onDone={() => { void charts.reload(); void loads.reload(); }} />
            <Button size="sm" variant="outline-secondary" onClick={() => { void charts.reload(); void loads.reload(); }} disabled={charts.loading}>Refresh</Button>
          </>
        }
      />
      <MonitorNav base="/monitor" search={url.search} cat={url.cat} />
      <MonitorFilter minutes={url.minutes} onMinutes={url.setMinutes} quality={url.quality} onQuality={url.setQuality} busy={busy} />
      <LoadTiles items={tiles} loading={loads.loading} error={loads.error} onRetry={() => void loads.reload()} />
      <ErrorAlert error={charts.error} onRetry={() => void charts.reload()} />
      {!items && charts.loading && <Loading text="Loading charts…" />}
      {items && items.length === 0 && <EmptyState title="No servers" text={url.type === undefined ? 'No server of the grouped types.' : `No ${serverTypeName(url.type)} server.`} />}
      {items && items.length > 0 && (
        <div className={`app-mon-charts ${busy ? 'app-mon-busy' : ''}`} aria-busy={busy} data-key={charts.data!.key}>
          {items.map((it) => <ChartCard key={it.Id} item={it} />)}
        </div>
      )}
    </div>
  );
}

function ChartCard({ item }: { item: ChartItem }) {
  const cols = useMemo(() => chartColumns(item), [item]);
  const empty = !cols.avg.some(([, v]) => v !== null);
  const current = [...cols.avg].reverse().find(([, v]) => v !== null)?.[1] ?? null;
  return (
    <section className="app-card app-mon-card" aria-label={`Chart ${item.name}`} data-server={item.name} data-tier={item.tier} data-points={cols.points} data-last={cols.last ?? ''}>
      <header className="d-flex align-items-center gap-2 mb-1">
        <span className="fw-semibold text-truncate">{item.name}</span>
        <span className="small text-secondary">{serverTypeName(item.type)}</span>
        <Badge bg="light" text="dark" className="ms-auto border" title="Storage tier of this range">{item.tier}</Badge>
        {!empty && <span className="small" title="Latest average in the range"><LoadValue value={current} /></span>}
      </header>
      {empty ? (
        <div className="app-mon-nodata text-secondary small d-flex align-items-center justify-content-center" style={{ height: CHART_HEIGHT }}>No data for this range</div>
      ) : (
        <Suspense fallback={<div style={{ height: CHART_HEIGHT }} className="d-flex align-items-center justify-content-center"><Loading inline text="Loading chart…" /></div>}>
          <ServerChart item={item} height={CHART_HEIGHT} />
        </Suspense>
      )}
    </section>
  );
}
