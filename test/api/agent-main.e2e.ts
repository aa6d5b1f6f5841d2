/**
 * The real `npm run agent` entry (docs/agent.md, README "Node agent"): the built agent
 * (`node dist/src/agent/main.js`, what `npm run agent:prod` starts; test/run-all.sh builds before the
 * API passes) spawned as a child process with the documented environment. It lists files, refuses a
 * wrong key, deploys the configs and runs AGENT_RELOAD_CMD, and exits 0 on SIGTERM. No database.
 * One pass: no database (the agent process).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'agent', 'main.js');
const KEY = 'spawned-agent-key-0123456789';

let root: string;
let child: ChildProcess | null = null;
let out = '';
let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

const freePort = () => new Promise<number>((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
});

afterAll(() => {
  if (child && !exit) child.kill('SIGKILL');
  if (root) rmSync(root, { recursive: true, force: true });
});

test('node dist/src/agent/main.js: listing, 401 on a wrong key, deploy runs the reload command, clean exit on SIGTERM', async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` before this test (test/run-all.sh does)`);
  root = mkdtempSync(join(tmpdir(), 'agent-main-'));
  const logs = join(root, 'logs');
  mkdirSync(logs);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(logs, 'site-out.log'), 'hello\n');
  const configFile = join(root, 'etc', 'cluster.json');
  const marker = join(root, 'reloaded');
  const port = await freePort();
  child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      AGENT_PORT: String(port), AGENT_HOST: '127.0.0.1', AGENT_CLUSTER_KEY: KEY, AGENT_LOG_DIRS: logs,
      AGENT_CONFIG_FILE: configFile, AGENT_RELOAD_CMD: `echo "reloaded $(wc -c < '${configFile}')" > '${marker}'`, AGENT_HOSTNAME: 'spawned-node',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<void>((r) => child!.on('exit', (code, signal) => { exit = { code, signal }; r(); }));
  await waitFor('the agent listening', () => exit !== null || out.includes(`listening on 127.0.0.1:${port}`), 10_000);
  expect(exit).toBeNull();
  const url = `http://127.0.0.1:${port}`;

  const list = await fetch(`${url}/sync/logs`, { headers: { 'x-cluster-key': KEY } });
  expect(list.status).toBe(200);
  expect(await list.json()).toEqual({ host: 'spawned-node', r: { res: [{ name: 'site-out.log', size: 6, mtime: expect.any(Number) }] } });

  const bad = await fetch(`${url}/sync/logs`, { headers: { 'x-cluster-key': 'not-the-key-0123456789' } });
  expect(bad.status).toBe(401);
  expect(await bad.json()).toEqual({ r: { res: false, error: 'Unauthorized' } });

  const dep = await fetch(`${url}/sync/deploy_global_config`, {
    method: 'POST', headers: { 'x-cluster-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ configs: [{ type: 'cluster_host', value: 'https://a.example|main' }] }),
  });
  expect(dep.status).toBe(200);
  const body = await dep.json() as any;
  expect(body).toMatchObject({ host: 'spawned-node', r: { res: { file: configFile, changed: true, written: true, reload: { code: 0 } } } });
  expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual([{ type: 'cluster_host', value: 'https://a.example|main' }]);
  // The reload command ran after the file was written (it saw the new file's size).
  expect(readFileSync(marker, 'utf8').trim()).toBe(`reloaded ${readFileSync(configFile).length}`);

  child.kill('SIGTERM');
  await exited;
  expect(exit).toEqual({ code: 0, signal: null });
}, 20_000);
