/** Typed calls of the report area (001 §7 /report/*, report.builItemsChart.get, yandex.getTotalRsy; docs/report.md). */
import type { NotConfigured } from '../../../contracts/outside.js';
import type { ReportBuild, RsyaTotals } from '../../../contracts/report.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'report.builItemsChart.get': { args: { Id: number }; result: ReportBuild };
    'yandex.getTotalRsy': { args: { date1: string; date2: string }; result: RsyaTotals | NotConfigured };
  }
}

export {};
