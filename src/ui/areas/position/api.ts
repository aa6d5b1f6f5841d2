/** Typed RPC methods of search positions (declaration merging into the UI's RpcMethods; docs/position.md). */
import type { NotConfigured } from '../../../contracts/outside.js';
import type { PositionCheckResult, PositionProject, PositionQueryList, PositionStatus, PositionTopStats } from '../../../contracts/position.js';

export interface ProjectSave {
  id_project?: number;
  name: string;
  domain: string;
  engine?: string;
  region?: number | string;
  schedule_hours?: number | string;
  depth?: number | string;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'position.getProjects': { args: Record<string, never>; result: { list: PositionProject[]; configured: boolean } };
    'position.getQueries': { args: { id_project: number; p_?: number; limit?: number; days?: number; id_query?: number }; result: PositionQueryList };
    'position.getTopStats': { args: { id_project: number; days?: number; top?: number }; result: PositionTopStats };
    'position.getStatus': { args: Record<string, never>; result: PositionStatus };
    'position.saveProject': { args: ProjectSave; result: { id_project: number; message: string } };
    'position.removeProject': { args: { id_project: number }; result: { message: string } };
    'position.saveQueries': { args: { id_project: number; queries: string; cat_id?: number | string }; result: { added: number; skipped: number; message: string } };
    'position.updateQuery': { args: { id_query: number; query_text?: string; cat_id?: number | string }; result: { message: string } };
    'position.removeQuery': { args: { id_query: number }; result: { message: string } };
    'position.checkNow': { args: { id_project: number }; result: PositionCheckResult | NotConfigured };
  }
}
