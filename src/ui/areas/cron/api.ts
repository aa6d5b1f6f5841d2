/** Typed RPC methods and socket messages of the cron area (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import type { CronAction, CronRunView, CronServiceStatus, CronStatus, CronTaskView } from '../../../contracts/cron.js';
import type { Envelope } from '../../../contracts/envelope.js';
import { ApiError } from '../../api/http.js';
import { request } from '../../api/socket.js';

export interface CronSaveInput {
  Id?: number;
  name?: string;
  second?: string;
  minute?: string;
  hour?: string;
  day?: string;
  month?: string;
  week?: string;
  cmd?: string;
  suspended?: 0 | 1;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'cfg.getAppCron': { args: { Id?: number } | void; result: CronTaskView | CronTaskView[] };
    'cfg.saveAppCron': { args: CronSaveInput; result: { Id: number; message: string } };
    'cfg.appCronDelete': { args: { Id: number }; result: { Id: number; message: string } };
    'cron.getRuns': { args: { Id: number; page?: number; limit?: number }; result: Paged<CronRunView> };
    'cron.getStatus': { args: void; result: CronStatus };
    'cron.getActions': { args: void; result: CronAction[] };
  }
}

/** The cron socket messages of 000 §7 answer an envelope: this unwraps it (or throws ApiError). */
export async function cronAsk<T>(message: 'cron.getStatus' | 'cron.reload', payload?: undefined): Promise<CronStatus>;
export async function cronAsk<T>(message: 'cron.getServiceStatus' | 'cron.setServiceStatus', payload?: { service: 0 | 1 }): Promise<CronServiceStatus>;
export async function cronAsk<T>(message: 'cron.kill' | 'cron.executeTask', payload: { Id: number }): Promise<T>;
export async function cronAsk(message: string, payload?: unknown): Promise<unknown> {
  const env = await request<Envelope>(message, payload ?? {});
  if (env.status !== 'ok') throw new ApiError(env);
  return env.result;
}
