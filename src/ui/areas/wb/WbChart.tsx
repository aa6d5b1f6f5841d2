/**
 * A card's daily chart on /wb (issue 23: orders, buyouts, ad spend) with its price history and the
 * brain.js forecast of item.getChartBrain (001 §3 item chart data) on a second axis. Highcharts is
 * loaded only by this module, which the page imports lazily.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { WbBrain, WbItemChart } from '../../../contracts/wb.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

export default function WbChart({ chart, brain, height = 360 }: { chart: WbItemChart; brain: WbBrain | null; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => {
    const start = chart.days[0]?.time ?? 0;
    const brainPoints = (brain?.list ?? []).filter((p) => p.time >= start && p.price_brain !== null);
    return {
      chart: { height, spacing: [6, 6, 6, 6], animation: false, zooming: { type: 'x' } },
      title: { text: undefined },
      xAxis: { type: 'datetime', crosshair: true },
      yAxis: [
        { title: { text: 'Pieces' }, min: 0, allowDecimals: false },
        { title: { text: 'Rubles' }, opposite: true },
      ],
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      tooltip: { shared: true, xDateFormat: '%Y-%m-%d', valueDecimals: 2 },
      plotOptions: { series: { animation: false }, column: { grouping: true, borderWidth: 0 } },
      series: [
        { type: 'column', name: 'Orders', color: '#0d6efd', data: chart.days.map((d) => [d.time, d.orders]), tooltip: { valueDecimals: 0 } },
        { type: 'column', name: 'Buyouts', color: '#198754', data: chart.days.map((d) => [d.time, d.buyouts]), tooltip: { valueDecimals: 0 } },
        { type: 'line', name: 'Ad spend', color: '#dc3545', yAxis: 1, marker: { enabled: false }, data: chart.days.map((d) => [d.time, d.ad]) },
        { type: 'line', name: 'Price paid', color: '#6f42c1', yAxis: 1, connectNulls: true, marker: { enabled: false }, data: chart.days.map((d) => [d.time, d.price_output]) },
        { type: 'line', name: 'Forecast (brain.js)', color: '#fd7e14', dashStyle: 'ShortDash', yAxis: 1, marker: { enabled: false }, data: brainPoints.map((p) => [p.time, p.price_brain]) },
      ],
    };
  }, [chart, brain, height]);
  return <div className="app-wb-chart" data-testid="wb-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}
