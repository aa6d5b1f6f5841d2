/**
 * The cron HTTP thread (src/modules/cron/http/cron-http.thread.ts): the engine's `curl=` runs go to a
 * worker thread and come back with the same outcome an in-process run (runHttp) gives: status, message,
 * output tail, Basic credentials, kill, time-out, shutdown; the thread's clock for started/ended; a
 * thread that dies or is closed ends its runs as interrupted and the next run starts another.
 */
import { jest } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { serveLoopback } from '../helpers/fake-http.js';
import { gzipSync } from 'node:zlib';
import { CRON_OUTPUT_TAIL, parseCronCmd, type CronHttpCmd } from '../../src/contracts/cron.js';
import { httpPlanOf, INTERRUPTED, KILLED, RunAbort, runHttp, SHUTDOWN, type HttpPlan } from '../../src/modules/cron/http/cron-http.js';
import { CronHttpThread } from '../../src/modules/cron/http/cron-http.thread.js';

jest.setTimeout(60_000);

let closeServer: () => Promise<void>;
let url = '';
const hanging = new Set<ServerResponse>();
const hits: string[] = [];

beforeAll(async () => {
  ({ url, close: closeServer } = await serveLoopback((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/big') res.end('x'.repeat(200_000) + 'THE END');
    else if (req.url?.startsWith('/never')) hanging.add(res);
    else if (req.url === '/teapot') { res.statusCode = 418; res.end('short and stout'); }
    else if (req.url === '/gzip') { res.setHeader('content-encoding', 'gzip'); res.end(gzipSync('unpacked body')); }
    else if (req.url === '/echo') res.end(JSON.stringify({ auth: req.headers.authorization ?? null, method: req.method }));
    else res.end(`ok ${req.method} ${req.url}`);
  }));
});
afterAll(async () => {
  await closeServer();
});

const plan = (cmd: string): HttpPlan => httpPlanOf(parseCronCmd(cmd) as CronHttpCmd);
const strip = <T extends { started?: number; ended?: number }>(o: T) => {
  const { started: _s, ended: _e, ...rest } = o;
  return rest;
};

describe('the cron HTTP thread', () => {
  const thread = new CronHttpThread({ timeoutMs: 500 });
  beforeAll(() => thread.whenReady());
  afterAll(() => thread.close());

  test('the same outcomes as an in-process run, with the thread clock for started and ended', async () => {
    const cmds = [`curl=${url}/a|arg=b=1`, `curl=${url}/teapot|method=POST`, `curl=${url}/big`, `curl=${url}/gzip`, `curl=${url.replace('//', '//bob:p%40ss@')}/echo|method=PUT`];
    for (const c of cmds) {
      const p = plan(c);
      const t0 = Date.now();
      const o = await thread.run(p, new RunAbort());
      expect(strip(o)).toEqual(await runHttp(p, new RunAbort()));
      expect(o.started).toBeGreaterThanOrEqual(t0);
      expect(o.ended).toBeGreaterThanOrEqual(o.started!);
      expect(o.ended).toBeLessThanOrEqual(Date.now());
    }
    const big = await thread.run(plan(`curl=${url}/big`), new RunAbort());
    expect(big.output!.length).toBe(CRON_OUTPUT_TAIL + 1);
    expect(JSON.parse((await thread.run(plan(`curl=${url.replace('//', '//bob:p%40ss@')}/echo`), new RunAbort())).output!)).toEqual({ auth: 'Basic ' + Buffer.from('bob:p@ss').toString('base64'), method: 'GET' });
  });

  test('a burst of runs of one plan, and of plans dropped and sent again', async () => {
    const one = plan(`curl=${url}/same`);
    const all = await Promise.all(Array.from({ length: 300 }, (_, i) => thread.run(i % 2 ? one : plan(`curl=${url}/p${i}`), new RunAbort())));
    expect(all.map((o) => o.output)).toEqual(Array.from({ length: 300 }, (_, i) => (i % 2 ? 'ok GET /same' : `ok GET /p${i}`)));
    thread.drop(one);
    expect((await thread.run(one, new RunAbort())).output).toBe('ok GET /same');
  });

  test('kill, time-out, shutdown and an abort before the start', async () => {
    const kill = new RunAbort();
    const p = thread.run(plan(`curl=${url}/never/kill`), kill);
    setTimeout(() => kill.abort(KILLED), 100);
    expect(strip(await p)).toEqual({ status: 'killed', message: 'Killed', output: null });

    expect(strip(await thread.run(plan(`curl=${url}/never/timeout`), new RunAbort()))).toEqual({ status: 'error', message: 'Time wait end', output: null });

    const stop = new RunAbort();
    const q = thread.run(plan(`curl=${url}/never/stop`), stop);
    stop.abort(SHUTDOWN); // in the same pass as its start: the start reaches the thread first
    expect(strip(await q)).toEqual({ status: 'error', message: INTERRUPTED, output: null });

    const early = new RunAbort();
    early.abort(KILLED);
    expect(await thread.run(plan(`curl=${url}/a`), early)).toEqual({ status: 'killed', message: 'Killed', output: null });
    expect(await thread.run(plan('curl=http://127.0.0.1:1/x'), new RunAbort())).toEqual({ status: 'error', message: 'fetch failed: bad port', output: null });
  });

  test('a thread that dies ends its runs as interrupted; the next run starts another', async () => {
    const p = thread.run(plan(`curl=${url}/never/dies`), new RunAbort());
    await new Promise((r) => setTimeout(r, 100));
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect(await p).toEqual({ status: 'error', message: expect.stringMatching(/^Interrupted: the cron HTTP thread stopped/), output: null });
    await thread.whenReady();
    expect((await thread.run(plan(`curl=${url}/again`), new RunAbort())).output).toBe('ok GET /again');
  });
});

test('close ends the runs in flight as interrupted and refuses later ones the same way', async () => {
  const thread = new CronHttpThread();
  await thread.whenReady();
  const p = thread.run(plan(`curl=${url}/never/close`), new RunAbort());
  await new Promise((r) => setTimeout(r, 100));
  await thread.close();
  expect(await p).toEqual({ status: 'error', message: INTERRUPTED, output: null });
  expect(await thread.run(plan(`curl=${url}/a`), new RunAbort())).toEqual({ status: 'error', message: INTERRUPTED, output: null });
});
