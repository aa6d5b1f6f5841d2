/**
 * The three area charts of one book on /input_stream/cat/{id} (001 §2): page position, show/click
 * counts, CTR%. Highcharts is loaded only by this module, which the page imports lazily.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { StreamCatBook } from '../../../contracts/input-stream.js';

Highcharts.setOptions({
  time: { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
  credits: { enabled: false },
  accessibility: { enabled: false },
});

const base = (title: string, height: number, step: 'hour' | 'day'): Highcharts.Options => ({
  chart: { height, spacing: [6, 6, 6, 6], animation: false },
  title: { text: title, align: 'left', style: { fontSize: '12px' } },
  legend: { enabled: false },
  xAxis: { type: 'datetime', crosshair: true },
  tooltip: { shared: true, xDateFormat: step === 'hour' ? '%Y-%m-%d %H:00' : '%Y-%m-%d' },
  plotOptions: { series: { animation: false, marker: { enabled: false } } },
});

export default function StreamBookCharts({ book, step, height = 150 }: { book: StreamCatBook; step: 'hour' | 'day'; height?: number }) {
  const charts = useMemo(() => {
    const t = (p: { time: number }) => p.time * 1000;
    const pos: Highcharts.Options = {
      ...base('Page position', height, step),
      yAxis: { title: { text: undefined }, reversed: true, allowDecimals: false, min: 1 },
      series: [{ type: 'area', name: 'Position', color: '#6f42c1', fillOpacity: 0.15, threshold: Infinity, data: book.series.map((p) => [t(p), p.pos]) }],
    };
    const counts: Highcharts.Options = {
      ...base('Shows / clicks', height, step),
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      yAxis: { title: { text: undefined }, min: 0 },
      series: [
        { type: 'area', name: 'Shows', color: '#0d6efd', fillOpacity: 0.15, data: book.series.map((p) => [t(p), p.shows]) },
        { type: 'area', name: 'Clicks', color: '#198754', fillOpacity: 0.3, data: book.series.map((p) => [t(p), p.clicks]) },
      ],
    };
    const ctr: Highcharts.Options = {
      ...base('CTR %', height, step),
      yAxis: { title: { text: undefined }, min: 0, labels: { format: '{value}%' } },
      tooltip: { valueSuffix: '%', valueDecimals: 1 },
      series: [{ type: 'area', name: 'CTR', color: '#fd7e14', fillOpacity: 0.2, data: book.series.map((p) => [t(p), p.ctr]) }],
    };
    return [pos, counts, ctr];
  }, [book, step, height]);
  return (
    <div className="app-stream-charts">
      {charts.map((o, i) => (
        <div key={i} className="app-stream-chart" data-chart={['position', 'counts', 'ctr'][i]}>
          <HighchartsReact highcharts={Highcharts} options={o} />
        </div>
      ))}
    </div>
  );
}
