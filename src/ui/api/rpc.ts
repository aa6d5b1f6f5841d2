import type { AuditRow, Paged, UserView } from '../../contracts/auth.js';
import type { RpcRequest } from '../../contracts/envelope.js';
import { asEnvelope, httpCall, unwrap, type CallOptions, type Result } from './http.js';

/**
 * Known RPC methods with their argument and result types. Areas add theirs by declaration merging:
 *
 *   declare module '../../api/rpc.js' {
 *     interface RpcMethods { 'srv.getList': { args: { page?: number }; result: Server[] } }
 *   }
 *
 * Unknown method names still work (`rpc<MyType>('x.y', args)`), typed by the caller.
 */
export interface RpcMethods {
  'user.me': { args: void; result: UserView };
  'user.getList': { args: { page?: number; limit?: number }; result: Paged<UserView> };
  'user.remove': { args: { uid: number }; result: { message: string } };
  'user.save': { args: { uid: number; active?: 0 | 1 | boolean; role?: number; name?: string; password?: string }; result: UserView };
  'audit.getList': {
    /** from/to: 'YYYY-MM-DD' (a whole UTC day) or an ISO date-time with a zone; both inclusive. */
    args: { page?: number; limit?: number; method?: string; login?: string; outcome?: 'ok' | 'error'; from?: string; to?: string };
    result: Paged<AuditRow>;
  };
  'audit.get': { args: { Id: number }; result: AuditRow };
}
export type RpcName = keyof RpcMethods;
/**
 * A method name not in RpcMethods (a known name with wrong arguments must not silently fall back to
 * the untyped overload). With an explicit result type, `rpc<T>('any.name')`, M stays `string`.
 */
export type OtherMethod<M extends string> = M & (M extends RpcName ? never : unknown);

/** One call of a batch: [method, args]. */
export type RpcCall = readonly [method: string, args?: unknown];

/**
 * The main style of 000 §7: POST /api {methods, args, host: 0} -> one envelope per method, read by
 * index. Never throws: a transport failure (time-out, 401, non-JSON) becomes that failure for every
 * method of the batch.
 */
export async function rpcBatch(calls: readonly RpcCall[], opts?: CallOptions): Promise<Result<unknown>[]> {
  const body: RpcRequest = { methods: calls.map((c) => c[0]), args: calls.map((c) => c[1] ?? null), host: 0 };
  const r = await httpCall('POST', '', body, opts);
  if (Array.isArray(r.body)) return calls.map((_, i) => asEnvelope(r.body && (r.body as unknown[])[i]));
  const one = asEnvelope(r.body);
  const failure: Result<unknown> = one.status === 'ok' ? { status: 'parse', message: 'Unexpected answer: not a list of envelopes' } : one;
  return calls.map(() => failure);
}

/** One RPC method -> its envelope (never throws). */
export function rpcEnvelope<M extends RpcName>(method: M, args?: RpcMethods[M]['args'], opts?: CallOptions): Promise<Result<RpcMethods[M]['result']>>;
export function rpcEnvelope<T = unknown, M extends string = string>(method: OtherMethod<M>, args?: unknown, opts?: CallOptions): Promise<Result<T>>;
export async function rpcEnvelope(method: string, args?: unknown, opts?: CallOptions): Promise<Result<unknown>> {
  const [e] = await rpcBatch([[method, args]], opts);
  return e;
}

/**
 * One RPC method -> its result; throws ApiError (message, status, code, fields) on failure.
 *   const page = await rpc('user.getList', { page: 2, limit: 50 });   // typed from RpcMethods
 *   const list = await rpc<Server[]>('srv.getList', {});               // typed by the caller
 */
export function rpc<M extends RpcName>(method: M, args?: RpcMethods[M]['args'], opts?: CallOptions): Promise<RpcMethods[M]['result']>;
export function rpc<T = unknown, M extends string = string>(method: OtherMethod<M>, args?: unknown, opts?: CallOptions): Promise<T>;
export async function rpc(method: string, args?: unknown, opts?: CallOptions): Promise<unknown> {
  return unwrap(await rpcEnvelope(method, args, opts));
}
