/**
 * The cron HTTP thread (src/modules/cron/http/cron-http.thread.ts): the engine's `curl=` runs go to a
 * worker thread and come back with the same outcome an in-process run (runHttp) gives: status, message,
 * output tail, Basic credentials, kill, time-out, shutdown; the thread's clock for started/ended; a
 * thread that dies or is closed ends its runs as interrupted and the next run starts another. Runs
 * posted ahead start at their second on the thread's timer, unless taken back before (exactly one of
 * the cancel and the start wins) or their task is still in flight there (skipped).
 */
import { jest } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { serveLoopback } from '../helpers/fake-http.js';
import { gzipSync } from 'node:zlib';
import { CRON_OUTPUT_TAIL, parseCronCmd, type CronHttpCmd } from '../../src/contracts/cron.js';
import { httpPlanOf, INTERRUPTED, KILLED, RunAbort, runHttp, SHUTDOWN, type HttpPlan } from '../../src/modules/cron/http/cron-http.js';
import { CronHttpThread, type Posting, type PostingEvents, type TimedOutcome } from '../../src/modules/cron/http/cron-http.thread.js';

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

const waitFor = async (ok: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};
const plan = (cmd: string): HttpPlan => httpPlanOf(parseCronCmd(cmd) as CronHttpCmd);
const strip = <T extends { started?: number; ended?: number }>(o: T) => {
  const { started: _s, ended: _e, ...rest } = o;
  return rest;
};

/** The events of posted runs, as the engine gets them. */
function recorder() {
  const log: Array<{ seq: number; kind: 'started' | 'skipped' | 'ended' | 'dropped'; at?: number; message?: string; o?: TimedOutcome; lost?: boolean }> = [];
  const events: PostingEvents = {
    started: (p, at) => log.push({ seq: p.seq, kind: 'started', at }),
    skipped: (p, message, at) => log.push({ seq: p.seq, kind: 'skipped', message, at }),
    ended: (p, o) => log.push({ seq: p.seq, kind: 'ended', o }),
    dropped: (p, lost) => log.push({ seq: p.seq, kind: 'dropped', lost }),
  };
  const of = (p: Posting) => log.filter((e) => e.seq === p.seq);
  return { log, events, of };
}
/** A whole second at least `ms` from now. */
const secondIn = (ms: number) => Math.ceil((Date.now() + ms) / 1000) * 1000;

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

  test('runs posted ahead start at their second on the thread timer, with their events in order', async () => {
    const r = recorder();
    const at = secondIn(300);
    const posts = [1, 2, 3].map((i) => thread.ahead(100 + i, plan(`curl=${url}/ahead/${i}?at=${at}`), at, new RunAbort(), r.events)!);
    await new Promise((res) => setTimeout(res, 50));
    expect(hits.filter((h) => h.includes(`at=${at}`))).toEqual([]); // nothing before the second
    await waitFor(() => r.log.filter((e) => e.kind === 'ended').length === 3);
    for (const [i, p] of posts.entries()) {
      const ev = r.of(p);
      expect(ev.map((e) => e.kind)).toEqual(['started', 'ended']);
      expect(ev[0].at).toBeGreaterThanOrEqual(at);
      expect(ev[0].at).toBeLessThan(at + 500);
      expect(ev[1].o).toMatchObject({ status: 'ok', message: 'HTTP 200 OK', output: `ok GET /ahead/${i + 1}?at=${at}`, started: ev[0].at });
      expect(thread.cancel(p)).toBe('started');
    }
  });

  test('cancel before the second: the run never starts (dropped); after it, cancel says started', async () => {
    const r = recorder();
    const at = secondIn(300);
    const gone = thread.ahead(201, plan(`curl=${url}/ahead/gone?at=${at}`), at, new RunAbort(), r.events)!;
    const kept = thread.ahead(202, plan(`curl=${url}/ahead/kept?at=${at}`), at, new RunAbort(), r.events)!;
    expect(thread.cancel(gone)).toBe('cancelled');
    expect(thread.cancel(gone)).toBe('cancelled');
    await waitFor(() => r.of(kept).some((e) => e.kind === 'ended') && r.of(gone).length > 0);
    expect(r.of(gone)).toEqual([{ seq: gone.seq, kind: 'dropped', lost: false }]);
    expect(hits.filter((h) => h.includes(`/ahead/gone?at=${at}`))).toEqual([]);
    expect(thread.cancel(kept)).toBe('started');
    // A kill after the start reaches the run in the thread.
    const k = recorder();
    const at2 = secondIn(300);
    const abort = new RunAbort();
    const hang = thread.ahead(203, plan(`curl=${url}/never/ahead?at=${at2}`), at2, abort, k.events)!;
    await waitFor(() => thread.peek(hang) === 'started');
    abort.abort(KILLED);
    await waitFor(() => k.of(hang).some((e) => e.kind === 'ended'));
    expect(k.of(hang).map((e) => e.kind)).toEqual(['started', 'ended']);
    expect(strip(k.of(hang)[1].o!)).toEqual({ status: 'killed', message: 'Killed', output: null });
  });

  test('a posted run whose task is still in flight in the thread is skipped, not started', async () => {
    const r = recorder();
    const kill = new RunAbort();
    const first = thread.run(plan(`curl=${url}/never/busy`), kill, 301);
    const at = Date.now() + 200; // before this thread's 500 ms time-out ends the first run
    const next = thread.ahead(301, plan(`curl=${url}/ahead/busy?at=${at}`), at, new RunAbort(), r.events)!;
    const other = thread.ahead(302, plan(`curl=${url}/ahead/free?at=${at}`), at, new RunAbort(), r.events)!;
    await waitFor(() => r.of(next).length > 0 && r.of(other).some((e) => e.kind === 'ended'));
    expect(r.of(next)).toEqual([{ seq: next.seq, kind: 'skipped', message: expect.stringMatching(/^Still running \(started \d{4}-/), at: expect.any(Number) }]);
    expect(r.of(next)[0].at).toBeGreaterThanOrEqual(at);
    expect(thread.cancel(next)).toBe('skipped');
    expect(hits.filter((h) => h.includes(`/ahead/busy?at=${at}`))).toEqual([]);
    kill.abort(KILLED);
    expect((await first).status).toBe('killed');
  });

  test('a thread that dies ends its runs as interrupted; the next run starts another', async () => {
    const p = thread.run(plan(`curl=${url}/never/dies`), new RunAbort());
    await new Promise((r) => setTimeout(r, 100));
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    expect(await p).toEqual({ status: 'error', message: expect.stringMatching(/^Interrupted: the cron HTTP thread stopped/), output: null });
    await thread.whenReady();
    expect((await thread.run(plan(`curl=${url}/again`), new RunAbort())).output).toBe('ok GET /again');
  });

  test('a thread that dies gives back the posted runs it had not started (lost) and ends those it had as interrupted', async () => {
    const r = recorder();
    const now = Date.now();
    const started = thread.ahead(401, plan(`curl=${url}/never/started`), now, new RunAbort(), r.events)!;
    const later = thread.ahead(402, plan(`curl=${url}/ahead/later`), now + 60_000, new RunAbort(), r.events)!;
    await waitFor(() => r.of(started).length > 0);
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await waitFor(() => r.of(later).length > 0 && r.of(started).length > 1);
    expect(r.of(later)).toEqual([{ seq: later.seq, kind: 'dropped', lost: true }]);
    expect(r.of(started).map((e) => e.kind)).toEqual(['started', 'ended']);
    expect(r.of(started)[1].o).toEqual({ status: 'error', message: expect.stringMatching(/^Interrupted: the cron HTTP thread stopped/), output: null });
    // Not loaded yet: nothing is posted ahead (the engine starts those ticks itself).
    expect(thread.ahead(403, plan(`curl=${url}/a`), Date.now(), new RunAbort(), r.events)).toBeNull();
    await thread.whenReady();
    expect(thread.ahead(403, plan(`curl=${url}/a`), Date.now(), new RunAbort(), r.events)).not.toBeNull();
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
