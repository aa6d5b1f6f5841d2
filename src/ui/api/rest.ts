import { ApiError, asEnvelope, httpCall, unwrap, type CallOptions, type Result } from './http.js';
import { getHash } from './session.js';

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

/**
 * GET /api{path}?query as a file the browser saves (CSV exports, .ics calendars): the session goes in
 * the User header, never the URL. A refused download (an envelope, or an answer that is not `type`)
 * throws ApiError with the server's message; `messageOf` may word an envelope's result instead.
 */
export async function downloadFile(
  path: string,
  query: Query,
  opts: { fallbackName: string; type?: string; messageOf?: (env: { message?: string; result?: unknown }) => string | undefined },
): Promise<void> {
  const hash = getHash();
  const res = await fetch(withQuery(`/api${path}`, query), { headers: hash ? { User: hash } : {} });
  if (!res.ok || (opts.type && !(res.headers.get('content-type') ?? '').startsWith(opts.type))) {
    let message = `HTTP ${res.status}`;
    try {
      const env = (await res.json()) as { message?: string; result?: unknown };
      message = opts.messageOf?.(env) ?? env.message ?? message;
    } catch { /* not an envelope */ }
    throw new ApiError({ status: 'error', message, code: res.status });
  }
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? opts.fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
