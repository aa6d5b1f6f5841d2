/**
 * Starts the real application (the same createApp as production) on an ephemeral loopback port,
 * with a fresh data directory and a fresh database: SQLite by default, or MariaDB/MySQL when
 * TEST_DATABASE_URL is set (a new database is created per app and dropped on close).
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type AppConfig } from '../../config/config.js';
import { createApp } from '../../src/bootstrap.js';
import { JsonLogger } from '../../src/core/logger.js';
import { encodeAuthKey, type SessionValues } from '../../src/contracts/auth.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { freshMysql, migratedMysql } from './mysql.js';

export const ADMIN = { login: 'admin', password: 'admin-password-1' };

export interface TestApp {
  app: INestApplication;
  cfg: AppConfig;
  url: string;
  dbLabel: string;
  /** Signs in (creating the user with that role when it does not exist) and returns the session. */
  session(role?: number, login?: string): Promise<SessionValues>;
  /** One RPC call; returns the envelope and the HTTP status. */
  rpc<T = unknown>(hash: string | null, method: string, args?: unknown): Promise<{ status: number; env: Envelope<T> }>;
  /** One RPC call that must succeed: returns its result, or throws with the method, args and envelope. */
  ok<T = any>(hash: string, method: string, args?: unknown): Promise<T>;
  /** A REST call under /api; returns status and parsed body. */
  rest<T = unknown>(hash: string | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/**
 * `opts.logger`: a JsonLogger of the test's own (e.g. writing to a stream the test reads).
 * `opts.emptyDatabase`: on MariaDB, start on an empty database (the app's start runs every migration)
 * rather than on a copy of the migrated template (test/helpers/mysql.ts migratedMysql).
 */
export async function startApp(env: Record<string, string> = {}, opts: { logger?: JsonLogger; emptyDatabase?: boolean } = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-test-'));
  const server = process.env.TEST_DATABASE_URL;
  const mysql = server ? await (opts.emptyDatabase ? freshMysql(server) : migratedMysql(server)) : null;
  const cfg = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_LOGIN: ADMIN.login,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    UI_DIR: process.env.TEST_UI_DIR ?? join(import.meta.dirname, '..', '..', 'dist', 'ui'),
    ...(mysql ? { DATABASE_URL: mysql.url } : {}),
    ...env,
  });
  const app = await createApp(cfg, opts.logger ?? new JsonLogger(cfg.logLevel));
  await app.listen(0, '127.0.0.1');
  // Tests run the app in their own process: a synchronous step (SQLite) that holds the event loop for
  // seconds lets the server's 5 s keep-alive timer and the client's idle timer fire together, and fetch
  // may reuse a socket the server is closing (ECONNRESET). The server waits longer than fetch keeps idle
  // sockets (4 s), so the client always lets go first.
  app.getHttpServer().keepAliveTimeout = 65_000;
  const addr = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${addr.port}`;

  const rest: TestApp['rest'] = async (hash, method, path, body) => {
    const res = await fetch(url + '/api' + path, {
      method,
      headers: { 'content-type': 'application/json', ...(hash ? { User: hash } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* non-JSON body: returned as text */ }
    return { status: res.status, body: parsed as never };
  };
  const rpc: TestApp['rpc'] = async (hash, method, args) => {
    const r = await rest<Envelope[]>(hash, 'POST', '', { methods: [method], args: [args], host: 0 });
    return { status: r.status, env: (Array.isArray(r.body) ? r.body[0] : r.body) as never };
  };

  const ok: TestApp['ok'] = async (hash, method, args) => {
    const r = await rpc<never>(hash, method, args);
    if (r.env.status !== 'ok') throw new Error(`${method} ${JSON.stringify(args)} -> ${JSON.stringify(r.env)}`);
    return r.env.result;
  };

  const sessions = new Map<string, SessionValues>();
  const login = async (l: string, p: string): Promise<SessionValues> => {
    const r = await rest<Envelope<SessionValues>>(null, 'POST', '/user/auth', { key: encodeAuthKey(l, p) });
    if (r.body.status !== 'ok') throw new Error(`login ${l} failed: ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  const session: TestApp['session'] = async (role = 1, name) => {
    const l = name ?? (role === 1 ? ADMIN.login : `user${role}`);
    const cached = sessions.get(l);
    if (cached) return cached;
    if (l !== ADMIN.login) {
      const admin = await session(1);
      const password = `${l}-password-1`;
      const reg = await rest<Envelope<{ uid: number }>>(null, 'POST', '/user/register', { login: l, name: `User ${l}`, password });
      if (reg.body.status !== 'ok') throw new Error(`register ${l}: ${JSON.stringify(reg.body)}`);
      const saved = await rpc(admin.hash, 'user.save', { uid: reg.body.result.uid, active: 1, role });
      if (saved.env.status !== 'ok') throw new Error(`activate ${l}: ${JSON.stringify(saved.env)}`);
      const s = await login(l, password);
      sessions.set(l, s);
      return s;
    }
    const s = await login(ADMIN.login, ADMIN.password);
    sessions.set(l, s);
    return s;
  };

  return {
    app, cfg, url, rest, rpc, ok, session,
    dbLabel: mysql ? 'mariadb' : 'sqlite',
    close: async () => {
      await app.close();
      await mysql?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
