/**
 * A log follow lasts as long as the operator wants it (issue 18): with the default agent time-out
 * (NODE_AGENT_TIMEOUT_MS 10 s), a line appended 31 s after `logs.follow` still arrives as `logs.lines`
 * and no `logs.follow_end` came meanwhile; when the agent goes away the follow ends with an error that
 * names the node. The real agent (src/agent) on loopback, the console's socket.io.
 * (The time-out, idle watchdog and end cases one by one: test/unit/agent-follow.spec.ts.)
 * One pass: the subject is a log stream from the agent over the socket.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { startApp, type TestApp } from '../helpers/app.js';
import { startTestAgent, type TestAgent } from '../helpers/agents.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { onlyIn } from '../helpers/passes.js';

const KEY = 'follow-cluster-key-0123456789';
let t: TestApp;
let agent: TestAgent | undefined;
let s: Socket | undefined;

beforeAll(async () => {
  agent = await startTestAgent({ hostname: 'node1', key: KEY });
  t = await startApp({ CRON_ENABLED: '0' }); // NODE_AGENT_TIMEOUT_MS: the default, 10 000 ms
}, 60_000);
afterAll(async () => {
  s?.disconnect();
  await t?.close();
  await agent?.close();
});

onlyIn('sqlite')('a line appended 31 s after the follow started arrives (3x the 10 s time-out); the agent going away ends it clearly', async () => {
  expect(t.cfg.nodeAgent.timeoutMs).toBe(10_000);
  const admin = (await t.session(1)).hash;
  const { Id } = await t.ok<{ Id: number }>(admin, 'srv.save_server', { name: 'node1', type: 9, agent_url: agent!.url, cluster_key: KEY });
  const f = join(agent!.logs, 'app.log');
  writeFileSync(f, 'before\n');
  s = io(t.url, { transports: ['websocket'], auth: { hash: admin, status: 'moder' }, reconnection: false });
  await new Promise<void>((r, j) => { s!.on('connect', () => r()); s!.on('connect_error', j); });
  const lines: string[] = [];
  const ends: any[] = [];
  s.on('logs.lines', (e: any) => lines.push(...e.lines));
  s.on('logs.follow_end', (e: any) => ends.push(e));
  const ack: any = await s.timeout(10_000).emitWithAck('logs.follow', { Id, name: 'app.log' });
  expect(ack).toMatchObject({ status: 'ok', result: { fid: expect.any(String) } });
  appendFileSync(f, 'at once\n');
  await waitFor('the first line', () => lines.includes('at once'));

  // Three times the agent time-out (and two of the agent's 15 s keep-alives) later.
  await sleep(31_000);
  expect(ends).toEqual([]);
  appendFileSync(f, 'after 31 s\n');
  await waitFor('the line appended after 31 s', () => lines.includes('after 31 s'));
  expect(ends).toEqual([]);

  // The agent goes away: a follow_end that says so, naming the node.
  await agent!.close();
  agent = undefined;
  await waitFor('the follow end', () => ends.length > 0);
  expect(ends).toEqual([{ fid: ack.result.fid, Id, name: 'app.log', error: expect.stringMatching(/^node1: the (agent closed the follow stream|follow stream broke)/) }]);
}, 90_000);
