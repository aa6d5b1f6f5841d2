/**
 * The position charts (issue 23): a query's position history (the query dialog) and the project's top
 * stats (its best queries over 30 days). Places run top-down (1 at the top: a reversed axis); a day not
 * in the top N is a gap. Highcharts is loaded only by this module, which the project page imports lazily.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { PositionPoint, PositionTopSeries } from '../../../contracts/position.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

const t = (day: string) => Date.parse(`${day}T00:00:00Z`);

function base(height: number): Highcharts.Options {
  return {
    chart: { height, spacing: [6, 6, 6, 6], animation: false },
    title: { text: undefined },
    time: { timezone: 'UTC' },
    xAxis: { type: 'datetime' },
    yAxis: { title: { text: 'Position' }, reversed: true, min: 1, allowDecimals: false },
    tooltip: { shared: true, xDateFormat: '%Y-%m-%d' },
    plotOptions: { series: { animation: false, connectNulls: false, marker: { enabled: true, radius: 2.5 } } },
  };
}

/** One query's history (points newest first, as answered). */
export function HistoryChart({ name, points, height = 300 }: { name: string; points: PositionPoint[]; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => ({
    ...base(height),
    legend: { enabled: false },
    series: [{ type: 'line', name, color: '#0d6efd', data: [...points].reverse().map((p) => [t(p.date), p.pos]) }],
  }), [name, points, height]);
  return <div data-testid="position-history-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}

/** The project's top stats: one line per query. */
export function TopChart({ series, height = 320 }: { series: PositionTopSeries[]; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => ({
    ...base(height),
    legend: { enabled: true, itemStyle: { fontSize: '11px' } },
    series: series.map((s) => ({ type: 'line' as const, name: s.query_text, data: s.data.map((p) => [t(p.date), p.pos]) })),
  }), [series, height]);
  return <div data-testid="position-top-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}

export default { HistoryChart, TopChart };
