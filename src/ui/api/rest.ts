import { asEnvelope, httpCall, unwrap, type CallOptions, type Result } from './http.js';

export type Query = Record<string, string | number | boolean | null | undefined>;

const withQuery = (path: string, query?: Query) => {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
};

/**
 * The second call style of 000 §7: REST under /api with the `User` header, answering one envelope.
 * `restEnvelope` never throws; `rest.get/post` return the result or throw ApiError.
 */
export async function restEnvelope<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, data?: Query | unknown, opts?: CallOptions): Promise<Result<T>> {
  const isGet = method === 'GET';
  const url = isGet ? withQuery(path, data as Query | undefined) : path;
  const r = await httpCall(method, url, isGet ? undefined : (data ?? {}), opts);
  return asEnvelope<T>(r.body);
}

export const rest = {
  /** GET /api{path}?query -> result (throws ApiError). */
  get: async <T = unknown>(path: string, query?: Query, opts?: CallOptions): Promise<T> => unwrap(await restEnvelope<T>('GET', path, query, opts)),
  /** POST /api{path} with a JSON body -> result (throws ApiError). */
  post: async <T = unknown>(path: string, body?: unknown, opts?: CallOptions): Promise<T> => unwrap(await restEnvelope<T>('POST', path, body, opts)),
};
