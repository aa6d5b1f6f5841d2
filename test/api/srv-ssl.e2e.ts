/**
 * SSL hosts (000 §2 /srv/ssl_check, §3 SSL host, §5 alert below 5 days): CRUD, and the expiry check as
 * a real TLS handshake (SNI) against local TLS servers with fresh self-signed certificates.
 * One pass: the subject is the TLS handshake; ssl_hosts CRUD is walked on both databases by bad-input.e2e.ts.
 */
import { SslCheckJob } from '../../src/jobs/ssl-check.job.js';
import { createServer as createTcpServer } from 'node:net';
import { SslService, sslReasonOf } from '../../src/modules/srv/ssl.service.js';
import { SSL_REASON_TEXT, sslAlertHosts } from '../../src/contracts/srv.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/sshd.js';
import { startTlsServer, type TlsPeer } from '../helpers/tls.js';

let t: TestApp;
let admin: string;
let short: TlsPeer;
let long: TlsPeer;

beforeAll(async () => {
  [short, long] = await Promise.all([startTlsServer({ days: 3 }), startTlsServer({ days: 30 })]);
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
});
afterAll(async () => {
  await t?.close();
  await short?.stop();
  await long?.stop();
});

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

describe(`SSL hosts (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('sslUpdateHost creates (answers {Id}), normalises the host, keeps a port, refuses duplicates and bad hosts', async () => {
    const r = await t.rpc<any>(admin, 'srv.sslUpdateHost', { host: 'HTTPS://Example.COM/path' });
    expect(r.env).toEqual({ status: 'ok', result: { Id: expect.any(Number) } });
    const withPort = await ok('srv.sslUpdateHost', { host: 'example.com:8443' });
    const rows = await ok('srv.getSslHosts');
    expect(rows.find((x: any) => x.Id === (r.env as any).result.Id)).toEqual({
      Id: (r.env as any).result.Id, host: 'example.com', day_last: null, not_check: 0, ts_check: null, expires_at: null, chain_valid: null, chain_error: null, error: null, error_reason: null, chain_reason: null,
    });
    expect(rows.find((x: any) => x.Id === withPort.Id).host).toBe('example.com:8443');
    expect((await ok('srv.sslUpdateHost', { host: 'example.org:443' })).Id).toBeGreaterThan(0);
    expect((await ok('srv.getSslHosts')).map((x: any) => x.host)).toContain('example.org');
    const dup = await t.rpc<any>(admin, 'srv.sslUpdateHost', { host: 'example.com:443' });
    expect(dup.env).toMatchObject({ status: 'rules', code: 409, fields: { host: expect.any(String) } });
    for (const host of ['', 'exa mple.com', 'example.com:0', 'example.com:70000', '-bad-.com']) {
      const bad = await t.rpc<any>(admin, 'srv.sslUpdateHost', { host });
      expect([host, bad.env.status, (bad.env as any).fields?.host !== undefined]).toEqual([host, 'rules', true]);
    }
  });

  test('update changes not_check and host; delete answers Delete ok!', async () => {
    const { Id } = await ok('srv.sslUpdateHost', { host: 'edit-me.example' });
    await ok('srv.sslUpdateHost', { Id, not_check: 1 });
    expect((await ok('srv.getSslHosts')).find((x: any) => x.Id === Id)).toMatchObject({ host: 'edit-me.example', not_check: 1 });
    await ok('srv.sslUpdateHost', { Id, host: 'edited.example:444' });
    expect((await ok('srv.getSslHosts')).find((x: any) => x.Id === Id)).toMatchObject({ host: 'edited.example:444', not_check: 1 });
    expect(await ok('srv.sslDeleteById', { Id })).toEqual({ Id, message: 'Delete ok!' });
    expect((await ok('srv.getSslHosts')).some((x: any) => x.Id === Id)).toBe(false);
    expect((await t.rpc<any>(admin, 'srv.sslDeleteById', { Id })).env).toMatchObject({ code: 404 });
  });

  test('check now: a 3-day certificate gives day_last below 5 and is in the alert; a 30-day one is not', async () => {
    const a = await ok('srv.sslUpdateHost', { host: `localhost:${short.port}` });
    const b = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${long.port}` });
    const before = Date.now();
    const ra = await ok('srv.sslCheckHost', { Id: a.Id });
    const rb = await ok('srv.sslCheckHost', { Id: b.Id });
    expect(ra).toMatchObject({ Id: a.Id, error: null, chain_valid: 0, chain_error: expect.stringMatching(/SELF_SIGNED/) });
    expect([2, 3]).toContain(ra.day_last);
    expect(new Date(ra.expires_at).getTime()).toBe(short.notAfter.getTime());
    expect(new Date(ra.ts_check).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect([29, 30]).toContain(rb.day_last);
    // SNI carried the host name (none for an address).
    expect(short.servernames).toContain('localhost');
    expect(long.servernames).toContain(false);

    const rows = await ok('srv.getSslHosts');
    const alert = sslAlertHosts(rows).map((x: any) => x.Id);
    expect(alert).toContain(a.Id);
    expect(alert).not.toContain(b.Id);
    // not_check 1 takes a host out of the alert.
    await ok('srv.sslUpdateHost', { Id: a.Id, not_check: 1 });
    expect(sslAlertHosts(await ok('srv.getSslHosts')).map((x: any) => x.Id)).not.toContain(a.Id);
    await ok('srv.sslUpdateHost', { Id: a.Id, not_check: 0 });
  });

  test('a failed check is recorded and shown, not thrown; day_last keeps its last known value', async () => {
    const port = await freePort();
    const { Id } = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${port}` });
    const r = await t.rpc<any>(admin, 'srv.sslCheckHost', { Id });
    expect(r.env.status).toBe('ok');
    expect((r.env as any).result).toMatchObject({ Id, day_last: null, error: 'Connection refused', ts_check: expect.any(String) });

    const tmp = await startTlsServer({ days: 10 });
    const { Id: Id2 } = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${tmp.port}` });
    expect((await ok('srv.sslCheckHost', { Id: Id2 })).day_last).toBeGreaterThanOrEqual(9);
    await tmp.stop();
    const failed = await ok('srv.sslCheckHost', { Id: Id2 });
    expect(failed.error).toBe('Connection refused');
    expect(failed.day_last).toBeGreaterThanOrEqual(9);
    await ok('srv.sslDeleteById', { Id });
    await ok('srv.sslDeleteById', { Id: Id2 });
  });

  test('a failure is answered with a reason code beside the raw text (issue 18): wrong version, refused, self-signed chain', async () => {
    // A port that answers plain HTTP: OpenSSL's "…:SSL routines:…:wrong version number".
    const open = new Set<import('node:net').Socket>();
    const plain = createTcpServer((s) => { open.add(s); s.on('error', () => undefined); s.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n'); });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const tls = await startTlsServer({ days: 10 });
    try {
      const w = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${(plain.address() as { port: number }).port}` });
      const wrong = await ok('srv.sslCheckHost', { Id: w.Id });
      expect(wrong).toMatchObject({ error: expect.stringMatching(/wrong version number/), error_reason: 'wrong_version', chain_reason: null });
      const refusedPort = await freePort();
      const r = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${refusedPort}` });
      expect(await ok('srv.sslCheckHost', { Id: r.Id })).toMatchObject({ error: 'Connection refused', error_reason: 'refused' });
      const s = await ok('srv.sslUpdateHost', { host: `localhost:${tls.port}` });
      expect(await ok('srv.sslCheckHost', { Id: s.Id })).toMatchObject({ error: null, error_reason: null, chain_valid: 0, chain_error: expect.stringMatching(/SELF_SIGNED/), chain_reason: 'self_signed' });
      // the list answers the same (derived when answering, so rows stored before are classified too)
      const rows = await ok('srv.getSslHosts');
      expect(rows.find((x: any) => x.Id === w.Id)).toMatchObject({ error_reason: 'wrong_version' });
      for (const Id of [w.Id, r.Id, s.Id]) await ok('srv.sslDeleteById', { Id });
    } finally {
      await tls.stop();
      for (const c of open) c.destroy();
      await new Promise((r) => plain.close(r));
    }
    // The other texts the TLS stack gives, and the sentence for each reason.
    expect([
      'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'Timed out after 10 s',
      'Host not found (ENOTFOUND)', 'Connection reset during the TLS handshake', 'The server sent no certificate', 'Not a valid host: x',
      '40C7:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../ssl/record/rec_layer_s3.c:1605:SSL alert number 40',
      'something new',
    ].map(sslReasonOf)).toEqual(['expired', 'not_yet_valid', 'name_mismatch', 'untrusted', 'timeout', 'not_found', 'reset', 'no_certificate', 'bad_host', 'handshake', 'other']);
    expect(sslReasonOf(null)).toBeNull();
    for (const text of Object.values(SSL_REASON_TEXT)) expect(text).toMatch(/^[A-Z].*\.$/);
  });

  test('check all checks every host with not_check 0 and skip the others', async () => {
    const skip = await startTlsServer({ days: 20 });
    try {
      const { Id } = await ok('srv.sslUpdateHost', { host: `127.0.0.1:${skip.port}`, not_check: 1 });
      const rows = await ok('srv.sslCheckAll');
      expect(rows.find((x: any) => x.Id === Id).ts_check).toBeNull();
      const checked = rows.filter((x: any) => x.not_check === 0);
      expect(checked.length).toBeGreaterThan(2);
      expect(checked.every((x: any) => x.ts_check !== null)).toBe(true);
      expect(await t.app.get(SslService).checkAll()).toMatchObject({ checked: checked.length });
      expect(skip.servernames).toEqual([]);
    } finally {
      await skip.stop();
    }
  });

  test('the daily job runs the check where CRON_ENABLED is on, and does nothing where it is off', async () => {
    const peer = await startTlsServer({ days: 4 });
    const on = await startApp({ CRON_ENABLED: '1' });
    try {
      const onAdmin = (await on.session(1)).hash;
      for (const app of [t, on]) {
        const hash = app === t ? admin : onAdmin;
        const r = await app.rpc<any>(hash, 'srv.sslUpdateHost', { host: `localhost:${peer.port}` });
        expect(r.env.status).toBe('ok');
      }
      await t.app.get(SslService).scheduledCheck();
      const off = (await ok('srv.getSslHosts')).find((x: any) => x.host === `localhost:${peer.port}`);
      expect(off.ts_check).toBeNull();
      await on.app.get(SslCheckJob).run(); // the job in src/jobs is a one-line call into the service
      const rows = (await on.rpc<any>(onAdmin, 'srv.getSslHosts')).env as any;
      const row = rows.result.find((x: any) => x.host === `localhost:${peer.port}`);
      expect(row.ts_check).not.toBeNull();
      expect([3, 4]).toContain(row.day_last);
    } finally {
      await on.close();
      await peer.stop();
    }
  });

  test('roles: only admins', async () => {
    const { hash } = await t.session(100);
    for (const m of ['srv.getSslHosts', 'srv.sslUpdateHost', 'srv.sslDeleteById', 'srv.sslCheckHost', 'srv.sslCheckAll']) {
      const r = await t.rpc<any>(hash, m, { Id: 1, host: 'x.example' });
      expect([m, r.status]).toEqual([m, 403]);
    }
  });
});
