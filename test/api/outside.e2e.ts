/**
 * Outside services on the real app (docs/architecture.md "Outside services"; issue 21):
 *
 * - the answer cache (table outside_cache, both databases): a hit sends nothing, concurrent reads share
 *   one call, a failure answers the last good data marked stale with its time and the error, and
 *   without one the error itself;
 * - the mail client against a real SMTP server on loopback (test/helpers/smtp.ts): delivered with
 *   subject, text and HTML; a 451 tried again and delivered once; a 550 not tried again; bad
 *   credentials -> reason auth; not configured -> `configured: false` and reason config; the password
 *   never in an answer or a log line;
 * - the node-agent client through the app against a stand-in agent (test/helpers/fake-http.ts): the
 *   key in a header not the URL, a retry that then succeeds, no retry on 401 nor for a POST, a
 *   time-out, and at most NODE_AGENT_CONCURRENCY calls at once.
 *
 * The shared helpers alone (request path, reasons, retries, pacer): test/unit/outside.spec.ts. Whois
 * through the cache: test/api/firewall-whois.e2e.ts; the AI report: test/api/firewall-train.e2e.ts.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { OutsideServiceView } from '../../src/contracts/outside.js';
import { AnswerCache } from '../../src/core/outside/answer-cache.js';
import { decodeJson, sendOutside, type Endpoint } from '../../src/core/outside/http.js';
import { MailClient } from '../../src/core/outside/mail.client.js';
import { OutsideError } from '../../src/core/outside/outside-error.js';
import { JsonLogger } from '../../src/core/logger.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startFakeHttp, type FakeHttp } from '../helpers/fake-http.js';
import { onlyIn, pass } from '../helpers/passes.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

const failure = async (p: Promise<unknown>): Promise<OutsideError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof OutsideError) return e;
    throw e;
  }
  throw new Error('expected a failure');
};

// ---------------------------------------------------------------------------------------------
// The answer cache (one app on the suite's database)

describe(`the answer cache (${pass})`, () => {
  let t: TestApp;
  let fake: FakeHttp;
  let cache: AnswerCache;
  let ep: Endpoint;
  const Rate = z.object({ rate: z.number() });
  const POLICY = { ttlMs: 60_000 };
  let rate = 1;

  beforeAll(async () => {
    fake = await startFakeHttp({ 'GET /rates/*': () => ({ body: { rate } }) });
    t = await startApp({ CRON_ENABLED: '0' });
    cache = t.app.get(AnswerCache);
    ep = { service: 'demo', baseUrl: fake.url, timeoutMs: 1000 };
  }, 60_000);
  afterAll(async () => { await t?.close(); await fake?.close(); });

  const fetchRate = (cur: string) => async () => decodeJson(ep, await sendOutside(ep, { path: `/rates/${cur}` }), Rate);

  test('a fresh entry is answered without a call; the first read calls once', async () => {
    const a = await cache.read('demo', 'EUR', POLICY, fetchRate('EUR'));
    expect(a).toMatchObject({ value: { rate: 1 }, cached: false, stale: false });
    expect(fake.to('GET /rates/EUR')).toHaveLength(1);
    rate = 2;
    const b = await cache.read('demo', 'EUR', POLICY, fetchRate('EUR'));
    expect(b).toEqual({ value: { rate: 1 }, fetched: a.fetched, cached: true, stale: false });
    expect(fake.to('GET /rates/EUR')).toHaveLength(1); // nothing sent
  });

  test('reads of one key at once share one call (single-flight)', async () => {
    fake.script('GET /rates/USD', { hold: true });
    const reads = Array.from({ length: 5 }, () => cache.read('demo', 'USD', POLICY, fetchRate('USD')));
    while (fake.to('GET /rates/USD').length < 1) await new Promise((r) => setTimeout(r, 10));
    fake.release();
    const all = await Promise.all(reads);
    expect(fake.to('GET /rates/USD')).toHaveLength(1);
    expect(new Set(all.map((x) => JSON.stringify(x.value)))).toEqual(new Set([JSON.stringify({ rate: 2 })]));
  });

  test('past its TTL a failure answers the last good answer, stale, with its time and the error; a good answer clears it', async () => {
    const before = await cache.peek<{ rate: number }>('demo', 'EUR');
    expect(before).toMatchObject({ value: { rate: 1 }, stale: false });
    const ds = t.app.get<DataSource>(getDataSourceToken());
    await ds.query("UPDATE outside_cache SET expires_at = ? WHERE service = 'demo' AND cache_key = 'EUR'", [Date.now() - 1]);
    expect(await cache.peek('demo', 'EUR')).toMatchObject({ stale: true }); // read without a call: stale
    fake.script('GET /rates/EUR', { status: 500, body: 'down for maintenance' });
    const n = fake.to('GET /rates/EUR').length;
    const s = await cache.read('demo', 'EUR', POLICY, fetchRate('EUR'));
    expect(fake.to('GET /rates/EUR')).toHaveLength(n + 1);
    expect(s).toEqual({ value: { rate: 1 }, fetched: before!.fetched, cached: true, stale: true, error: 'demo: answered 500: down for maintenance' });
    expect((await ds.query("SELECT error FROM outside_cache WHERE service = 'demo' AND cache_key = 'EUR'"))[0].error).toBe('demo: answered 500: down for maintenance');
    const fresh = await cache.read('demo', 'EUR', POLICY, fetchRate('EUR'));
    expect(fresh).toMatchObject({ value: { rate: 2 }, cached: false, stale: false });
    expect(fresh.error).toBeUndefined();
    expect((await ds.query("SELECT error FROM outside_cache WHERE service = 'demo' AND cache_key = 'EUR'"))[0].error).toBeNull();
  });

  test('a failure with no good answer before is the error itself; a bug is never hidden as stale', async () => {
    fake.script('GET /rates/GBP', { status: 503 });
    expect(await failure(cache.read('demo', 'GBP', POLICY, fetchRate('GBP')))).toMatchObject({ reason: 'upstream', upstreamStatus: 503 });
    expect(await cache.peek('demo', 'GBP')).toBeNull();
    await expect(cache.read('demo', 'EUR-bug', POLICY, async () => { throw new TypeError('a bug'); })).rejects.toThrow('a bug');
  });
});

// ---------------------------------------------------------------------------------------------
// Mail over a real SMTP server

describe('mail (SMTP on loopback)', () => {
  const USER = 'alerts';
  const PASSWORD = 'smtp-Pa55-word-7e1b';
  let smtp: TestSmtp;
  let t: TestApp;
  let mail: MailClient;
  const lines: string[] = [];

  beforeAll(async () => {
    if (pass !== 'sqlite') return;
    smtp = await startSmtp({ auth: { user: USER, pass: PASSWORD } });
    const logger = new JsonLogger('debug', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
    t = await startApp({ CRON_ENABLED: '0', SMTP_URL: smtp.url, ALERT_MAIL_TO: 'ops@example.org, oncall@example.org', ALERT_MAIL_FROM: 'console@ops.example.org', SMTP_TIMEOUT_MS: '3000' }, { logger });
    mail = t.app.get(MailClient);
    mail.retry = { tries: 3, baseMs: 50, maxMs: 200 };
  }, 60_000);
  afterAll(async () => { await t?.close(); await smtp?.close(); });

  onlyIn('sqlite')('a message is delivered: sender, the alert recipients, subject, text and HTML; its Message-ID answered', async () => {
    const id = await mail.send({ subject: 'Todo: Позвонить поставщику', text: 'Due now.\nSecond line.', html: '<p>Due <b>now</b>.</p>' });
    expect(smtp.messages).toHaveLength(1);
    const m = smtp.messages[0];
    expect(m).toMatchObject({ from: 'console@ops.example.org', to: ['ops@example.org', 'oncall@example.org'], subject: 'Todo: Позвонить поставщику', user: USER });
    expect(m.text.trim()).toBe('Due now.\nSecond line.');
    expect(m.html.trim()).toBe('<p>Due <b>now</b>.</p>');
    expect(m.messageId).toBe(id);
    await mail.send({ to: 'someone@example.org', subject: 'one', text: 'x' });
    expect(smtp.messages[1].to).toEqual(['someone@example.org']);
  });

  onlyIn('sqlite')('a 451 (transient) is tried again and the message delivered once', async () => {
    const [n, tries] = [smtp.messages.length, smtp.dataAttempts];
    smtp.failNext('data', 451, 'Greylisted, try again later');
    await mail.send({ subject: 'after 451', text: 'x' });
    expect(smtp.dataAttempts).toBe(tries + 2);
    expect(smtp.messages.slice(n).map((m) => m.subject)).toEqual(['after 451']);
  });

  onlyIn('sqlite')('a 550 (final) is not tried again: upstream with the SMTP code, 502', async () => {
    const [n, tries, refused] = [smtp.messages.length, smtp.dataAttempts, smtp.refusals.length];
    smtp.failNext('data', 550, 'Message rejected as spam');
    const e = await failure(mail.send({ subject: 'after 550', text: 'x' }));
    expect({ reason: e.reason, upstreamStatus: e.upstreamStatus, httpStatus: e.httpStatus, retryable: e.retryable }).toEqual({ reason: 'upstream', upstreamStatus: 550, httpStatus: 502, retryable: false });
    expect(e.message).toContain('550');
    expect(e.message).toContain('Message rejected as spam');
    expect(smtp.dataAttempts).toBe(tries + 1);
    expect(smtp.messages).toHaveLength(n);
    smtp.failNext('rcpt', 550, 'No such user here');
    expect(await failure(mail.send({ to: 'nobody@example.org', subject: 'x', text: 'x' }))).toMatchObject({ reason: 'upstream', upstreamStatus: 550 });
    expect(smtp.refusals.slice(refused).map((r) => [r.stage, r.code])).toEqual([['data', 550], ['rcpt', 550]]);
  });

  onlyIn('sqlite')('bad credentials: reason auth (502), not tried again; the password in no answer and no log line', async () => {
    const refused = smtp.refusals.length;
    const wrong = await startApp({ CRON_ENABLED: '0', SMTP_URL: smtp.url.replace(encodeURIComponent(PASSWORD), 'wrong-password'), ALERT_MAIL_TO: 'ops@example.org' });
    try {
      const e = await failure(wrong.app.get(MailClient).send({ subject: 'x', text: 'x' }));
      expect({ reason: e.reason, httpStatus: e.httpStatus }).toEqual({ reason: 'auth', httpStatus: 502 });
      expect(e.message).toMatch(/^Mail: 127\.0\.0\.1:\d+ refused the credentials/);
      expect(smtp.refusals.slice(refused).map((r) => r.stage)).toEqual(['auth']);
    } finally {
      await wrong.close();
    }
    // the settings answer: where mail goes, the password masked, the credential only 'set'
    const admin = (await t.session(1)).hash;
    const services = await t.ok<OutsideServiceView[]>(admin, 'outside.getServices');
    expect(services.find((s) => s.service === 'mail')).toEqual({
      service: 'mail', configured: true, target: `smtp://${USER}:***@127.0.0.1:${smtp.port}`, credential: 'set',
      env: ['SMTP_URL', 'SMTP_TIMEOUT_MS', 'ALERT_MAIL_FROM', 'ALERT_MAIL_TO'],
      details: { from: 'console@ops.example.org', alert_to: 'ops@example.org, oncall@example.org', timeout_ms: 3000 },
    });
    expect(JSON.stringify(services)).not.toContain(PASSWORD);
    expect((await t.rpc(null, 'outside.getServices')).status).toBe(401);
    expect((await t.rpc((await t.session(10)).hash, 'outside.getServices')).status).toBe(403);
    // the app's log lines of this suite (sends, the retry warnings, the failures)
    expect(lines.some((l) => l.includes('Greylisted'))).toBe(true);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  onlyIn('sqlite')('without SMTP_URL: configured false (one way), send refused with reason config (422)', async () => {
    const bare = await startApp({ CRON_ENABLED: '0' });
    try {
      const m = bare.app.get(MailClient);
      expect(m.configured).toBe(false);
      const e = await failure(m.send({ to: 'ops@example.org', subject: 'x', text: 'x' }));
      expect({ reason: e.reason, httpStatus: e.httpStatus, message: e.message }).toEqual({ reason: 'config', httpStatus: 422, message: 'Mail is not configured (SMTP_URL)' });
      const admin = (await bare.session(1)).hash;
      const services = await bare.ok<OutsideServiceView[]>(admin, 'outside.getServices');
      expect(services.map((s) => [s.service, s.configured])).toEqual([['mail', false], ['ai-report', false], ['whois', true], ['tbank', false], ['wb', false], ['yandex-search', false], ['metrika', false], ['rsya', false]]);
      expect(services[0]).toMatchObject({ target: '', credential: 'not set' });
    } finally {
      await bare.close();
    }
  });

  onlyIn('sqlite')('an SMTP server that cannot be reached: reason unreachable', async () => {
    const down = await startApp({ CRON_ENABLED: '0', SMTP_URL: `smtp://127.0.0.1:${await deadPort()}`, ALERT_MAIL_TO: 'ops@example.org' });
    try {
      const m = down.app.get(MailClient);
      m.retry = { tries: 2, baseMs: 20, maxMs: 20 };
      expect(await failure(m.send({ subject: 'x', text: 'x' }))).toMatchObject({ reason: 'unreachable', httpStatus: 502 });
    } finally {
      await down.close();
    }
  });
});

async function deadPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

// ---------------------------------------------------------------------------------------------
// The node-agent client through the app, against a stand-in agent

describe('the agent client on the shared request path', () => {
  const KEY = 'agent-key-0123456789-abcdef';
  let t: TestApp;
  let fake: FakeHttp;
  let admin: string;
  const ids: number[] = [];
  const files = (Id: number) => t.rpc<{ files: unknown[] }>(admin, 'logs.getFiles', { Id });

  beforeAll(async () => {
    if (pass !== 'sqlite') return;
    // answers as the node it was asked for (the console's _srv_), as a real agent on that node would
    fake = await startFakeHttp({
      'GET /sync/logs': (req) => ({ body: { host: req.query.get('_srv_'), r: { res: [{ name: 'logs/a.log', size: 1, mtime: 1 }] } } }),
      'POST /sync/logs/del/*': (req) => ({ body: { host: req.query.get('_srv_'), r: { res: 'ok' } } }),
    });
    t = await startApp({ CRON_ENABLED: '0', NODE_AGENT_TIMEOUT_MS: '500', NODE_AGENT_CONCURRENCY: '2' });
    admin = (await t.session(1)).hash;
    for (const name of ['n1', 'n2', 'n3', 'n4']) ids.push((await t.ok(admin, 'srv.save_server', { name, type: 9, agent_url: fake.url, cluster_key: KEY })).Id);
  }, 60_000);
  afterAll(async () => { fake?.release(); await t?.close(); await fake?.close(); });
  beforeEach(() => fake?.reset());

  onlyIn('sqlite')('the cluster key travels in its header, never in the URL', async () => {
    expect((await files(ids[0])).env.status).toBe('ok');
    const [r] = fake.requests;
    expect(r.headers['x-cluster-key']).toBe(KEY);
    expect(r.url).not.toContain(KEY);
    expect(r.url).toBe('/sync/logs?_front_=1&_srv_=n1');
  });

  onlyIn('sqlite')('a GET that failed with 503 is tried again and succeeds', async () => {
    fake.script('GET /sync/logs', { status: 503, body: { host: 'n1', r: { res: false, error: 'busy' } } });
    const r = await files(ids[0]);
    expect(r.env).toMatchObject({ status: 'ok', result: { host: 'n1', files: [{ name: 'logs/a.log', size: 1, mtime: 1 }] } });
    expect(fake.to('GET /sync/logs')).toHaveLength(2);
  });

  onlyIn('sqlite')('no retry on 401; none for a POST either', async () => {
    fake.script('GET /sync/logs', { status: 401, body: { r: { res: false, error: 'Unauthorized' } } });
    expect((await files(ids[0])).env).toMatchObject({ status: 'http', code: 502, message: 'n1: the agent refused the cluster key' });
    expect(fake.to('GET /sync/logs')).toHaveLength(1);
    fake.script('POST /sync/logs/del/*', { status: 503, body: { host: 'n1', r: { res: false, error: 'busy' } } });
    expect((await t.rpc(admin, 'logs.remove', { Id: ids[0], name: 'logs/a.log' })).env).toMatchObject({ status: 'http', code: 502, message: 'n1: busy' });
    expect(fake.to('POST /sync/logs/del/*')).toHaveLength(1);
  });

  onlyIn('sqlite')('a time-out: 504 naming the node, not tried again', async () => {
    fake.script('GET /sync/logs', { hold: true });
    expect((await files(ids[0])).env).toMatchObject({ status: 'http', code: 504, message: 'n1: the agent did not answer in 500 ms' });
    expect(fake.to('GET /sync/logs')).toHaveLength(1);
    fake.release();
  });

  onlyIn('sqlite')('at most NODE_AGENT_CONCURRENCY (2) calls at once; the others wait their turn', async () => {
    const longer = await startApp({ CRON_ENABLED: '0', NODE_AGENT_TIMEOUT_MS: '20000', NODE_AGENT_CONCURRENCY: '2' });
    try {
      const hash = (await longer.session(1)).hash;
      const own: number[] = [];
      for (const name of ['m1', 'm2', 'm3', 'm4']) own.push((await longer.ok(hash, 'srv.save_server', { name, type: 9, agent_url: fake.url, cluster_key: KEY })).Id);
      fake.reset();
      fake.script('GET /sync/logs', ...own.map(() => ({ hold: true })));
      const calls = own.map((Id) => longer.rpc(hash, 'logs.getFiles', { Id }));
      while (fake.to('GET /sync/logs').length < 2) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300)); // room for a third, were it let through
      expect(fake.to('GET /sync/logs')).toHaveLength(2);
      while (fake.to('GET /sync/logs').length < 4) { fake.release(); await new Promise((r) => setTimeout(r, 20)); }
      fake.release();
      const answers = await Promise.all(calls);
      expect(answers.map((a) => a.env.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    } finally {
      fake.release();
      await longer.close();
    }
  }, 60_000);
});
