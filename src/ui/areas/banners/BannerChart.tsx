/**
 * A banner's views, clicks and CTR per day (001 §2 "Ad banners"): views and clicks as columns on the
 * left axis, CTR % as a line on the right. Highcharts is loaded only by this module, which the banner
 * page imports lazily (like the monitor area's charts).
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { BannerDay } from '../../../contracts/banners.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

export default function BannerChart({ series, height = 280 }: { series: BannerDay[]; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => {
    const t = (p: BannerDay) => p.time * 1000;
    return {
      chart: { height, spacing: [6, 6, 6, 6], animation: false },
      title: { text: undefined },
      time: { timezone: 'UTC' },
      xAxis: { type: 'datetime', crosshair: true },
      yAxis: [
        { title: { text: undefined }, min: 0, allowDecimals: false },
        { title: { text: undefined }, min: 0, opposite: true, labels: { format: '{value}%' } },
      ],
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      tooltip: { shared: true, xDateFormat: '%Y-%m-%d' },
      plotOptions: { series: { animation: false }, column: { grouping: true, borderWidth: 0 } },
      series: [
        { type: 'column', name: 'Views', color: '#0d6efd', data: series.map((p) => [t(p), p.views]) },
        { type: 'column', name: 'Clicks', color: '#198754', data: series.map((p) => [t(p), p.click]) },
        { type: 'line', name: 'CTR', color: '#fd7e14', yAxis: 1, marker: { enabled: false }, tooltip: { valueSuffix: '%', valueDecimals: 1 }, data: series.map((p) => [t(p), p.ctr]) },
      ],
    };
  }, [series, height]);
  return <div className="app-banner-chart" data-testid="banner-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}
