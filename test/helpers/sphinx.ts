/**
 * A Search server for the search-node tests (issue 20 "Real peer in tests"): the loopback OpenSSH of
 * ./sshd.ts, a data directory the SSH user owns, free ports for searchd, and searchd (Debian's
 * sphinxsearch 2.2.11) started by the test on the config the console wrote, as the SSH user (so the
 * indexer the console runs over SSH may signal it to rotate). The network's documents live in a
 * MariaDB database of their own (freshMysql) read by a user with a password, as a site's would be.
 *
 *   const node = await startSearchNode();        // node.sshd, node.dir, node.port, node.sphinxqlPort
 *   const db = await docsDatabase(rows);         // db.url: mysql://user:password@127.0.0.1:3306/db
 *   const searchd = await node.startSearchd(node.dir + '/sphinx.conf');
 *   ... await searchd.stop(); await db.drop(); await node.stop();
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freshMysql } from './mysql.js';
import { freePort, startSshd, type Sshd } from './sshd.js';

/** The MariaDB of the machine (TEST_DATABASE_URL's server, else root on 127.0.0.1:3306). */
export const MARIADB_URL = process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** Installs sphinxsearch when missing (test/run-all.sh's job on a fresh machine). */
export function ensureSphinx() {
  if (existsSync('/usr/bin/indexer') && existsSync('/usr/bin/searchd')) return;
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'sphinxsearch'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

export interface Searchd {
  pid: number | undefined;
  /** searchd's output so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface SearchNode {
  sshd: Sshd;
  /** Owned by the SSH user: the config file and the index files go here. */
  dir: string;
  port: number;
  sphinxqlPort: number;
  uid: number;
  gid: number;
  startSearchd(conf: string): Promise<Searchd>;
  stop(): Promise<void>;
}

async function waitForSphinxQL(port: number, proc: ChildProcess, log: () => string, ms = 15_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`searchd exited with ${proc.exitCode}: ${log()}`);
    try {
      const c = await createConnection({ host: '127.0.0.1', port, connectTimeout: 1000 });
      c.destroy();
      return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`searchd did not listen on ${port}: ${log()}`);
}

export async function startSearchNode(): Promise<SearchNode> {
  ensureSphinx();
  const sshd = await startSshd();
  const uid = Number(execFileSync('id', ['-u', sshd.user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', sshd.user]).toString().trim());
  const dir = mkdtempSync(join(tmpdir(), 'sphinx-node-'));
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o755);
  const [port, sphinxqlPort] = [await freePort(), await freePort()];
  const running: Searchd[] = [];
  return {
    sshd, dir, port, sphinxqlPort, uid, gid,
    async startSearchd(conf: string) {
      let out = '';
      const proc = spawn('/usr/bin/searchd', ['--config', conf, '--nodetach'], { uid, gid, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
      proc.stderr!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
      await waitForSphinxQL(sphinxqlPort, proc, () => out);
      const s: Searchd = {
        pid: proc.pid,
        log: () => out,
        stop: () => new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once('exit', () => resolve());
          proc.kill('SIGTERM');
        }),
      };
      running.push(s);
      return s;
    },
    async stop() {
      await Promise.all(running.map((s) => s.stop()));
      await sshd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface DocsDatabase {
  /** `mysql://user:password@127.0.0.1:port/db` (user and password percent-encoded). */
  url: string;
  user: string;
  password: string;
  db: string;
  /** Runs SQL on the documents database as root. */
  query(sql: string, params?: unknown[]): Promise<unknown>;
  drop(): Promise<void>;
}

/**
 * A MariaDB database with a table `docs (id, title, body, cat_id, status)` of `rows` documents
 * (title 'Document N', body with the word 'common' in each and 'rare' in every tenth), and a user
 * that may only read it, whose password holds characters sphinx.conf treats specially (`#`, a
 * backslash, a space).
 */
export async function docsDatabase(rows: number, table = 'docs'): Promise<DocsDatabase> {
  const fresh = await freshMysql(MARIADB_URL);
  const u = new URL(fresh.url.replace(/^mariadb:/, 'mysql:'));
  const db = u.pathname.slice(1);
  const root = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), database: db, multipleStatements: true });
  const user = `sx_${randomBytes(4).toString('hex')}`;
  const password = `p#w\\${randomBytes(4).toString('hex')} x`;
  await root.query(`CREATE TABLE \`${table}\` (id INT UNSIGNED NOT NULL PRIMARY KEY, title VARCHAR(200) NOT NULL, body TEXT NOT NULL, cat_id INT UNSIGNED NOT NULL, status INT UNSIGNED NOT NULL)`);
  if (rows > 0) {
    await root.query(
      `INSERT INTO \`${table}\` (id, title, body, cat_id, status) SELECT seq, CONCAT('Document ', seq), CONCAT('common text of document ', seq, IF(seq % 10 = 0, ' rare', '')), seq % 7, seq % 2 FROM seq_1_to_${rows}`,
    );
  }
  await root.query(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY ?`, [password]);
  await root.query(`CREATE USER '${user}'@'localhost' IDENTIFIED BY ?`, [password]);
  await root.query(`GRANT SELECT ON \`${db}\`.* TO '${user}'@'127.0.0.1', '${user}'@'localhost'`);
  const url = `mysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${u.port || 3306}/${db}`;
  return {
    url, user, password, db,
    query: async (sql, params) => (await root.query(sql, params))[0],
    drop: async () => {
      await root.query(`DROP USER IF EXISTS '${user}'@'127.0.0.1', '${user}'@'localhost'`).catch(() => undefined);
      await root.end();
      await fresh.drop();
    },
  };
}

/** One SphinxQL query on searchd (mysql2 query(): Sphinx has no prepared statements). */
export async function sphinxql<T = Record<string, unknown>>(port: number, sql: string): Promise<T[]> {
  const c = await createConnection({ host: '127.0.0.1', port, connectTimeout: 3000 });
  try {
    return (await c.query(sql))[0] as T[];
  } finally {
    c.destroy();
  }
}
