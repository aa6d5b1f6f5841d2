/**
 * The runner of one cron command against local HTTP servers and a stand-in registry: outcome, message,
 * output tail (bounded memory for a large body), time-out ('Time wait end'), kill, refused connection,
 * and an action's result, failure and kill.
 */
import type { ServerResponse } from 'node:http';
import { serveLoopback } from '../helpers/fake-http.js';
import { gzipSync } from 'node:zlib';
import { CRON_OUTPUT_TAIL, parseCronCmd } from '../../src/contracts/cron.js';
import { AppError } from '../../src/core/errors.js';
import type { RpcRegistry } from '../../src/core/rpc/rpc.registry.js';
import { KILLED, runCronCmd } from '../../src/modules/cron/cron-runner.js';

let closeServer: () => Promise<void>;
let url = '';
const hanging = new Set<ServerResponse>();
const BIG = 'x'.repeat(1_000_000) + 'THE END';

beforeAll(async () => {
  ({ url, close: closeServer } = await serveLoopback((req, res) => {
    if (req.url === '/big') res.end(BIG);
    else if (req.url === '/never') hanging.add(res);
    else if (req.url === '/teapot') { res.statusCode = 418; res.end('short and stout'); }
    else if (req.url === '/reason') { res.statusCode = 503; res.statusMessage = 'Back Soon'; res.end(); }
    else if (req.url === '/moved') { res.statusCode = 302; res.setHeader('location', '/echo?from=moved'); res.end(); }
    else if (req.url === '/gzip') { res.setHeader('content-encoding', 'gzip'); res.end(gzipSync('unpacked body')); }
    else if (req.url?.startsWith('/echo')) {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null, accept: req.headers.accept, body })));
    }
    else res.end(`ok ${req.method} ${req.url}`);
  }));
});
afterAll(async () => {
  await closeServer();
});

const actor = async () => ({ uid: 1, login: 'admin', name: 'Admin', role: 1 });
const registry = (invoke: (name: string, args: unknown, ctx: { signal?: AbortSignal }) => Promise<unknown>) => ({ invoke }) as unknown as RpcRegistry;
const noRegistry = registry(async () => { throw new Error('not called'); });
const run = (cmd: string, opts: { abort?: AbortController; registry?: RpcRegistry; timeoutMs?: number } = {}) =>
  runCronCmd(parseCronCmd(cmd), opts.abort ?? new AbortController(), { registry: opts.registry ?? noRegistry, actor, timeoutMs: opts.timeoutMs });

describe('curl= tasks', () => {
  test('ok with the status and the body', async () => {
    expect(await run(`curl=${url}/a|arg=b=1`)).toEqual({ status: 'ok', message: 'HTTP 200 OK', output: 'ok GET /a?b=1' });
  });
  test('a non-2xx answer is an error with its status', async () => {
    expect(await run(`curl=${url}/teapot|method=POST`)).toEqual({ status: 'error', message: "HTTP 418 I'm a Teapot", output: 'short and stout' });
  });
  test('only the tail of a large body is kept', async () => {
    const r = await run(`curl=${url}/big`);
    expect(r.status).toBe('ok');
    expect(r.output!.length).toBe(CRON_OUTPUT_TAIL + 1);
    expect(r.output!.startsWith('…')).toBe(true);
    expect(r.output!.endsWith('xxxTHE END')).toBe(true);
  });
  test("a request that never answers ends at the time-out with 'Time wait end'", async () => {
    const t0 = Date.now();
    expect(await run(`curl=${url}/never`, { timeoutMs: 300 })).toEqual({ status: 'error', message: 'Time wait end', output: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
  test('kill aborts the request', async () => {
    const abort = new AbortController();
    const p = run(`curl=${url}/never`, { abort });
    setTimeout(() => abort.abort(KILLED), 100);
    expect(await p).toEqual({ status: 'killed', message: 'Killed', output: null });
  });
  test('method, form body and Basic auth from the URL user part (percent-decoded, not in the URL)', async () => {
    const r = await run(`curl=${url.replace('//', '//bob:p%40ss@')}/echo|method=POST|arg=a=1&&b=x y`);
    expect(r.status).toBe('ok');
    expect(JSON.parse(r.output!)).toEqual({
      method: 'POST', url: '/echo', auth: 'Basic ' + Buffer.from('bob:p@ss').toString('base64'), type: 'application/x-www-form-urlencoded', accept: '*/*', body: 'a=1&b=x+y',
    });
  });
  test('a JSON argument is the body; HEAD reads no body', async () => {
    const r = await run(`curl=${url}/echo|method=PUT|arg={"a":1}`);
    expect(JSON.parse(r.output!)).toMatchObject({ method: 'PUT', type: 'application/json', body: '{"a":1}', auth: null });
    expect(await run(`curl=${url}/echo|method=HEAD`)).toEqual({ status: 'ok', message: 'HTTP 200 OK', output: '' });
  });
  test("the server's own reason phrase is the message", async () => {
    expect(await run(`curl=${url}/reason`)).toEqual({ status: 'error', message: 'HTTP 503 Back Soon', output: '' });
  });
  test('redirects are followed (a POST after 302 becomes a GET)', async () => {
    const r = await run(`curl=${url}/moved|method=POST|arg=a=1`);
    expect(r.status).toBe('ok');
    expect(JSON.parse(r.output!)).toMatchObject({ method: 'GET', url: '/echo?from=moved', body: '' });
  });
  test('a compressed body is decoded', async () => {
    expect(await run(`curl=${url}/gzip`)).toEqual({ status: 'ok', message: 'HTTP 200 OK', output: 'unpacked body' });
  });
  test('kill before the request is sent, and many runs in parallel on the shared agent', async () => {
    const abort = new AbortController();
    abort.abort(KILLED);
    expect(await run(`curl=${url}/a`, { abort })).toEqual({ status: 'killed', message: 'Killed', output: null });
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => run(`curl=${url}/p${i}`)));
    expect(all.map((r) => r.output)).toEqual(Array.from({ length: 50 }, (_, i) => `ok GET /p${i}`));
  });
  test('a refused connection is an error naming the cause', async () => {
    const closed = await serveLoopback(() => undefined);
    const port = new URL(closed.url).port;
    await closed.close();
    expect(await run(`curl=http://127.0.0.1:${port}/x`)).toMatchObject({ status: 'error', message: expect.stringMatching(/^ECONNREFUSED: connect ECONNREFUSED/) });
    expect(await run('curl=http://127.0.0.1:1/x')).toMatchObject({ status: 'error', message: 'fetch failed: bad port' });
  });
});

describe('path=/method= tasks', () => {
  test('the action gets its name, argument and the signal; its message is the outcome', async () => {
    const calls: unknown[] = [];
    const reg = registry(async (name, args, ctx) => { calls.push([name, args, ctx.signal instanceof AbortSignal]); return { message: 'Iptables sync OK!!!', count: 3 }; });
    expect(await run('path=srv/action|method=syncIptableRules|arg=host=a&&force=true', { registry: reg })).toEqual({
      status: 'ok', message: 'Iptables sync OK!!!', output: '{"message":"Iptables sync OK!!!","count":3}',
    });
    expect(calls).toEqual([['srv/action.syncIptableRules', { host: 'a', force: true }, true]]);
  });
  test("a failing action records the error's message", async () => {
    const reg = registry(async () => { throw new AppError(404, 'Server 7 not found', 'empty'); });
    expect(await run('path=srv|method=get|arg=Id=7', { registry: reg })).toEqual({ status: 'error', message: 'Server 7 not found', output: null });
  });
  test('kill ends the wait for an action that ignores the signal', async () => {
    const abort = new AbortController();
    const reg = registry(() => new Promise((r) => setTimeout(() => r('late'), 2_000).unref()));
    setTimeout(() => abort.abort(KILLED), 100);
    const t0 = Date.now();
    expect(await run('path=a|method=b', { abort, registry: reg })).toEqual({ status: 'killed', message: 'Killed', output: null });
    expect(Date.now() - t0).toBeLessThan(1_500);
  });
});
