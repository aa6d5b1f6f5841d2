/** Typed RPC methods of the logs area and 'Deploy configs' (declaration merging into the UI's RpcMethods). */
import type {
  AppLogsResult, DeployGlobalResult, LogFilesResult, LogOpenResult, LogsClustersView, LogType,
} from '../../../contracts/logs.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'logs.getClusters': { args: void; result: LogsClustersView };
    'logs.getFiles': { args: { Id: number }; result: LogFilesResult };
    'logs.open': { args: { Id: number; name: string; lines?: number; type?: LogType }; result: LogOpenResult };
    'logs.remove': { args: { Id: number; name: string }; result: { host: string; res: unknown } };
    'logs.clearAll': { args: { Id: number }; result: { host: string; res: unknown; deleted: number } };
    'logs.getAppLogs': { args: { Id?: number; level?: string; q?: string; limit?: number }; result: AppLogsResult };
    'cfg.deployGlobalConfig': { args: { test: boolean; run?: string }; result: DeployGlobalResult };
  }
}
