/**
 * The real process as `npm start` runs it (dist/src/main.js, built by `npm run build`): fails fast on a
 * bad setting, serves the UI for deep links, answers JSON for unknown API paths, stops cleanly on SIGTERM.
 * One pass: the real process on its own embedded database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
});

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, output: () => out };
}

async function waitHealthy(url: string, proc: { output: () => string }) {
  for (let i = 0; i < 150; i++) {
    try { if ((await fetch(`${url}/api/health`)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not healthy: ${proc.output()}`);
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error('dist/src/main.js is missing: run `npm run build` first (npm test does)');
});

test('a bad setting stops the start with a message naming it', async () => {
  const p = run({ PORT: 'eighty', DATA_DIR: mkdtempSync(join(tmpdir(), 'proc-')) });
  expect(await p.exited).toBe(2);
  expect(p.output()).toMatch(/PORT:/);
});

describe('a started console', () => {
  let proc: ReturnType<typeof run> & { child: ChildProcess };
  let url: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'proc-'));
  const uiDir = join(dataDir, 'ui');

  beforeAll(async () => {
    mkdirSync(uiDir);
    writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>console-ui</title>');
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    proc = run({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, UI_DIR: uiDir });
    await waitHealthy(url, proc);
  }, 40_000);
  afterAll(() => { if (proc.child.exitCode === null) proc.child.kill('SIGKILL'); });

  test('prints the generated first admin password once', () => {
    expect(proc.output()).toMatch(/First admin account created: login admin, password [\w-]{10,} /);
  });

  test('serves the UI for a deep link, revalidated on every visit (no-cache: a new build is picked up at once), and JSON 404 for unknown API paths', async () => {
    const page = await fetch(`${url}/srv/srv_map?p_=3`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('console-ui');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const api = await fetch(`${url}/api/no/such/thing`);
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ status: 'http' });
    const rpc = await fetch(`${url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"methods":["user.me"]}' });
    expect(rpc.status).toBe(401);
  });

  test('every line it writes is JSON, also when parallel registrations collide (no query parameters, no hashes)', async () => {
    const password = 'collide-password-1';
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${url}/api/user/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'collider', name: 'C', password }),
    }).then((r) => r.status)));
    expect(answers.sort()).toEqual([200, 409, 409, 409, 409]);
    const lines = proc.output().split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain('$argon2');
      expect(line).not.toContain(password);
    }
  });

  test('stops cleanly on SIGTERM', async () => {
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });
});
