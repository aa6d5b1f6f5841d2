/** Typed RPC methods of the search-node admin (declaration merging into the UI's RpcMethods). */
import type {
  RotateResult, SearchHostRow, SearchHostView, SourceAction, SourceView, SphinxConfResult,
} from '../../../contracts/search-nodes.js';

export interface ConnectInput { name: string; query: string }
export interface SourceInput { source: string; connect: string; ttl_min: number | string; query: string; attribute: string; index: string }

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'hosts.get': { args: void; result: SearchHostRow[] };
    'hosts.getById': { args: { Id: number }; result: SearchHostView };
    'hosts.insert': { args: { name: string; connect: ConnectInput[] }; result: { Id: number; message: string } };
    'hosts.update': { args: { Id: number; name?: string; connect?: ConnectInput[] }; result: 'ok' };
    'source.get': { args: { live?: 0 | 1 } | void; result: SourceView[] };
    'source.getById': { args: { Id: number }; result: SourceView };
    'source.getSourceAction': { args: { Id: number }; result: SourceAction };
    'source.insert': { args: SourceInput; result: { Id: number; message: string } };
    'source.update': { args: Partial<SourceInput> & { Id: number }; result: 'ok' };
    'source.rotate': { args: { Id: number }; result: RotateResult };
    'sphinx_control.createSphinxConf': { args: Record<string, never>; result: SphinxConfResult };
  }
}
