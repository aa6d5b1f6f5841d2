/**
 * Stand-ins for a node agent (the real one is test/helpers/agents.ts, src/agent itself), over
 * test/helpers/fake-http.ts, for what the real agent never does: hold every answer (a slow node), answer
 * without a hostname, or script a follow stream event by event.
 */
import type { ServerResponse } from 'node:http';
import { startFakeHttp, type FakeHttp } from '../fake-http.js';

/**
 * A node whose agent holds every answer until `release()` (then answers `res` as `hostname` at once):
 * for showing that other nodes' results arrive while one is still out.
 */
export async function startHeldAgent(hostname: string, res: unknown): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  let released = false;
  const fake = await startFakeHttp({ 'GET /*': () => (released ? { body: { host: hostname, r: { res } } } : { hold: true }) });
  fake.route('POST /*', () => (released ? { body: { host: hostname, r: { res } } } : { hold: true }));
  // held requests are answered with the route's answer, which answers once released
  return {
    url: fake.url,
    release: () => { released = true; fake.release(); },
    close: async () => { released = true; fake.release(); await fake.close(); },
  };
}

/** An agent-like server that answers `{r: {res: []}}` without a `host` (000 §5: 'Not valid response node hostname'). */
export function startHostlessAgent(): Promise<FakeHttp> {
  return startFakeHttp({ 'GET /*': { body: { r: { res: [] } } }, 'POST /*': { body: { r: { res: [] } } } });
}

/** One server-sent event as the agent writes it. */
export const sendEvent = (res: ServerResponse, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/** The head of a follow stream: 200 text/event-stream and the `open` event naming `host`. */
export function openFollow(res: ServerResponse, host: string, name = 'logs/a.log') {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sendEvent(res, 'open', { host, name, size: 0 });
}
