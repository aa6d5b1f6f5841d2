/**
 * Node agent and log viewing (issue 12; 000 §2 "Logs", §4, §5, §7 "Node sync", §8, §9): two real agents
 * on loopback (plus one answering with another hostname, a fake answering without one, and a dead
 * address), straight over HTTP and through the console's RPC, REST and socket.
 * One pass: the subject is the node agent over HTTP and the socket.
 */
import { appendFileSync, closeSync, renameSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { openConfined, resolveName, tailLines } from '../../src/agent/files.js';
import { loadAgentConfig } from '../../src/agent/config.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startTestAgent, type TestAgent } from '../helpers/agents.js';
import { startHeldAgent, startHostlessAgent } from '../helpers/fakes/agent.js';
import type { FakeHttp } from '../helpers/fake-http.js';
import { waitFor } from '../helpers/wait.js';

const CLUSTER_KEY = 'cluster-key-0123456789-abcdef';
const B_KEY = 'node-b-own-key-0123456789';
let t: TestApp;
let admin: string;
let a: TestAgent;
let b: TestAgent;
let c: TestAgent; // answers as 'evil', registered as node-c
let fake: FakeHttp;
let fakeUrl: string;
const ids: Record<string, number> = {};
const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

const get = (ag: TestAgent, path: string, key: string | null = ag.key) =>
  fetch(ag.url + path, { headers: key === null ? {} : { 'x-cluster-key': key } }).then(async (r) => ({ status: r.status, body: await r.json() as any }));

beforeAll(async () => {
  a = await startTestAgent({ hostname: 'node-a', key: CLUSTER_KEY, extraDirs: ['app'] });
  b = await startTestAgent({ hostname: 'node-b', key: B_KEY, configDir: false });
  c = await startTestAgent({ hostname: 'evil', key: CLUSTER_KEY });
  fake = await startHostlessAgent();
  fakeUrl = fake.url;
  t = await startApp({ CRON_ENABLED: '0', NODE_AGENT_TIMEOUT_MS: '3000' });
  admin = (await t.session(1)).hash;
  ids.cl = (await ok('srv.save_server', { name: 'cl1', type: 2, cluster_key: CLUSTER_KEY })).Id;
  ids.a = (await ok('srv.save_server', { name: 'node-a', type: 9, agent_url: a.url })).Id;
  ids.b = (await ok('srv.save_server', { name: 'node-b', type: 8, agent_url: b.url + '/', cluster_key: B_KEY })).Id;
  ids.c = (await ok('srv.save_server', { name: 'node-c', type: 9, agent_url: c.url })).Id;
  ids.d = (await ok('srv.save_server', { name: 'node-d', type: 9, agent_url: 'http://127.0.0.1:9' })).Id; // dead: nothing listens
  ids.f = (await ok('srv.save_server', { name: 'node-f', type: 3, agent_url: fakeUrl })).Id; // type 3: not in the cluster lists
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([a?.close(), b?.close(), c?.close()]);
  await fake?.close();
});

describe('the agent over HTTP', () => {
  test('the cluster key: missing or wrong is 401 without the hostname; right lists files with name and size', async () => {
    writeFileSync(join(a.logs, 'one.log'), 'x\n'.repeat(100));
    expect(await get(a, '/sync/logs', null)).toEqual({ status: 401, body: { r: { res: false, error: 'Unauthorized' } } });
    expect((await get(a, '/sync/logs', 'wrong-key')).status).toBe(401);
    expect((await get(a, '/sync/logs', CLUSTER_KEY + 'x')).status).toBe(401);
    const r = await get(a, '/sync/logs?_front_=1&_srv_=node-a');
    expect(r.status).toBe(200);
    expect(r.body.host).toBe('node-a');
    expect(r.body.srv).toBe('node-a');
    expect(r.body.r.res).toContainEqual(expect.objectContaining({ name: 'logs/one.log', size: 200 }));
    // Unknown paths are 404, and nothing but /sync is served.
    expect((await get(a, '/sync/nothing')).status).toBe(404);
    expect((await get(a, '/api/user/auth')).status).toBe(404);
  });

  test('traversal is refused: ../, encoded, double-encoded, absolute, a symlink out; nothing outside read or deleted', async () => {
    const secret = join(a.root, 'secret.txt');
    writeFileSync(secret, 'TOP SECRET\n');
    symlinkSync(secret, join(a.logs, 'link.log'));
    const attempts = [
      '/sync/logs/open/logs/../secret.txt', '/sync/logs/open/logs/%2e%2e%2fsecret.txt', '/sync/logs/open/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/sync/logs/open/logs%2f..%2f..%2fsecret.txt', '/sync/logs/open/logs/%252e%252e%252fsecret.txt', '/sync/logs/open//etc/passwd',
      '/sync/logs/open/%2Fetc%2Fpasswd', '/sync/logs/open/logs/link.log', '/sync/logs/open/logs/..', '/sync/logs/open/logs%5c..%5csecret.txt',
      '/sync/logs/del/logs/link.log', '/sync/logs/del/logs%2f..%2fsecret.txt', '/sync/logs/follow/logs/link.log',
    ];
    for (const p of attempts) {
      const res = await fetch(a.url + p, { headers: { 'x-cluster-key': a.key } });
      const text = await res.text();
      expect([p, res.status]).toEqual([p, expect.any(Number)]);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(text).not.toContain('TOP SECRET');
      expect(text).not.toContain('root:');
    }
    expect(readFileSync(secret, 'utf8')).toBe('TOP SECRET\n');
    // The link is not listed, and del_all leaves it and its target alone.
    expect((await get(a, '/sync/logs')).body.r.res.map((f: any) => f.name)).not.toContain('logs/link.log');
  });

  test('?lines= takes digits only, as the console does: 1e3, 0x10, +5, 5.0, a space, 0 and past the maximum are 400', async () => {
    writeFileSync(join(a.logs, 'count.log'), Array.from({ length: 30 }, (_, i) => `n${i}`).join('\n') + '\n');
    const open = (lines: string) => get(a, `/sync/logs/open/logs/count.log?_front_=1&lines=${lines}`);
    expect((await open('5')).body.r.res).toEqual(['n25', 'n26', 'n27', 'n28', 'n29']);
    expect((await open('016')).body.r.res).toHaveLength(16);
    for (const bad of ['1e3', '0x10', '%2B5', '5.0', '%205', '', '0', '-1', '5001', 'ten']) {
      const r = await open(bad);
      expect({ bad, status: r.status, error: r.body.r?.error }).toEqual({ bad, status: 400, error: expect.stringMatching(/^lines must be 1-5000/) });
    }
  });

  test('the tail of a large file is read from its end: 3 GB sparse file, 200 lines, a few chunks read', async () => {
    const big = join(a.logs, 'big.log');
    const fd = openSync(big, 'w');
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${'y'.repeat(40)}`).join('\n') + '\n';
    writeSync(fd, lines, 3 * 1024 ** 3); // a hole of 3 GB, then the lines
    closeSync(fd);
    const cfg = loadAgentConfig({ AGENT_CLUSTER_KEY: CLUSTER_KEY, AGENT_LOG_DIRS: [a.logs, join(a.root, 'app')].join(',') });
    const fh = await openConfined(resolveName(cfg, 'logs/big.log'));
    const r = await tailLines(fh, 200);
    await fh.close();
    expect(r.lines).toHaveLength(200);
    expect(r.lines[199]).toBe(`line 299 ${'y'.repeat(40)}`);
    expect(r.lines[0]).toBe(`line 100 ${'y'.repeat(40)}`);
    expect(r.size).toBeGreaterThan(3 * 1024 ** 3);
    expect(r.bytesRead).toBeLessThanOrEqual(64 * 1024);

    const open = await ok('logs.open', { Id: ids.a, name: 'logs/big.log' });
    expect(open.host).toBe('node-a');
    expect(open.lines).toHaveLength(200);
    expect(open.lines.at(-1)).toBe(`line 299 ${'y'.repeat(40)}`);
    expect((await ok('logs.open', { Id: ids.a, name: 'logs/big.log', lines: 5 })).lines).toEqual([295, 296, 297, 298, 299].map((i) => `line ${i} ${'y'.repeat(40)}`));
  });
  test('follow sees a file cut and refilled past the read point between two looks (first-bytes fingerprint)', async () => {
    const f = join(a.logs, 'refill.log');
    writeFileSync(f, 'gen 1 line a\ngen 1 line b\n');
    const ctl = new AbortController();
    const res = await fetch(`${a.url}/sync/logs/follow/logs/refill.log`, { headers: { 'x-cluster-key': a.key }, signal: ctl.signal });
    expect(res.status).toBe(200);
    const events: Array<{ event: string; data: any }> = [];
    let buf = '';
    const reading = (async () => {
      const dec = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += dec.decode(chunk, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (ev) events.push({ event: ev, data: data ? JSON.parse(data) : null });
          }
        }
      } catch { /* aborted */ }
    })();
    try {
      await waitFor('open', () => events.some((e) => e.event === 'open'));
      appendFileSync(f, 'gen 1 line c\n');
      await waitFor('appended line', () => events.some((e) => e.event === 'lines' && e.data.lines.includes('gen 1 line c')));
      // Cut and refilled in one synchronous step (the agent runs in this process: it cannot look in
      // between), longer than before: same inode, no smaller size — only the first bytes tell.
      const refill = Array.from({ length: 5 }, (_, i) => `gen 2 line ${i}`).join('\n') + '\n';
      expect(Buffer.byteLength(refill)).toBeGreaterThan(3 * 13);
      writeFileSync(f, refill);
      await waitFor('refilled lines from the start', () => events.some((e) => e.event === 'lines' && e.data.lines.includes('gen 2 line 4')));
      const after = events.slice(events.findIndex((e) => e.event === 'lines' && e.data.lines.includes('gen 1 line c')) + 1);
      expect(after[0].event).toBe('truncated');
      expect(after.filter((e) => e.event === 'lines').flatMap((e) => e.data.lines)).toEqual(['gen 2 line 0', 'gen 2 line 1', 'gen 2 line 2', 'gen 2 line 3', 'gen 2 line 4']);
    } finally {
      ctl.abort();
      await reading;
    }
  });
});

describe(`through the console (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('logs.getFiles: {host, files}; the key comes from the WEB cluster (node-a) or the node itself (node-b)', async () => {
    writeFileSync(join(b.logs, 'b.log'), 'hello from b\n');
    const fa = await ok('logs.getFiles', { Id: ids.a });
    expect(fa.host).toBe('node-a');
    expect(fa.files).toContainEqual(expect.objectContaining({ name: 'logs/one.log', size: 200 }));
    expect(await ok('logs.getFiles', { Id: ids.b })).toEqual({ host: 'node-b', files: [expect.objectContaining({ name: 'b.log', size: 13 })] });
    const clusters = await ok('logs.getClusters');
    expect(clusters.clusters).toEqual([expect.objectContaining({ name: 'cl1', nodes: expect.arrayContaining([expect.objectContaining({ name: 'node-a', has_key: true })]) })]);
    // The server view carries agent_url (saved without the trailing slash), never the key.
    const v = await ok('srv.get', { Id: ids.b });
    expect(v.agent_url).toBe(b.url);
    expect(JSON.stringify(v)).not.toContain(B_KEY);
  });

  test("logs.open: 000 §5 lines left out; 'File not found'; type output/error; REST GET /logs", async () => {
    writeFileSync(join(a.logs, 'mix.log'), ['first line', 'x', '', 'cat: /x: No such file or directory', 'last line'].join('\n') + '\n');
    expect(await ok('logs.open', { Id: ids.a, name: 'logs/mix.log' })).toEqual({ host: 'node-a', name: 'logs/mix.log', type: 'output', file: 'logs/mix.log', lines: ['first line', 'last line'] });
    // type (000 §3 Ant-log options): output reads the file itself; error its error counterpart (pm2
    // {app}-out.log / {app}-error.log, .out / .err), and 'File not found' when it has none.
    writeFileSync(join(a.logs, 'web-out.log'), 'served /index\n');
    writeFileSync(join(a.logs, 'web-error.log'), 'TypeError: boom\n');
    writeFileSync(join(a.logs, 'job.out'), 'job ran\n');
    writeFileSync(join(a.logs, 'job.err'), 'job warned\n');
    expect(await ok('logs.open', { Id: ids.a, name: 'logs/web-out.log' })).toEqual({ host: 'node-a', name: 'logs/web-out.log', type: 'output', file: 'logs/web-out.log', lines: ['served /index'] });
    expect(await ok('logs.open', { Id: ids.a, name: 'logs/web-out.log', type: 'error' })).toEqual({ host: 'node-a', name: 'logs/web-out.log', type: 'error', file: 'logs/web-error.log', lines: ['TypeError: boom'] });
    expect((await ok('logs.open', { Id: ids.a, name: 'logs/job.out', type: 'error' })).lines).toEqual(['job warned']);
    expect((await ok('logs.open', { Id: ids.a, name: 'logs/job.out', type: 'output' })).lines).toEqual(['job ran']);
    expect((await t.rpc<any>(admin, 'logs.open', { Id: ids.a, name: 'logs/mix.log', type: 'error' })).env).toMatchObject({ code: 404, message: 'File not found' });
    rmSync(join(a.logs, 'job.err'));
    expect((await t.rpc<any>(admin, 'logs.open', { Id: ids.a, name: 'logs/job.out', type: 'error' })).env).toMatchObject({ code: 404, message: 'File not found' });
    expect((await t.rpc<any>(admin, 'logs.open', { Id: ids.a, name: 'logs/job.out', type: 'stderr' })).env).toMatchObject({ status: 'rules', code: 422 });
    const direct = await get(a, '/sync/logs/open/logs/web-out.log?type=error&_front_=1');
    expect(direct.body).toMatchObject({ host: 'node-a', name: 'logs/web-error.log', type: 'error', r: { res: ['TypeError: boom'] } });
    expect((await get(a, '/sync/logs/open/logs/web-out.log?type=both')).status).toBe(400);
    const gone = await t.rpc<any>(admin, 'logs.open', { Id: ids.a, name: 'logs/none.log' });
    expect(gone.env).toMatchObject({ status: 'empty', code: 404, message: 'File not found' });
    for (const name of ['../x', '/etc/passwd', 'logs/../../x', 'a/b/c']) {
      expect((await t.rpc<any>(admin, 'logs.open', { Id: ids.a, name })).env).toMatchObject({ status: 'rules', code: 422 });
    }
    const rest = await t.rest<any>(admin, 'GET', `/logs?Id=${ids.b}`);
    expect(rest.body).toMatchObject({ status: 'ok', result: { host: 'node-b' } });
    expect((await t.rest<any>(null, 'GET', `/logs?Id=${ids.b}`)).status).toBe(401);
  });

  test('remove (RPC and REST POST /log_del), then clear all nodes with a dead node among them', async () => {
    writeFileSync(join(a.logs, 'del1.log'), 'a\n');
    writeFileSync(join(a.logs, 'del2.log'), 'a\n');
    expect(await ok('logs.remove', { Id: ids.a, name: 'logs/del1.log' })).toEqual({ host: 'node-a', res: 'ok' });
    expect(existsSync(join(a.logs, 'del1.log'))).toBe(false);
    expect((await t.rest<any>(admin, 'POST', '/log_del', { Id: ids.a, name: 'logs/del2.log' })).body).toMatchObject({ status: 'ok', result: { res: 'ok' } });
    expect(existsSync(join(a.logs, 'del2.log'))).toBe(false);
    expect((await t.rpc<any>(admin, 'logs.remove', { Id: ids.a, name: 'logs/del2.log' })).env).toMatchObject({ code: 404, message: 'File not found' });

    writeFileSync(join(a.root, 'app', 'x.log'), 'app\n');
    // 'Clear all nodes': one call per node in one batch; the dead node fails alone.
    const r = await t.rest<any[]>(admin, 'POST', '', { methods: ['logs.clearAll', 'logs.clearAll', 'logs.clearAll'], args: [{ Id: ids.a }, { Id: ids.d }, { Id: ids.b }], host: 0 });
    expect(r.body[0]).toMatchObject({ status: 'ok', result: { host: 'node-a', res: 'ok' } });
    expect(r.body[1]).toMatchObject({ status: 'http', code: 502, message: expect.stringMatching(/^node-d: agent unreachable/) });
    expect(r.body[2]).toMatchObject({ status: 'ok', result: { host: 'node-b', res: 'ok', deleted: 1 } });
    expect((await ok('logs.getFiles', { Id: ids.a })).files).toEqual([]);
    expect((await ok('logs.getFiles', { Id: ids.b })).files).toEqual([]);
    // The symlink's target outside is untouched (the link itself was never listed, so never deleted).
    expect(readFileSync(join(a.root, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
  });

  test("000 §5 hostname check: another hostname -> 'Not confirm hostname node-c!'; no hostname -> 'Not valid response node hostname'", async () => {
    expect((await t.rpc<any>(admin, 'logs.getFiles', { Id: ids.c })).env).toMatchObject({ status: 'http', code: 502, message: 'Not confirm hostname node-c!' });
    expect((await t.rpc<any>(admin, 'logs.getFiles', { Id: ids.f })).env).toMatchObject({ status: 'http', code: 502, message: 'Not valid response node hostname' });
  });

  test('a node without a key or address is refused before any call; a weaker role is refused', async () => {
    const lone = (await ok('srv.save_server', { name: 'lone', type: 9, cod: 99 })).Id; // no cluster, no key, no address
    expect((await t.rpc<any>(admin, 'logs.getFiles', { Id: lone })).env).toMatchObject({ status: 'rules', code: 422 });
    const content = (await t.session(10)).hash;
    expect((await t.rpc<any>(content, 'logs.getFiles', { Id: ids.a })).status).toBe(403);
    expect((await t.rpc<any>(content, 'cfg.deployGlobalConfig', { test: true })).status).toBe(403);
    await ok('srv.remove_server_by_id', { Id: lone });
  });

  test('logs.getAppLogs: Log entries from JSON-line files, newest first, by level and text', async () => {
    const entry = (date: string, level: string, data: string) => JSON.stringify({ level, ip: '10.0.0.1', date, data, url: '/p', ref: 'r', post: { a: 1 } });
    writeFileSync(join(a.root, 'app', 'site.jsonl'), [entry('2026-01-01T10:00:00Z', 'info', 'started'), 'not json', entry('2026-01-02T10:00:00Z', 'error', 'boom')].join('\n') + '\n');
    writeFileSync(join(b.logs, 'b.jsonl'), entry('2026-01-03T10:00:00Z', 'warn', 'slow') + '\n');
    const all = await ok('logs.getAppLogs', {});
    expect(all.entries.map((e: any) => [e.node, e.data])).toEqual([['node-b', 'slow'], ['node-a', 'boom'], ['node-a', 'started']]);
    expect(all.entries[0]).toMatchObject({ level: 'warn', ip: '10.0.0.1', url: '/p', ref: 'r', post: '{"a":1}' });
    expect(all.errors.map((e: any) => e.name).sort()).toEqual(['node-c', 'node-d']);
    expect((await ok('logs.getAppLogs', { level: 'error' })).entries.map((e: any) => e.data)).toEqual(['boom']);
    expect((await ok('logs.getAppLogs', { q: 'STARt' })).entries.map((e: any) => e.data)).toEqual(['started']);
  });

  test('follow over the socket: appended lines arrive; the agent stream stops when the socket goes', async () => {
    const f = join(a.logs, 'live.log');
    writeFileSync(f, 'old line\n');
    const s = io(t.url, { transports: ['websocket'], auth: { hash: admin, status: 'moder' }, reconnection: false });
    await new Promise<void>((r, j) => { s.on('connect', () => r()); s.on('connect_error', j); });
    const got: string[] = [];
    s.on('logs.lines', (e: any) => got.push(...e.lines));
    const before = await new Promise<number>((r) => a.server.getConnections((_e, n) => r(n)));
    const ack: any = await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: 'logs/live.log' });
    expect(ack).toMatchObject({ status: 'ok', result: { fid: expect.any(String) } });
    appendFileSync(f, 'new 1\nnew 2\n');
    await waitFor('two lines', () => got.length >= 2);
    appendFileSync(f, 'new 3\n');
    await waitFor('third line', () => got.length >= 3);
    expect(got).toEqual(['new 1', 'new 2', 'new 3']);
    // Truncated in place: read again from the start. Rotated (renamed, a new file made): the new file is followed.
    writeFileSync(f, 'after truncate\n');
    await waitFor('line after truncation', () => got.includes('after truncate'));
    renameSync(f, f + '.1');
    writeFileSync(f, 'rotated in\n');
    await waitFor('line of the new file', () => got.includes('rotated in'));
    const bad: any = await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: '../etc/passwd' });
    expect(bad).toMatchObject({ status: 'rules', code: 422 });
    const missing: any = await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: 'logs/none.log' });
    expect(missing).toMatchObject({ code: 404, message: 'File not found' });
    // At most 4 follows per socket; unfollow stops one (once).
    const more: any[] = [];
    for (let i = 0; i < 3; i++) more.push(await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: 'logs/live.log' }));
    for (const m of more) expect(m).toMatchObject({ status: 'ok' });
    expect(await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: 'logs/live.log' })).toEqual({ status: 'error', message: 'At most 4 files are followed at once', code: 429 });
    expect(await s.timeout(10_000).emitWithAck('logs.unfollow', { fid: more[0].result.fid })).toEqual({ status: 'ok', result: { stopped: true } });
    expect(await s.timeout(10_000).emitWithAck('logs.unfollow', { fid: more[0].result.fid })).toEqual({ status: 'ok', result: { stopped: false } });
    expect(await s.timeout(10_000).emitWithAck('logs.unfollow', {})).toMatchObject({ status: 'rules', code: 422 });
    expect(await s.timeout(10_000).emitWithAck('logs.follow', { Id: ids.a, name: 'logs/live.log' })).toMatchObject({ status: 'ok' });
    s.disconnect();
    // The console closes its stream to the agent: the agent's open connections drop back.
    await waitFor('agent stream closed', () => new Promise<boolean>((r) => a.server.getConnections((_e, n) => r(n <= before))));
  });

  test('cfg.deployGlobalConfig: a test pass on every node (one fails its test, one dead, one another host), then deploy; audited', async () => {
    await ok('cfg.insertConfigsBatch', [{ type: 'cluster_host', value: 'https://n.example|main' }, { type: 'firewall_used_ip_drop', value: '1' }]);
    const test = await ok('cfg.deployGlobalConfig', { test: true });
    const by = Object.fromEntries(test.nodes.map((n: any) => [n.name, n]));
    expect(Object.keys(by).sort()).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);
    expect(by['node-a']).toMatchObject({ ok: true, res: { changed: true, added: ['cluster_host=https://n.example|main', 'firewall_used_ip_drop=1'], removed: [] } });
    expect(by['node-b']).toMatchObject({ ok: false, error: expect.stringMatching(/^node-b: Directory .* does not exist$/) });
    expect(by['node-c']).toMatchObject({ ok: false, error: 'Not confirm hostname node-c!' });
    expect(by['node-d']).toMatchObject({ ok: false, error: expect.stringMatching(/^node-d: agent unreachable/) });
    expect(existsSync(a.configFile)).toBe(false);

    const dep = await ok('cfg.deployGlobalConfig', { test: false });
    expect(dep.nodes.find((n: any) => n.name === 'node-a')).toMatchObject({ ok: true, res: { written: true, changed: true } });
    expect(JSON.parse(readFileSync(a.configFile, 'utf8'))).toEqual([{ type: 'cluster_host', value: 'https://n.example|main' }, { type: 'firewall_used_ip_drop', value: '1' }]);
    expect(dep.nodes.filter((n: any) => !n.ok).map((n: any) => n.name).sort()).toEqual(['node-b', 'node-c', 'node-d']);
    // Deployed: a new test pass sees no change.
    expect((await ok('cfg.deployGlobalConfig', { test: true })).nodes.find((n: any) => n.name === 'node-a').res).toMatchObject({ changed: false, added: [], removed: [] });
    const audit = await ok('audit.getList', { method: 'cfg.deployGlobalConfig' });
    expect(audit.count).toBeGreaterThanOrEqual(3);
    expect(audit.list[0]).toMatchObject({ method: 'cfg.deployGlobalConfig' });
  });
  test('cfg.deployGlobalConfig progress: a cfg.deploy_global event per node to the caller as it answers, before the answer', async () => {
    // A node that holds its answer until released: the others' events must arrive while it waits.
    const slow = await startHeldAgent('node-slow', { file: '/etc/x.json', changed: false, added: [], removed: [] });
    const slowId = (await ok('srv.save_server', { name: 'node-slow', type: 9, agent_url: slow.url })).Id;
    const admin2 = (await t.session(1, 'admin2')).hash;
    const s = io(t.url, { transports: ['websocket'], auth: { hash: admin, status: 'moder' }, reconnection: false });
    const other = io(t.url, { transports: ['websocket'], auth: { hash: admin2, status: 'moder' }, reconnection: false });
    try {
      await Promise.all([s, other].map((x) => new Promise<void>((r, j) => { if (x.connected) r(); x.on('connect', () => r()); x.on('connect_error', j); })));
      const events: any[] = [];
      s.on('cfg.deploy_global', (e: any) => events.push(e));
      const strangers: any[] = [];
      other.on('cfg.deploy_global', (e: any) => strangers.push(e));
      let answered = false;
      const call = ok('cfg.deployGlobalConfig', { test: true, run: 'run-1' }).then((r) => { answered = true; return r; });
      await waitFor('four nodes answered', () => events.filter((e) => e.node).length >= 4);
      expect(answered).toBe(false); // node-slow still holds the call
      expect(events[0]).toEqual({ run: 'run-1', test: true, total: 5, done: 0, node: null });
      const per = events.filter((e) => e.node);
      expect(per.map((e) => e.done)).toEqual([1, 2, 3, 4]);
      expect(Object.fromEntries(per.map((e) => [e.node.name, e.node.ok]))).toEqual({ 'node-a': true, 'node-b': false, 'node-c': false, 'node-d': false });
      expect(per.find((e) => e.node.name === 'node-c').node).toMatchObject({ Id: ids.c, ok: false, error: 'Not confirm hostname node-c!' });
      slow.release();
      const r = await call;
      // The answer is unchanged: every node, as before.
      expect(r.nodes.map((n: any) => n.name).sort()).toEqual(['node-a', 'node-b', 'node-c', 'node-d', 'node-slow']);
      expect(r.nodes.find((n: any) => n.name === 'node-slow')).toEqual({ Id: slowId, name: 'node-slow', ok: true, res: { file: '/etc/x.json', changed: false, added: [], removed: [] } });
      await waitFor('last event', () => events.some((e) => e.node?.name === 'node-slow'));
      expect(events.at(-1)).toMatchObject({ run: 'run-1', total: 5, done: 5, node: { name: 'node-slow', ok: true } });
      for (const e of per) expect(r.nodes.find((n: any) => n.Id === e.node.Id)).toEqual(e.node);
      // Another admin's socket got none of them: they go to the calling user's sockets only.
      expect(strangers).toEqual([]);
    } finally {
      slow.release();
      s.disconnect();
      other.disconnect();
      await ok('srv.remove_server_by_id', { Id: slowId });
      await slow.close();
    }
  });
});

describe('deploy writes atomically and runs the reload command', () => {
  const agents: TestAgent[] = [];
  afterAll(async () => { await Promise.all(agents.map((x) => x.close())); });
  test('temp file + rename, then the reload command; a failing reload is reported; the key as _srv_ on deploy only', async () => {
    const markDir = mkdtempSync(join(tmpdir(), 'agent-mark-'));
    const marker = join(markDir, 'reloaded');
    const r = await startTestAgent({ hostname: 'node-r', key: CLUSTER_KEY, reloadCmd: `echo done >> '${marker}'` });
    const bad = await startTestAgent({ hostname: 'node-s', key: CLUSTER_KEY, reloadCmd: 'echo broken config >&2; exit 3' });
    agents.push(r, bad);
    const post = (ag: TestAgent, path: string, body: unknown) => fetch(ag.url + path, { method: 'POST', headers: { 'x-cluster-key': ag.key, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (x) => ({ status: x.status, body: await x.json() as any }));
    const d = await post(r, '/sync/deploy_global_config', { configs: [{ type: 't', value: 'v' }] });
    expect(d).toMatchObject({ status: 200, body: { host: 'node-r', r: { res: { written: true, reload: { code: 0 } } } } });
    expect(readFileSync(marker, 'utf8')).toBe('done\n');
    expect(JSON.parse(readFileSync(r.configFile, 'utf8'))).toEqual([{ type: 't', value: 'v' }]);
    expect(readdirSync(join(r.root, 'etc'))).toEqual(['cluster.json']); // no temporary file left
    const f = await post(bad, '/sync/deploy_global_config', { configs: [] });
    expect(f).toMatchObject({ status: 422, body: { host: 'node-s', r: { error: expect.stringMatching(/^Reload failed \(exit 3\): broken config/) } } });
    // The spec's form: the key as _srv_ (no header) is honoured on the deploy routes only.
    const q = await fetch(`${r.url}/sync/deploy_global_config/test?_srv_=${encodeURIComponent(CLUSTER_KEY)}`, { method: 'POST', body: JSON.stringify({ configs: [] }) });
    expect(q.status).toBe(200);
    expect((await fetch(`${r.url}/sync/deploy_global_config/test?_srv_=wrong`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${r.url}/sync/logs?_srv_=${encodeURIComponent(CLUSTER_KEY)}`)).status).toBe(401);
    expect((await post(r, '/sync/deploy_global_config', { configs: [{ type: 1 }] })).status).toBe(400);
    rmSync(markDir, { recursive: true, force: true });
  });
});
