/** Typed RPC methods of run once, deploy and the server console (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import type { ConsoleApp, DeployHost, DeployResult, DeployRunView, DeployType, RunOnceResult } from '../../../contracts/deploy.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'srv.runOnce': { args: { ids: number[]; cmd: string; timeout?: number; run?: string }; result: RunOnceResult };
    'srv/action.deploy': { args: { type: DeployType; host: string }; result: DeployResult };
    'deploy.getHosts': { args: void; result: DeployHost[] };
    'deploy.getHistory': { args: { page?: number; host?: string; type?: DeployType }; result: Paged<DeployRunView> };
    'deploy.getConsoleApps': { args: void; result: ConsoleApp[] };
  }
}

/** Deploys and run once calls wait on many nodes: longer than the default API time-out. */
export const DEPLOY_CALL_MS = 15 * 60_000;
