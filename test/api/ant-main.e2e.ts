/**
 * The real `npm run ant` entry (docs/ant.md "The reference ant"): the built ant
 * (`node dist/src/ant/main.js`, what `npm run ant:prod` starts; test/run-all.sh builds before the API
 * passes) spawned as a child process with ANT_HUB_URL, ANT_TOKEN and ANT_NAME against the app under test.
 * It appears in get_list_connections with its name, obeys ant_start (works a sitemap task of the local
 * test site) and ant_stop, and exits 0 on SIGTERM; a wrong token is refused at connect (exit 3 with
 * "Ant refused by the hub: Invalid ant token"); a missing ANT_HUB_URL stops it before any connect (exit 2).
 * One pass: the ant process is the subject (ant.e2e.ts covers the hub on both databases).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AntConnection, AntTaskStat } from '../../src/contracts/ant.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startTestSite, type TestSite } from '../helpers/ant.js';
import { waitFor } from '../helpers/wait.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'ant', 'main.js');

interface Spawned { child: ChildProcess; out: () => string; err: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }
const children: ChildProcess[] = [];

/** `node dist/src/ant/main.js` with only the documented environment (and PATH). */
function spawnAnt(env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, out: () => out, err: () => err, exit };
}

let t: TestApp;
let site: TestSite;
let admin: string;

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` before this test (test/run-all.sh does)`);
  [t, site] = await Promise.all([startApp({ CRON_ENABLED: '0' }), startTestSite({})]);
  admin = (await t.session(1)).hash;
}, 30_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t?.close();
  await site?.close();
});

test('node dist/src/ant/main.js: connects with its name, obeys start (works a task) and stop, exits 0 on SIGTERM', async () => {
  const { token } = await t.ok(admin, 'ant.createToken', { name: 'spawned ants' });
  const ant = spawnAnt({ ANT_HUB_URL: t.url, ANT_TOKEN: token, ANT_NAME: 'spawned-ant', ANT_RATE_PER_HOST: '50' });
  const connections = () => t.ok(admin, 'ant.get_list_connections', {}) as Promise<AntConnection[]>;
  const mine = async () => (await connections()).find((c) => c.name === 'spawned-ant' && !c.isDisconnect);
  let exited = false;
  void ant.exit.then(() => { exited = true; });
  const conn = await waitFor('the spawned ant in get_list_connections', async () => { if (exited) throw new Error(`the ant exited: ${ant.err()}`); return mine(); });
  expect(conn).toMatchObject({ name: 'spawned-ant', host: hostname(), status: 'stop', isStop: true, isDisconnect: false, count_send: 0 });
  // Its own log on stdout (JSON lines), as the documented `npm run ant` shows it (the pipe may lag the hub).
  await waitFor('the connect line on stdout', () => ant.out().includes(`connected to ${t.url} as ${conn.id}`));

  // Only the sitemap step, so the one task queued is the one worked.
  await t.ok(admin, 'ant.set_only_step', { only_step: '8' });
  await t.ok(admin, 'ant.worker_start', {});
  await t.ok(admin, 'ant.addTask', { step: 8, item: `${site.url}/sitemap.xml` });
  expect(await t.ok(admin, 'ant.ant_start', { id: conn.id })).toEqual({ id: conn.id, ok: true, message: 'Started' });
  // Done (count_send), then idle and still started: its 'wait' report follows ant.done.
  await waitFor('the sitemap task done', async () => {
    const c = await mine();
    return c && c.count_send === 1 && c.isStop === false && c.status === 'wait';
  });
  expect(site.hits.map((h) => h.path)).toContain('/sitemap.xml');
  // What it produced reached the queue: the sitemap's two category pages as step-1 tasks.
  const stats = await t.ok(admin, 'ant.task.getStats', {}) as AntTaskStat[];
  expect(stats.find((s) => s.step === 1)?.count).toBe(2);

  expect(await t.ok(admin, 'ant.ant_stop', { id: conn.id })).toEqual({ id: conn.id, ok: true, message: 'Stopped' });
  await waitFor('the ant reported stopped', async () => (await mine())?.isStop === true);
  await waitFor('the stop line on stdout', () => ant.out().includes('"msg":"stop (the current task, if any, is finished)"'));

  ant.child.kill('SIGTERM');
  expect(await ant.exit).toEqual({ code: 0, signal: null });
  await waitFor('listed as disconnected', async () => (await connections()).find((c) => c.id === conn.id)?.isDisconnect === true);
}, 20_000);

test('a wrong token is refused at connect: exit 3 with the reason; no ANT_HUB_URL: exit 2 naming it', async () => {
  const wrong = spawnAnt({ ANT_HUB_URL: t.url, ANT_TOKEN: 'ant_wrong-token-0123456789', ANT_NAME: 'intruder' });
  expect(await wrong.exit).toEqual({ code: 3, signal: null });
  expect(wrong.err()).toContain('Ant refused by the hub: Invalid ant token');
  expect((await t.ok(admin, 'ant.get_list_connections', {}) as AntConnection[]).some((c) => c.name === 'intruder')).toBe(false);

  const unset = spawnAnt({ ANT_TOKEN: 'ant_some-token-0123456789' });
  expect(await unset.exit).toEqual({ code: 2, signal: null });
  expect(unset.err()).toMatch(/Invalid ant configuration:\n\s+ANT_HUB_URL: is required/);
}, 15_000);
