/**
 * Reference ants for tests (docs/ant.md): the real ant of src/ant (the code `npm run ant` runs), in the
 * test's process, connected to a test app's hub; a local static site (sitemap, categories, items, some
 * copying a book's text) on loopback; Debian's tinyproxy with BasicAuth between them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnt as startRealAnt, type AntHandle } from '../../src/ant/ant.js';
import type { AntConfig } from '../../src/ant/config.js';

export interface TestAnt extends AntHandle {
  stop(): Promise<void>;
}

/** A reference ant connected to `hubUrl` with `token`; resolves once connected (rejects when refused). */
export async function startAnt(o: { hubUrl: string; token: string; name: string; ratePerHost?: number; proxyTunnel?: boolean; wait?: boolean }): Promise<TestAnt> {
  const cfg: AntConfig = {
    hubUrl: o.hubUrl, token: o.token, name: o.name, host: 'test-host', ratePerHost: o.ratePerHost ?? 50,
    userAgent: 'AntBot/1.0 (test)', proxyTunnel: o.proxyTunnel ?? false, timeoutMs: 10_000, logLines: 5000, echo: false,
  };
  const a = startRealAnt(cfg);
  const t: TestAnt = Object.assign(Object.create(null), a, { stop: () => a.close() }) as TestAnt;
  if (o.wait !== false) await a.connected;
  return t;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface TestSite {
  url: string;
  /** Holds the next request of `path` until the returned function is called (a task in flight). */
  hold(path: string): { reached: Promise<void>; release: () => void };
  /** Paths requested, in order (with the User-Agent). */
  hits: { path: string; ua: string }[];
  close(): Promise<void>;
}

/**
 * The test site: /sitemap.xml lists the categories; each category lists items (and category A has a
 * second page by rel=next); /robots.txt disallows /private/ (linked from a category: never fetched).
 * `copies`: item path → text copied from a book page.
 */
export async function startTestSite(copies: Record<string, string>): Promise<TestSite> {
  const hits: TestSite['hits'] = [];
  const holds = new Map<string, { reach: () => void; gate: Promise<void> }>();
  const filler = (n: number) => `Original text number ${n} about gardens rivers mountains and the quiet life of a small town far away from any city noise ${n} ${n * 7}.`;
  const cats: Record<string, string[]> = { a: ['/item/a1', '/item/a2'], b: ['/item/b1', '/item/b2', '/private/secret'] };
  const nav = `<nav>${Object.keys(cats).map((c) => `<a href="/cat/${c}">Category ${c}</a>`).join(' ')}</nav>`;
  const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><header>Site header</header>${nav}<main>${body}</main><footer>footer text</footer></body></html>`;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.push({ path, ua: String(req.headers['user-agent'] ?? '') });
    const h = holds.get(path);
    if (h) {
      holds.delete(path);
      h.reach();
      // Held: answered only once released (or never, when its client is gone).
      void h.gate.then(() => handle(req, res, path));
      return;
    }
    handle(req, res, path);
  });
  const handle = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, path: string) => {
    const send = (code: number, type: string, body: string) => {
      res.writeHead(code, { 'content-type': type });
      res.end(body);
    };
    if (path === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
    if (path === '/sitemap.xml') {
      return send(200, 'application/xml', `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Object.keys(cats).map((c) => `<url><loc>${base}/cat/${c}</loc></url>`).join('')}</urlset>`);
    }
    const cat = /^\/cat\/([a-z])(\/2)?$/.exec(path);
    if (cat && cats[cat[1]]) {
      const items = cat[2] ? ['/item/a3'] : cats[cat[1]];
      const next = !cat[2] && cat[1] === 'a' ? `<a rel="next" href="/cat/a/2">Next</a>` : '';
      return send(200, 'text/html', page(`Category ${cat[1]}`, `<h1>Category ${cat[1]}</h1><ul>${items.map((i) => `<li><a href="${i}">${i}</a></li>`).join('')}</ul>${next}`));
    }
    const item = /^\/item\/([a-z]\d)$/.exec(path);
    if (item) {
      const text = copies[path] ?? filler(item[1].charCodeAt(0) * 10 + Number(item[1][1]));
      return send(200, 'text/html', page(`Item ${item[1]}`, `<article><h1>Item ${item[1]}</h1><p>${text}</p></article>`));
    }
    send(404, 'text/plain', 'not found');
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const hold: TestSite['hold'] = (path) => {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((r) => (reach = r));
    const gate = new Promise<void>((r) => (release = r));
    holds.set(path, { reach, gate });
    return { reached, release };
  };
  return { url: base, hits, hold, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

export interface Tinyproxy {
  /** 'host:port' */
  ip: string;
  login: string;
  pass: string;
  /** tinyproxy's own log. */
  log(): string;
  stop(): Promise<void>;
}

/** Debian's tinyproxy on loopback with BasicAuth (and CONNECT allowed to any port), logging at Info. */
export async function startTinyproxy(): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'ant-tinyproxy-'));
  const port = await freePort();
  const login = 'antuser';
  const pass = 'ant-proxy-pass-1';
  const logFile = join(dir, 'tinyproxy.log');
  const conf = join(dir, 'tinyproxy.conf');
  writeFileSync(conf, [
    `Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', `LogFile "${logFile}"`, 'LogLevel Info', `PidFile "${join(dir, 'tinyproxy.pid')}"`,
    'MaxClients 50', 'Allow 127.0.0.1', `BasicAuth ${login} ${pass}`, 'DisableViaHeader Yes',
    ...(process.getuid?.() === 0 ? ['User nobody', 'Group nogroup'] : []),
  ].join('\n') + '\n');
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'nobody:nogroup', dir]);
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tinyproxy did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    ip: `127.0.0.1:${port}`, login, pass,
    log: () => { try { return readFileSync(logFile, 'utf8'); } catch { return ''; } },
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
