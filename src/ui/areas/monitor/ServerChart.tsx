/**
 * The area chart of one server (Highcharts, loaded only by the monitor pages: this module is imported
 * lazily, so the app's other pages never download Highcharts). The average is an area; where the tier
 * is coarser than minutes, the min..max of each bucket is a band (arearange) around it.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import 'highcharts/esm/highcharts-more.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { ChartItem } from '../../../contracts/monitoring.js';
import { chartColumns, LOAD_LINES } from './series.js';

Highcharts.setOptions({
  time: { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
  credits: { enabled: false },
  accessibility: { enabled: false },
});

export interface ServerChartProps {
  item: ChartItem;
  height?: number;
}

export default function ServerChart({ item, height = 180 }: ServerChartProps) {
  const options = useMemo<Highcharts.Options>(() => {
    const { avg, band } = chartColumns(item);
    // A reading between two gaps draws no line: a marker shows it.
    const data = avg.map(([x, y], i) =>
      y !== null && (avg[i - 1]?.[1] ?? null) === null && (avg[i + 1]?.[1] ?? null) === null ? { x, y, marker: { enabled: true, radius: 2.5 } } : [x, y],
    ) as Highcharts.PointOptionsType[];
    const series: Highcharts.SeriesOptionsType[] = [
      {
        type: 'area', name: 'Load average', data, color: '#0d6efd', fillOpacity: 0.15, lineWidth: 1.5, zIndex: 1,
        marker: { enabled: false }, connectNulls: false,
      },
    ];
    if (band) {
      series.push({
        type: 'arearange', name: 'Min – max', data: band, color: '#0d6efd', fillOpacity: 0.2, lineWidth: 0, linkedTo: ':previous', zIndex: 0,
        marker: { enabled: false },
      });
    }
    return {
      chart: { height, spacing: [6, 6, 6, 6], animation: false, zooming: { type: 'x' } },
      title: { text: undefined },
      legend: { enabled: false },
      xAxis: { type: 'datetime', crosshair: true },
      yAxis: {
        title: { text: undefined }, min: 0, softMax: 1,
        plotLines: LOAD_LINES.map((l) => ({ value: l.value, color: l.colour, width: 1, dashStyle: 'Dash' as const, zIndex: 2 })),
      },
      tooltip: { shared: true, valueDecimals: 2, xDateFormat: '%Y-%m-%d %H:%M' },
      plotOptions: { series: { animation: false, states: { inactive: { opacity: 1 } } } },
      series,
    };
  }, [item, height]);
  return <HighchartsReact highcharts={Highcharts} options={options} updateArgs={[true, true, false]} containerProps={{ className: 'app-mon-chart-box' }} />;
}
