/** Typed RPC methods of the firewall area (declaration merging into the UI's RpcMethods). */
import type {
  IpStat, TrafficCodeFilter, TrafficFilter, TrafficReport, TrafficRow, WorkerProxyResult, WorkerStatus,
} from '../../../contracts/firewall.js';
import type { AccessLogTag } from '../../../contracts/access-log.js';
import type { BlockRuleView, IpRuleView, SyncResult } from '../../../contracts/firewall-rules.js';
import type { WhoisAnswer } from '../../../contracts/whois.js';

/** What an IP rule action answers: the message of 000 §8 and the rows it touched. */
export interface RuleActionResult {
  message: string;
  affected: number;
}

export interface TrafficQuery {
  host: string;
  range_minutes?: number;
  code?: TrafficCodeFilter;
  top?: number;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'firewall.getFilter': { args: void; result: TrafficFilter };
    'firewall.getTraffic': { args: TrafficQuery; result: TrafficReport };
    'firewall.getTrafficRows': { args: TrafficQuery & { ip: string; tag?: AccessLogTag; limit?: number }; result: TrafficRow[] };
    'firewall.getIpStats': {
      args: { host?: string; range_minutes?: number; unique_books?: boolean; min_count?: number; like?: string; limit?: number };
      result: IpStat[];
    };
    'firewall.getIpWhois': { args: { ip: string }; result: WhoisAnswer };
    'firewall.getIpRules': { args: { status?: number; like?: string; p_?: number; limit?: number }; result: { list: IpRuleView[]; count: number } };
    'firewall.setIpBan': { args: { ip: string; status?: number }; result: RuleActionResult };
    'firewall.allowIpRules': { args: { ip: string }; result: RuleActionResult };
    'firewall.deleteIpRules': { args: { ip: string | string[] }; result: RuleActionResult };
    'firewall.deleteIpRulesByFilter': { args: { status: number }; result: RuleActionResult };
    'firewall.getIptableBlockRules': { args: void; result: BlockRuleView[] };
    'firewall.saveIptableBlockRules': {
      args: { Id?: number; value: string; comment: string; status: number };
      result: { Id: number; message: string; allowlisted: string[] };
    };
    'firewall.switchIptableBlockRule': { args: { Id: number; status: number }; result: RuleActionResult };
    'firewall.deleteIptableBlockRule': { args: { Id: number }; result: RuleActionResult };
    'firewall.getWorkerStatus': { args: void; result: WorkerStatus };
    'firewall.setWorkerStatus': { args: { status: number }; result: WorkerStatus };
    'firewall.runWorker': { args: void; result: WorkerProxyResult[] };
    'srv/action.syncIptableRules': { args: { dry_run?: boolean } | void; result: SyncResult };
  }
}

/** Long calls (SSH to every proxy) get more than the 30 s default. */
export const LONG_CALL_MS = 180_000;
