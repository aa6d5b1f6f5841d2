/**
 * One report's chart (docs/report.md "Screen"): Highcharts, or Highcharts Stock (navigator and range
 * selector) for ranges of 90 days and more; datetime axis in UTC; the compare period dashed; values
 * captioned by type_caption and rounded to val_round; `custom` rotates the palette. Loaded lazily: only
 * /report/list pulls Highcharts in.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highstock.js';
import { HighchartsReact } from 'highcharts-react-official';
import { captionValue, REPORT_CHART_TYPES, type ReportSeries } from '../../../contracts/report.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

const BASE = ['#2caffe', '#544fc5', '#00e272', '#fe6a35', '#6b8abc', '#d568fb', '#2ee0ca', '#fa4b42', '#feb56a', '#91e8e1', '#0d6efd', '#198754', '#dc3545', '#fd7e14', '#6f42c1'];
/** custom 0-14: the palette started at that colour. */
export const paletteOf = (custom: number) => [...BASE.slice(custom % BASE.length), ...BASE.slice(0, custom % BASE.length)];

export interface ChartPart {
  series: ReportSeries[];
  chartType: number;
  typeCaption: number;
  valRound: number;
  custom: number;
}

export default function ReportChart({ parts, longRange, height = 260 }: { parts: ChartPart[]; longRange: boolean; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => {
    const main = parts[0];
    const series: Highcharts.SeriesOptionsType[] = [];
    parts.forEach((p, pi) => {
      const colors = paletteOf(p.custom + pi * 3);
      const type = (REPORT_CHART_TYPES[p.chartType as keyof typeof REPORT_CHART_TYPES] ?? 'line') as 'line';
      const mains = p.series.filter((s) => !s.compare);
      p.series.forEach((s) => {
        const idx = Math.max(0, mains.findIndex((m) => m.metric === s.metric));
        series.push({
          type: s.compare ? 'line' : type,
          name: s.name,
          color: colors[idx % colors.length],
          dashStyle: s.compare ? 'ShortDash' : 'Solid',
          opacity: s.compare ? 0.7 : 1,
          pointStart: s.start,
          pointInterval: s.step,
          data: s.values,
          marker: { enabled: s.values.length < 40 },
          tooltip: { pointFormatter(this: Highcharts.Point) { return `<span style="color:${this.color}">●</span> ${this.series.name}: <b>${captionValue(this.y ?? null, p.typeCaption, p.valRound)}</b><br/>`; } },
        } as Highcharts.SeriesOptionsType);
      });
    });
    return {
      chart: { height, spacing: [6, 6, 6, 6], animation: false },
      title: { text: undefined },
      time: { timezone: 'UTC' },
      xAxis: { type: 'datetime', crosshair: true },
      yAxis: { title: { text: undefined }, opposite: false, labels: { formatter(this: Highcharts.AxisLabelsFormatterContextObject) { return captionValue(Number(this.value), main?.typeCaption ?? 0, main?.valRound ?? 0); } } },
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      tooltip: { shared: true },
      navigator: { enabled: longRange },
      rangeSelector: longRange ? { enabled: true, inputEnabled: false, buttons: [{ type: 'month', count: 1, text: '1m' }, { type: 'month', count: 3, text: '3m' }, { type: 'all', text: 'All' }], selected: 2 } : { enabled: false },
      scrollbar: { enabled: longRange },
      plotOptions: { series: { animation: false }, column: { grouping: true, borderWidth: 0 } },
      series,
    };
  }, [parts, longRange, height]);
  return (
    <div className="app-report-chart" data-testid="report-chart">
      <HighchartsReact highcharts={Highcharts} constructorType={longRange ? 'stockChart' : 'chart'} options={options} />
    </div>
  );
}

/** The partner totals' line chart (role 1). */
export function RsyaChart({ points, height = 220 }: { points: Array<{ date: string; value: number }>; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => ({
    chart: { height, spacing: [6, 6, 6, 6], animation: false },
    title: { text: undefined },
    time: { timezone: 'UTC' },
    xAxis: { type: 'datetime' },
    yAxis: { title: { text: undefined } },
    legend: { enabled: false },
    tooltip: { xDateFormat: '%Y-%m-%d', valueDecimals: 2, valueSuffix: ' ₽' },
    plotOptions: { series: { animation: false } },
    series: [{ type: 'line', name: 'partner_wo_nds', data: points.map((p) => [Date.parse(`${p.date}T00:00:00Z`), p.value]), marker: { enabled: points.length < 40 } }],
  }), [points, height]);
  return <div data-testid="rsya-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}
