/** The coupon calendar's chart: per month, coupons and maturities (rubles) as stacked columns (Highcharts). */
import { useMemo } from 'react';
import Highcharts from 'highcharts/esm/highcharts.js';
import { HighchartsReact } from 'highcharts-react-official';
import type { InvestCalendarMonth } from '../../../contracts/invest.js';

Highcharts.setOptions({ credits: { enabled: false }, accessibility: { enabled: false } });

export default function CalendarChart({ months, onPick, height = 300 }: { months: InvestCalendarMonth[]; onPick?: (month: string) => void; height?: number }) {
  const options = useMemo<Highcharts.Options>(() => {
    const click = { click(this: Highcharts.Point) { onPick?.(months[this.index].month); } };
    return {
      chart: { type: 'column', height, spacing: [6, 6, 6, 6], animation: false },
      title: { text: undefined },
      xAxis: { categories: months.map((m) => m.month), crosshair: true },
      yAxis: { title: { text: 'RUB' }, min: 0, stackLabels: { enabled: false } },
      legend: { enabled: true, itemStyle: { fontSize: '11px' } },
      tooltip: { shared: true, valueDecimals: 2, valueSuffix: ' RUB' },
      plotOptions: { series: { animation: false, cursor: onPick ? 'pointer' : undefined }, column: { stacking: 'normal', borderWidth: 0, minPointLength: 0 } },
      series: [
        { type: 'column', name: 'Coupons', color: '#198754', data: months.map((m) => m.coupons), point: { events: click } },
        { type: 'column', name: 'Maturities', color: '#0d6efd', data: months.map((m) => m.maturities), point: { events: click } },
      ],
    };
  }, [months, onPick, height]);
  return <div data-testid="invest-calendar-chart"><HighchartsReact highcharts={Highcharts} options={options} /></div>;
}
