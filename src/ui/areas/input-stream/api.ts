/** Typed RPC methods of the input stream (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import type { MetricsView, StreamCatRow, StreamCatView, StreamItemRow, StreamSiteToken, StreamSiteView } from '../../../contracts/input-stream.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'stream.cats': { args: { p_?: number; days?: number; Id_cat?: number; q?: string }; result: Paged<StreamCatRow> };
    'stream.items': { args: { p_?: number; days?: number; Id_cat?: number; Id_book?: number }; result: Paged<StreamItemRow> };
    'stream.cat': { args: { id: number; p_?: number; days?: number }; result: StreamCatView };
    'metrics.get': { args: { days?: number; Id_cat?: number; Id_book?: number }; result: MetricsView };
    'stream.sites': { args: void; result: StreamSiteView[] };
    'stream.siteSave': { args: { Id?: number; name?: string; active?: number }; result: StreamSiteToken | { Id: number; name: string } };
    'stream.siteRotate': { args: { Id: number }; result: StreamSiteToken };
    'stream.siteRemove': { args: { Id: number }; result: { Id: number; message: string } };
  }
}
