/**
 * The runner of one cron command against local HTTP servers and a stand-in registry: outcome, message,
 * output tail (bounded memory for a large body), time-out ('Time wait end'), kill, refused connection,
 * and an action's result, failure and kill.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRON_OUTPUT_TAIL, parseCronCmd } from '../../src/contracts/cron.js';
import { AppError } from '../../src/core/errors.js';
import type { RpcRegistry } from '../../src/core/rpc/rpc.registry.js';
import { KILLED, runCronCmd } from '../../src/modules/cron/cron-runner.js';

let server: Server;
let url = '';
const hanging = new Set<ServerResponse>();
const BIG = 'x'.repeat(1_000_000) + 'THE END';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') res.end(BIG);
    else if (req.url === '/never') hanging.add(res);
    else if (req.url === '/teapot') { res.statusCode = 418; res.end('short and stout'); }
    else res.end(`ok ${req.method} ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of hanging) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
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
  test('a refused connection is an error naming the cause', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
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
