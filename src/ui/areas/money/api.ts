/** Typed calls of the money area (001 §7 money.*; docs/money.md): RPC methods by declaration merging, the CSV download. */
import type {
  MoneyBox, MoneyBoxDetail, MoneyGroup, MoneyImportResult, MoneyReport, MoneyRuleView, MoneyShare, MoneyTag, MoneyTransaction, MoneyTransactions, MoneyType,
} from '../../../contracts/money.js';
import { downloadFile, type Query } from '../../api/rest.js';

/** The filter of a box's transactions (getTransactions, the CSV export, what a bar or tag of the report lists). */
export interface TxQuery {
  from?: string;
  to?: string;
  tags?: string[];
  tag?: string;
  untagged?: 0 | 1;
  type?: MoneyType;
  q?: string;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'money.getBoxes': { args: Record<string, never>; result: MoneyBox[] };
    'money.getBox': { args: { bid: number }; result: MoneyBoxDetail };
    'money.boxUpdate': { args: { bid?: number; title: string; description: string }; result: { bid: number; message: string } };
    'money.boxDelete': { args: { bid: number }; result: { bid: number; removed: number; message: string } };
    'money.shareBox': { args: { bid: number; uid: number; share: 0 | 1 }; result: { bid: number; shares: MoneyShare[] } };
    'money.getTransactions': { args: TxQuery & { bid: number; limit?: number; offset?: number; p_?: number }; result: MoneyTransactions };
    'money.getTransaction': { args: { trid: number }; result: MoneyTransaction };
    'money.setTransaction': {
      args: { bid: number; trid?: number; type?: MoneyType; val: string; tags: string; time_set: string; description: string };
      result: { trid: number; balance: string; message: string };
    };
    'money.deleteTransaction': { args: { trid: number }; result: { trid: number; balance: string; message: string } };
    'money.getTagsPopular': { args: { bid?: number; limit?: number }; result: MoneyTag[] };
    'money.searchTags': { args: { bid?: number; q: string; exclude?: string[]; limit?: number }; result: MoneyTag[] };
    'money.getTagsByTagsRelay': { args: { bid?: number; tags: string[]; exclude?: string[]; limit?: number }; result: MoneyTag[] };
    'money.getRules': { args: { bid: number }; result: MoneyRuleView[] };
    'money.setRules': { args: { bid: number; rules: Array<{ contains: string; tags: string }> }; result: MoneyRuleView[] };
    'money.getReport': { args: { bid: number; from?: string; to?: string; tags?: string[]; group?: MoneyGroup }; result: MoneyReport };
    'money.importCsv': { args: { bid: number; csv: string; dry_run?: 0 | 1 }; result: MoneyImportResult };
  }
}

/** GET /api/money/export as a file the browser saves. */
export async function downloadCsv(bid: number, f: TxQuery): Promise<void> {
  const q: Query = { bid };
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '' && !(Array.isArray(v) && !v.length)) q[k] = Array.isArray(v) ? v.join(',') : String(v);
  await downloadFile('/money/export', q, { fallbackName: `money-box-${bid}.csv` });
}
