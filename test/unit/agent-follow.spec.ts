/**
 * The agent client's follow stream (issue 18): NODE_AGENT_TIMEOUT_MS bounds the connect and the first
 * byte only; a follow lasts until the caller stops it, and the agent going away (closing the stream or
 * falling silent past the keep-alive watchdog) ends it with a clear error naming the node. Against a
 * server-sent-event stand-in for the agent (test/helpers/fakes/agent.ts; the real agent is in
 * test/api/log-follow.e2e.ts).
 */
import type { ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/config.js';
import type { AgentTarget } from '../../src/contracts/srv.js';
import { AgentClient, type AgentEvent } from '../../src/core/outside/agent.client.js';
import { startFakeHttp, type FakeHttp } from '../helpers/fake-http.js';
import { openFollow, sendEvent as send } from '../helpers/fakes/agent.js';

type Script = (res: ServerResponse) => void;
let fake: FakeHttp;
let url = '';
let script: Script = () => undefined;
const timers: NodeJS.Timeout[] = [];
const later = (ms: number, fn: () => void) => timers.push(setTimeout(fn, ms));
const sse = (res: ServerResponse) => openFollow(res, 'node1');

beforeAll(async () => {
  fake = await startFakeHttp({ 'GET /sync/logs/follow/*': { write: (res) => script(res) } });
  url = fake.url;
});
afterEach(() => { for (const t of timers.splice(0)) clearTimeout(t); for (const r of fake.open) r.destroy(); });
afterAll(async () => { await fake.close(); });

const client = (timeoutMs: number, idleMs = 0) => {
  const c = new AgentClient({ nodeAgent: { timeoutMs, concurrency: 4, port: 1 } } as unknown as AppConfig);
  c.followIdleMs = idleMs;
  return c;
};
const target = (): AgentTarget => ({ Id: 1, name: 'node1', type: 9, ip: '127.0.0.1', url, key: 'k', cluster: null });

/** Reads the stream until `until` says stop; answers the events and the error it ended with, if any. */
async function read(c: AgentClient, signal: AbortSignal, until: (evs: AgentEvent[]) => boolean = () => false) {
  const events: AgentEvent[] = [];
  try {
    for await (const ev of c.stream(target(), '/sync/logs/follow/logs/a.log', signal)) {
      events.push(ev);
      if (until(events)) break;
    }
    return { events, error: null as null | { code: number; message: string } };
  } catch (err) {
    const e = err as { httpStatus: number; message: string };
    return { events, error: { code: e.httpStatus, message: e.message } };
  }
}

test('a line sent after 3x the time-out arrives: the time-out bounds the first byte only', async () => {
  script = (res) => { sse(res); later(1000, () => send(res, 'lines', { lines: ['late line'] })); };
  const r = await read(client(300), new AbortController().signal, (evs) => evs.length === 2);
  expect(r).toEqual({ events: [{ event: 'open', data: expect.objectContaining({ host: 'node1' }) }, { event: 'lines', data: { lines: ['late line'] } }], error: null });
});

test('keep-alives keep a follow open past the idle watchdog; the caller stopping it is a plain end', async () => {
  script = (res) => {
    sse(res);
    for (let ms = 150; ms <= 1200; ms += 150) later(ms, () => res.write(': keep-alive\n\n'));
    later(1300, () => send(res, 'lines', { lines: ['still here'] }));
  };
  const ac = new AbortController();
  const r = await read(client(300, 500), ac.signal, (evs) => { if (evs.length === 2) ac.abort(); return false; });
  expect(r.error).toBeNull();
  expect(r.events.map((e) => e.event)).toEqual(['open', 'lines']);
});

test('nothing before the time-out: 504 naming the node', async () => {
  script = () => undefined; // never answers
  expect((await read(client(300), new AbortController().signal)).error).toEqual({ code: 504, message: 'node1: the agent did not answer in 300 ms' });
  script = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }); // headers, no byte
  expect((await read(client(300), new AbortController().signal)).error).toEqual({ code: 504, message: 'node1: the agent did not answer in 300 ms' });
});

test('the agent going away ends the follow with a clear error', async () => {
  script = (res) => { sse(res); later(400, () => res.end()); };
  expect((await read(client(300), new AbortController().signal)).error).toEqual({ code: 502, message: 'node1: the agent closed the follow stream' });
  script = (res) => { sse(res); later(400, () => res.destroy()); };
  expect((await read(client(300), new AbortController().signal)).error).toMatchObject({ code: 502, message: expect.stringMatching(/^node1: the (agent closed the follow stream|follow stream broke)/) });
  script = (res) => sse(res); // open, then silence: no keep-alive either
  expect((await read(client(300, 700), new AbortController().signal)).error).toEqual({ code: 502, message: 'node1: the agent sent nothing for 0.7 s (follow ended)' });
});
