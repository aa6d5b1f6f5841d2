/**
 * The money report's chart (issue 21 "Report"): income and expense per period as columns, the box's
 * balance at the end of each period as a line on its own axis. Clicking a column picks that period
 * and type (the page lists the transactions behind it). Highcharts is loaded only by this module,
 * which the report page imports lazily.
 */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { MoneyPeriod, MoneyType } from '../../../contracts/money.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

/** Amounts are exact decimal strings on the wire; the chart only draws them. */
const num = (s: string) => Number(s);

export default function ReportChart({ periods, onPick, height = 320 }: { periods: MoneyPeriod[]; onPick: (index: number, type: MoneyType) => void; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => {
    const click = (type: MoneyType) => ({ click(this: Highcharts.Point) { onPick(this.index, type); } });
    return {
      chart: { height, spacing: [6, 6, 6, 6], animation: false },
      title: { text: undefined },
      xAxis: { categories: periods.map((p) => p.period), crosshair: true },
      yAxis: [
        { title: { text: undefined }, min: 0 },
        { title: { text: undefined }, opposite: true },
      ],
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      tooltip: { shared: true, valueDecimals: 2 },
      plotOptions: {
        series: { animation: false, cursor: 'pointer' },
        column: { grouping: true, borderWidth: 0, minPointLength: 2 },
      },
      series: [
        { type: 'column', name: 'Income', color: '#198754', data: periods.map((p) => num(p.income)), point: { events: click(1) } },
        { type: 'column', name: 'Expense', color: '#dc3545', data: periods.map((p) => num(p.expense)), point: { events: click(0) } },
        { type: 'line', name: 'Balance', color: '#0d6efd', yAxis: 1, marker: { enabled: periods.length < 40 }, data: periods.map((p) => num(p.balance)), enableMouseTracking: true },
      ],
    };
  }, [periods, onPick, height]);
  return <div className="app-money-report-chart" data-testid="money-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}
