/** Typed calls of the marketplace area (001 §7 wb.*, item.getChartBrain; docs/wb.md): RPC methods by declaration merging. */
import type { NotConfigured } from '../../../contracts/outside.js';
import type { WbAdvert, WbBrain, WbItemChart, WbOrderRow, WbReport, WbSyncResult, WbSyncState } from '../../../contracts/wb.js';

export interface WbStatus {
  configured: boolean;
  token: 'set' | 'not set';
  sync: WbSyncState;
  counts: { cards: number; finance_rows: number };
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'wb.getStatus': { args: Record<string, never>; result: WbStatus };
    'wb.sync': { args: { dateFrom: string; dateTo: string; force?: 0 | 1 }; result: WbSyncResult | NotConfigured };
    'wb.Report.createReportItems': { args: { dateFrom: string; dateTo: string }; result: WbReport | NotConfigured };
    'wb.Report.getItemChart': { args: { nmID: number; dateFrom: string; dateTo: string }; result: WbItemChart | NotConfigured };
    'wb.Statistic.getDetailOrders': { args: { nmID?: number; dateFrom: string; dateTo: string; p_?: number; limit?: number }; result: { list: WbOrderRow[]; count: number; page: number; limit: number } | NotConfigured };
    'wb.AD.get': { args: { dateFrom: string; dateTo: string }; result: { list: WbAdvert[]; total: number } | NotConfigured };
    'item.getChartBrain': { args: { nmID: number; offset?: number; step?: number }; result: WbBrain | NotConfigured };
  }
}

/** Rubles with kopecks and a comma separator. */
export const fmtRub = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
export const fmtCount = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: 1 }));
