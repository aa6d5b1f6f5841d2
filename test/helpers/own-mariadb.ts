/**
 * A MariaDB of a test's own (STACK-NOTES "A MariaDB of a test's own"): its own data directory under a
 * temp dir and its own loopback port, never the machine's 3306, so a test may kill and restart it.
 * `remove()` kills the server and deletes the directory; call it in afterAll (it is safe to call twice).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort } from './sshd.js';
import { waitFor } from './wait.js';

export interface OwnMariaDb {
  port: number;
  dir: string;
  /** mysql://root@127.0.0.1:port/console (the database exists). */
  url: string;
  /** SIGKILL, as a crash: no clean shutdown. */
  kill(): Promise<void>;
  /** Starts the server again on the same data directory and port; resolves when it answers. */
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startOwnMariaDb(): Promise<OwnMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'own-mariadb-'));
  const data = join(dir, 'data');
  const port = await freePort();
  let proc: ChildProcess | null = null;
  try {
    execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal'], { stdio: 'ignore', timeout: 60_000 });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed (is mariadb-server installed?): ${(err as Error).message}`);
  }
  const answers = async () => {
    try {
      const c = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
      await c.end();
      return true;
    } catch {
      return false;
    }
  };
  const start = async () => {
    const log = openSync(join(dir, 'mariadbd.log'), 'a');
    proc = spawn('mariadbd', ['--no-defaults', `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${join(dir, 's')}`, '--user=root'], { stdio: ['ignore', log, log] });
    closeSync(log);
    const p = proc;
    await waitFor('own mariadbd to answer', async () => p.exitCode === null && (await answers()), 30_000);
  };
  const kill = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  const db: OwnMariaDb = {
    port, dir, url: `mysql://root@127.0.0.1:${port}/console`,
    kill, start,
    remove: async () => {
      await kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await start();
    const c = await createConnection({ host: '127.0.0.1', port, user: 'root' });
    await c.query('CREATE DATABASE console CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await c.end();
  } catch (err) {
    await db.remove();
    throw err;
  }
  return db;
}
