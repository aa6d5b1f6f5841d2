/** Typed RPC methods of Firewall II (neural score, marks, training, review, auto-bans, AI report): src/contracts/firewall-train.ts. */
import type {
  AiReport, AutoBanRow, NeyronScore, TrainDataRow, TrainMark, TrainReviewRow, TrainStatus,
} from '../../../contracts/firewall-train.js';
import { ApiError } from '../../api/http.js';
import type { RuleActionResult } from './api.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'firewall.setTrainDataLog': { args: { ip: string; host: string; bal: TrainMark }; result: { Id: number; message?: string; banned?: boolean; ban_message?: string } };
    'firewall.getTrainDataLog': { args: { host: string }; result: TrainDataRow[] };
    'firewall.updateTrainDataLog': { args: { Id: number; bal: TrainMark }; result: { message?: string } };
    'firewall.deleteTrainDataLog': { args: { Id: number }; result: { message?: string } };
    'firewall.loadHostTrainData': { args: { host: string }; result: TrainReviewRow[] };
    'firewall.train': { args: { host: string }; result: { started: boolean } };
    'firewall.cancelTrain': { args: { host: string }; result: { cancelled?: boolean; message?: string } };
    'firewall.getTrainStatus': { args: { host: string }; result: TrainStatus };
    'firewall.getNeyronData': { args: { host: string; ips?: string[] }; result: NeyronScore[] };
    'firewall.setRuleByIp': { args: { ip: string; status?: number }; result: RuleActionResult };
    'firewall.getAutoBans': { args: { host?: string; p_?: number }; result: { list: AutoBanRow[]; count: number } };
    'firewall.undoAutoBan': { args: { ip: string }; result: RuleActionResult | { message?: string } };
    'firewall.getAiReport': { args: { host: string }; result: AiReport };
  }
}

/** The host has no trained model yet: the server answers 422 (shown as a quiet 'no model', not as an error). */
export const isNoModel = (e: unknown) => e instanceof ApiError && e.code === 422;

/** A score with two decimals, an effect with its sign ('+0.41'). */
export const fmtScore = (v: number) => v.toFixed(2);
export const fmtEffect = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;
