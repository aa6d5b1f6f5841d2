/**
 * A local HTTP server standing for an outside service (DESIGN.md "Outside-service clients"; the
 * service's own shapes live in test/helpers/fakes/<service>.ts): loopback, port 0, a route table, every
 * request recorded (method, path, query, headers, body, time), and scripted answers: a status, a body,
 * Retry-After, a hold (no answer until released: a time-out), a closed connection (no answer at all),
 * or a handler that writes the response itself (a stream).
 *
 *   const f = await startFakeHttp({ 'GET /v1/items': { body: { items: [] } } });
 *   f.script('GET /v1/items', { status: 503, retryAfter: 1 }, { status: 200, body: { items: [1] } });
 *   f.url; f.requests; f.release(); await f.close();
 *
 * Scripted answers are used once each, in order, before the route's own answer; a request with no
 * route is answered 404 `{"error": "no route"}` (and recorded).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface FakeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  /** The path with the query, as sent. */
  url: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body as JSON (undefined when it is not). */
  json: any;
  /** Date.now() when the request came in. */
  at: number;
}

export interface FakeReply {
  status?: number;
  /** An object or array: JSON; a string or Buffer: as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as the Retry-After header (seconds, or an HTTP date as a string). */
  retryAfter?: number | string;
  /** No answer until `release()` (or close): for time-outs. */
  hold?: boolean;
  /** The connection is destroyed without an answer. */
  close?: boolean;
  /** Writes the response itself (server-sent events, slow bodies). */
  write?: (res: ServerResponse, req: FakeRequest) => void;
}

export type FakeHandler = FakeReply | ((req: FakeRequest) => FakeReply | Promise<FakeReply>);

export interface FakeHttp {
  url: string;
  port: number;
  /** Every request, in order. */
  requests: FakeRequest[];
  /** Requests to one route (`'POST /py/ai/report'`). */
  to(route: string): FakeRequest[];
  /** Sets (or replaces) a route's answer. Routes are `'METHOD /path'`; the path may end in `*` (a prefix). */
  route(route: string, handler: FakeHandler): void;
  /** Answers the route's next requests with these, once each, before its own answer. */
  script(route: string, ...replies: FakeReply[]): void;
  /** Answers every request held so far, with its route's own answer. */
  release(): void;
  /** Responses open now (held or streaming). */
  open: Set<ServerResponse>;
  /** Forgets the requests and the scripts (routes stay). */
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeHttp(routes: Record<string, FakeHandler> = {}): Promise<FakeHttp> {
  const table = new Map<string, FakeHandler>(Object.entries(routes));
  const scripts = new Map<string, FakeReply[]>();
  const requests: FakeRequest[] = [];
  const held: Array<() => void> = [];
  const open = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  /** The key of `keys` matching a request: the exact `METHOD /path`, else a `METHOD /prefix*`. */
  const match = (keys: Iterable<string>, method: string, path: string): string | undefined => {
    const exact = `${method} ${path}`;
    let prefix: string | undefined;
    for (const key of keys) {
      if (key === exact) return key;
      const [m, p] = key.split(' ');
      if (!prefix && m === method && p.endsWith('*') && path.startsWith(p.slice(0, -1))) prefix = key;
    }
    return prefix;
  };
  /** The route's own answer (not a script). */
  const routeOf = (method: string, path: string) => {
    const key = match(table.keys(), method, path);
    return key ? table.get(key) : undefined;
  };

  const answer = (res: ServerResponse, req: FakeRequest, r: FakeReply) => {
    if (r.close) return void res.socket?.destroy();
    if (r.write) return r.write(res, req);
    const headers: Record<string, string> = { ...r.headers };
    if (r.retryAfter !== undefined) headers['retry-after'] = String(r.retryAfter);
    let body: string | Buffer = '';
    if (Buffer.isBuffer(r.body) || typeof r.body === 'string') body = r.body;
    else if (r.body !== undefined) {
      body = JSON.stringify(r.body);
      headers['content-type'] ??= 'application/json';
    }
    res.writeHead(r.status ?? 200, headers).end(body);
  };

  const server: Server = createServer((msg, res) => {
    const chunks: Buffer[] = [];
    msg.on('data', (c: Buffer) => chunks.push(c));
    msg.on('end', () => {
      const u = new URL(msg.url ?? '/', 'http://fake');
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try { json = body ? JSON.parse(body) : undefined; } catch { json = undefined; }
      const req: FakeRequest = { method: msg.method ?? 'GET', path: u.pathname, url: msg.url ?? '/', query: u.searchParams, headers: msg.headers, body, json, at: Date.now() };
      requests.push(req);
      open.add(res);
      res.on('close', () => open.delete(res));
      const scriptKey = match([...scripts.keys()].filter((k) => scripts.get(k)!.length > 0), req.method, req.path);
      const scripted = scriptKey ? scripts.get(scriptKey)!.shift() : undefined;
      const handler: FakeHandler | undefined = scripted ?? routeOf(req.method, req.path);
      if (!handler) return answer(res, req, { status: 404, body: { error: 'no route' } });
      void Promise.resolve(typeof handler === 'function' ? handler(req) : handler).then((r) => {
        if (r.hold) {
          // held: answered by release() with the route's own answer (or a 200 without body)
          held.push(() => {
            const own = routeOf(req.method, req.path);
            void Promise.resolve(typeof own === 'function' ? own(req) : own ?? {}).then((o) => { if (!res.writableEnded && !res.destroyed) answer(res, req, { ...o, hold: false }); });
          });
          return;
        }
        answer(res, req, r);
      }, (err: Error) => answer(res, req, { status: 500, body: { error: err.message } }));
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    open,
    to: (route) => {
      const [m, p] = route.split(' ');
      return requests.filter((r) => r.method === m && (p.endsWith('*') ? r.path.startsWith(p.slice(0, -1)) : r.path === p));
    },
    route: (route, handler) => void table.set(route, handler),
    script: (route, ...replies) => {
      const q = scripts.get(route) ?? [];
      q.push(...replies);
      scripts.set(route, q);
    },
    release: () => { for (const h of held.splice(0)) h(); },
    reset: () => { requests.length = 0; scripts.clear(); },
    close: async () => {
      held.length = 0;
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * A test's own node:http handler on loopback, port 0 (for a test that writes its answers itself rather
 * than scripting them): its URL, and a close that ends every connection first (held answers included).
 */
export async function serveLoopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
