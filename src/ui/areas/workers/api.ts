/** Typed RPC methods of the worker list (declaration merging into the UI's RpcMethods). */
import type { WorkerView } from '../../../contracts/workers.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'worker.getList': { args: { page?: number }; result: { list: WorkerView[]; count: number } };
    'worker.start': { args: { name: string }; result: WorkerView };
    'worker.stop': { args: { name: string }; result: WorkerView };
  }
}
