/**
 * SSH connection test against a real OpenSSH server on loopback (test/helpers/sshd.ts): good password,
 * key login, wrong password, closed port, a silent peer (time-out), a changed host key refused until an
 * admin accepts it, every command audited, bounded fan-out.
 * One pass: the subject is SSH to a real OpenSSH server; its rows are plain CRUD covered on both databases elsewhere.
 */
import { hostname } from 'node:os';
import { createServer, type Server } from 'node:net';
import { SshService } from '../../src/core/ssh/ssh.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { freePort, startSshd, type Sshd } from '../helpers/sshd.js';

let t: TestApp;
let sshd: Sshd;
let admin: string;

beforeAll(async () => {
  sshd = await startSshd();
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
});
afterAll(async () => {
  await t?.close();
  await sshd?.stop();
});

async function ok<T = any>(method: string, args?: unknown): Promise<T> {
  const r = await t.rpc<T>(admin, method, args);
  if (r.env.status !== 'ok') throw new Error(`${method} -> ${JSON.stringify(r.env)}\n${sshd.log().slice(-2000)}`);
  return r.env.result;
}
const server = async (fields: Record<string, unknown>) =>
  (await ok<{ Id: number }>('srv.save_server', { type: 9, ip: '127.0.0.1', sshport: sshd.port, sshlogin: sshd.user, ...fields })).Id;

describe(`SSH connection test (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test("good password: 'Connectn OK' with the remote hostname and latency; the host key is pinned on first connect", async () => {
    const Id = await server({ name: 'ssh-good', sshpass: sshd.password });
    const first = await ok('srv.test_connect_ssh', { Id });
    expect(first).toMatchObject({
      message: 'Connectn OK', Id, host: '127.0.0.1', port: sshd.port, hostname: hostname(),
      latency_ms: expect.any(Number), pinned_now: true, fingerprint: expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/),
    });
    expect(first.uname).toMatch(/^Linux /);
    expect((await ok('srv.get', { Id })).host_key).toBe(first.fingerprint);
    const again = await t.rest<any>(admin, 'POST', '/srv/test_connect_ssh', { Id });
    expect(again.status).toBe(200);
    expect(again.body.result).toMatchObject({ message: 'Connectn OK', pinned_now: false, fingerprint: first.fingerprint });
    const viaGet = await t.rest<any>(admin, 'GET', `/srv/test_connect_ssh?Id=${Id}`);
    expect(viaGet.body.result).toMatchObject({ message: 'Connectn OK', hostname: hostname() });
  });

  test('key-based login: a private key, and an encrypted one with its passphrase', async () => {
    const plain = await server({ name: 'ssh-key', private_key: sshd.privateKey });
    expect(await ok('srv.test_connect_ssh', { Id: plain })).toMatchObject({ message: 'Connectn OK' });
    const badPass = await t.rpc<any>(admin, 'srv.save_server', { name: 'ssh-key-enc', type: 9, private_key: sshd.encryptedKey, private_key_pass: 'wrong' });
    expect(badPass.env).toMatchObject({ status: 'rules', code: 422, fields: { private_key: expect.stringMatching(/passphrase/) } });
    const enc = await server({ name: 'ssh-key-enc', private_key: sshd.encryptedKey, private_key_pass: sshd.keyPassphrase });
    expect((await ok('srv.get', { Id: enc })).has_private_key).toBe(true);
    expect(await ok('srv.test_connect_ssh', { Id: enc })).toMatchObject({ message: 'Connectn OK' });
    expect(JSON.stringify(await ok('srv.get', { Id: enc }))).not.toContain('PRIVATE KEY');
    // Through REST too; and the audit log of both never holds any part of a key or its passphrase.
    const viaRest = await t.rest<any>(admin, 'POST', '/srv/save_server', { Id: plain, private_key: sshd.encryptedKey, private_key_pass: sshd.keyPassphrase });
    expect(viaRest.status).toBe(200);
    const audit = JSON.stringify(await ok('audit.getList', { method: 'save_server', limit: 500 }));
    expect(audit).toContain('POST /api/srv/save_server');
    const keyBody = (k: string) => k.split('\n').filter((l) => l && !l.startsWith('-----'));
    for (const line of [...keyBody(sshd.privateKey), ...keyBody(sshd.encryptedKey)].map((l) => l.slice(0, 40))) expect(audit).not.toContain(line);
    expect(audit).not.toContain('PRIVATE KEY');
    expect(audit).not.toContain(sshd.keyPassphrase);
  });

  test('wrong password: authentication failed (502, reason auth)', async () => {
    const Id = await server({ name: 'ssh-wrong', sshpass: 'definitely-not-it' });
    const r = await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id });
    expect(r.env).toMatchObject({ status: 'http', code: 502, fields: { reason: 'auth' } });
    expect((r.env as any).message).toBe(`Authentication failed for ${sshd.user}@127.0.0.1:${sshd.port}`);
    const rest = await t.rest<any>(admin, 'POST', '/srv/test_connect_ssh', { Id });
    expect(rest.status).toBe(502);
    expect(rest.body.message).toMatch(/Authentication failed/);
  });

  test('closed port: connection refused', async () => {
    const Id = await server({ name: 'ssh-closed', sshpass: sshd.password, sshport: await freePort() });
    const r = await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id });
    expect(r.env).toMatchObject({ status: 'http', code: 502, fields: { reason: 'refused' } });
    expect((r.env as any).message).toMatch(/^Connection refused by 127\.0\.0\.1:\d+$/);
  });

  test('a peer that never answers: time-out after the bounded wait (504, reason timeout)', async () => {
    const silent: Server = createServer(() => undefined); // accepts, never sends the SSH banner
    const sockets: import('node:net').Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      const ssh = t.app.get(SshService);
      const err = await ssh.test({ host: '127.0.0.1', port, username: 'x', password: 'y' }, { connectTimeoutMs: 800 }).then(() => null, (e) => e);
      expect(err).toMatchObject({ reason: 'timeout', httpStatus: 504, message: `Timed out after 0.8 s connecting to 127.0.0.1:${port}` });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  test('missing credentials answer a clear 400 without connecting', async () => {
    const Id = await server({ name: 'ssh-nocreds' });
    const r = await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id });
    expect(r.env).toMatchObject({ status: 'rules', code: 422, message: 'No SSH password or private key is stored for this server' });
    const noId = await t.rest<any>(admin, 'POST', '/srv/test_connect_ssh', {});
    expect(noId.status).toBe(422);
    expect(noId.body.fields).toHaveProperty('Id');
  });

  test('every command run is audited with its outcome, never with the password', async () => {
    const audit = await ok('audit.getList', { method: 'ssh.exec', limit: 100 });
    const rows = audit.list as Array<{ args: string; outcome: string; message: string }>;
    expect(rows.some((r) => r.outcome === 'ok' && r.args.includes('uname -a') && r.args.includes(sshd.user))).toBe(true);
    expect(rows.some((r) => r.outcome === 'error' && /Authentication failed/.test(r.message))).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(sshd.password);
  });

  test('fan-out: one result per target, in order, bounded concurrency, failures reported not thrown', async () => {
    const ssh = t.app.get(SshService);
    const good = { host: '127.0.0.1', port: sshd.port, username: sshd.user, password: sshd.password };
    const bad = { ...good, password: 'nope' };
    const r = await ssh.execMany([good, bad, good, good], 'echo fan-$((40+2))', { concurrency: 2 });
    expect(r.map((x) => x.ok)).toEqual([true, false, true, true]);
    expect(r.map((x) => (x.ok ? x.value.stdout.trim() : x.reason))).toEqual(['fan-42', 'auth', 'fan-42', 'fan-42']);
  });

  test('stdin reaches the command; streamed output arrives whole, in order, past the 1 MB cap, with a slow consumer', async () => {
    const ssh = t.app.get(SshService);
    const target = { host: '127.0.0.1', port: sshd.port, username: sshd.user, password: sshd.password };
    const echoed = await ssh.exec(target, 'wc -l; cat', { stdin: 'a\nb\nc\n' });
    expect(echoed.stdout).toBe('3\n');
    const chunks: Buffer[] = [];
    let calls = 0;
    const r = await ssh.exec(target, 'seq 1 400000', {
      onStdout: async (c) => {
        chunks.push(c);
        if (++calls % 20 === 0) await new Promise((res) => setTimeout(res, 5));
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const lines = Buffer.concat(chunks).toString().trimEnd().split('\n');
    expect(lines.length).toBe(400000);
    expect(lines[0]).toBe('1');
    expect(lines[399999]).toBe('400000');
    expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
  });

  test('a changed host key is refused with a clear message until an admin accepts it (audited)', async () => {
    const Id = await server({ name: 'ssh-rotate', sshpass: sshd.password });
    const pinned = (await ok('srv.test_connect_ssh', { Id })).fingerprint;
    await sshd.rotateHostKeys();

    const refused = await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id });
    expect(refused.env).toMatchObject({ status: 'http', code: 502, fields: { reason: 'hostkey' } });
    const msg = (refused.env as any).message as string;
    expect(msg).toContain(`Host key of 127.0.0.1:${sshd.port} has changed: pinned ${pinned}, now offered SHA256:`);
    expect(msg).toContain('Connection refused until an admin accepts the new key.');
    const offered = /now offered (SHA256:\S+?)\./.exec(msg)![1];
    expect(offered).not.toBe(pinned);

    // Still refused on retry; the map shows the key waiting.
    expect((await t.rpc<any>(admin, 'srv.test_connect_ssh', { Id })).env).toMatchObject({ fields: { reason: 'hostkey' } });
    expect(await ok('srv.get', { Id })).toMatchObject({ host_key: pinned, host_key_pending: offered });

    // A role-100 user cannot accept it; a stale fingerprint is refused.
    const user = await t.session(100);
    expect((await t.rpc<any>(user.hash, 'srv.acceptHostKey', { Id })).status).toBe(403);
    expect((await t.rpc<any>(admin, 'srv.acceptHostKey', { Id, fingerprint: pinned })).env).toMatchObject({ code: 409 });

    expect(await ok('srv.acceptHostKey', { Id, fingerprint: offered })).toEqual({ fingerprint: offered, previous: pinned });
    const after = await ok('srv.test_connect_ssh', { Id });
    expect(after).toMatchObject({ message: 'Connectn OK', fingerprint: offered, pinned_now: false });
    expect(await ok('srv.get', { Id })).toMatchObject({ host_key: offered, host_key_pending: null });

    const audit = await ok('audit.getList', { method: 'ssh.hostkey.accept' });
    expect(audit.list[0]).toMatchObject({ method: 'ssh.hostkey.accept', login: 'admin', outcome: 'ok' });
    expect(audit.list[0].args).toContain(offered);
    expect(audit.list[0].args).toContain(pinned);
    const nothing = await t.rpc<any>(admin, 'srv.acceptHostKey', { Id });
    expect(nothing.env).toMatchObject({ code: 404 });
  });
});
