/** The response wrapper of 000 §3: every answer of the API, REST or RPC, is one of these. */
export type EnvelopeStatus = 'ok' | 'error' | 'rules' | 'http' | 'empty' | 'db' | 'parse';

export interface OkEnvelope<T = unknown> {
  status: 'ok';
  result: T;
}

export interface ErrorEnvelope {
  status: Exclude<EnvelopeStatus, 'ok'>;
  message: string;
  /** HTTP-like code of the failure (400, 401, 403, 404, 409, 422, 429, 500, 502, 504). */
  code?: number;
  /** Per-field messages for validation failures ('rules'). */
  fields?: Record<string, string>;
}

export type Envelope<T = unknown> = OkEnvelope<T> | ErrorEnvelope;

/** 000 §3: all statuses but ok and parse count as error. */
export const isErrorEnvelope = (e: Envelope): e is ErrorEnvelope => e.status !== 'ok' && e.status !== 'parse';

/** Body of the main RPC style (000 §7). */
export interface RpcRequest {
  methods: string[];
  args?: unknown[];
  host?: number | string;
}
