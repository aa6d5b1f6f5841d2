/**
 * Todo alerts (issue 21 "Tests and figures"): 10,000 alerts due in the same minute are all delivered
 * within that minute. The console runs as in production (CRON_ENABLED=1, the default scan of
 * TODO_ALERT_SCAN_MS = 5 s, TODO_ALERT_BATCH = 500); the 10,000 todos (50 users x 200, each a once alert
 * at the same whole minute) are written straight into the table before that minute (the setup, not the
 * measure); each owner has an open socket that counts the `notify.new` it gets. Measured from the due
 * second: when each delivery row was notified in the console and when its e-mail was taken by the SMTP
 * server. Two scenarios per database: in-console only (no SMTP_URL), and in-console plus e-mail to a
 * real SMTP server (test/helpers/smtp.ts, smtp-server) running in a process of its own. SQLite, then
 * MariaDB when reachable. Machine load is written beside the figures. Run: `npm run bench -- todo-alerts`.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { io, type Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { encodeAuthKey } from '../src/contracts/auth.js';
import { machine, onScratchMariaDb, percentile, startBenchApp, writeSection } from './lib.js';

const USERS = 50;
const PER_USER = 200;
const N = USERS * PER_USER;
/** Setup must be done this long before the due minute. */
const LEAD_S = 25;

// The SMTP peer, in a child process (`node todo-alerts.js smtp-child`): counts what it takes and when.
if (process.argv[2] === 'smtp-child') {
  const { startSmtp } = await import('../test/helpers/smtp.js');
  const smtp = await startSmtp();
  const times: number[] = [];
  let seen = 0;
  setInterval(() => {
    while (seen < smtp.messages.length) { times.push(Date.now()); seen++; }
  }, 20).unref();
  process.send!({ port: smtp.port });
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'stats') {
      while (seen < smtp.messages.length) { times.push(Date.now()); seen++; }
      process.send!({ count: smtp.messages.length, times, recipients: [...new Set(smtp.messages.flatMap((x) => x.to))] });
    }
    if (m.cmd === 'exit') void smtp.close().then(() => process.exit(0));
  });
  await new Promise(() => undefined);
}

interface SmtpPeer { port: number; stats(): Promise<{ count: number; times: number[]; recipients: string[] }>; close(): void; child: ChildProcess }
async function smtpPeer(): Promise<SmtpPeer> {
  const child = fork(process.argv[1], ['smtp-child'], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return {
    port, child,
    stats: () => new Promise((resolve) => { child.once('message', resolve as never); child.send({ cmd: 'stats' }); }),
    close: () => child.send({ cmd: 'exit' }),
  };
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' / ');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Row { scenario: string; db: string; notified: number; events: number; mails: number | null; notifyP50: number; notifyP99: number; notifyMax: number; mailP50: number | null; mailP99: number | null; mailMax: number | null; allWithin: boolean; loadAt: string }

async function scenario(db: string, withMail: boolean, databaseUrl?: string): Promise<Row> {
  const peer = withMail ? await smtpPeer() : null;
  const bench = await startBenchApp({
    CRON_ENABLED: '1', TZ: 'UTC', TRUST_PROXY: '1', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(peer ? { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, ALERT_MAIL_TO: 'ops@example.org' } : {}),
  });
  const sockets: Socket[] = [];
  try {
    const ds = bench.app.get<DataSource>(getDataSourceToken());
    // Owners: users created through the API (register + activate), each with one open socket.
    const uids: number[] = [];
    let events = 0;
    for (let u = 0; u < USERS; u++) {
      const login = `owner${u}`;
      const password = `${login}-password-1`;
      // Registrations are throttled per address (5 an hour): each owner registers from an address of its own (TRUST_PROXY=1).
      const reg = await (await fetch(`${bench.url}/api/user/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Forwarded-For': `10.9.${Math.floor(u / 200)}.${(u % 200) + 1}` }, body: JSON.stringify({ login, name: login, password }) })).json() as { result: { uid: number } };
      await fetch(`${bench.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: bench.hash }, body: JSON.stringify({ methods: ['user.save'], args: [{ uid: reg.result.uid, active: 1, role: 100 }], host: 0 }) });
      const auth = await (await fetch(`${bench.url}/api/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: encodeAuthKey(login, password) }) })).json() as { result: { hash: string } };
      uids.push(reg.result.uid);
      const s = io(bench.url, { transports: ['websocket'], auth: { hash: auth.result.hash, status: 'moder' }, reconnection: false });
      s.on('notify.new', () => { events++; });
      sockets.push(s);
    }
    await Promise.all(sockets.map((s) => (s.connected ? null : new Promise<void>((r) => s.once('connect', () => r())))));
    // The due minute: the next whole minute at least LEAD_S away.
    const due = Math.ceil((Date.now() / 1000 + LEAD_S) / 60) * 60;
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < N; i += 500) {
      const part = Array.from({ length: Math.min(500, N - i) }, (_, k) => i + k);
      await ds.query(
        `INSERT INTO todos (uid, title, text, type, status, ts_create, ts_update, ts_alert, alert_type, alert_next) VALUES ${part.map(() => '(?, ?, ?, 1, 0, ?, ?, ?, ?, ?)').join(', ')}`,
        part.flatMap((k) => [uids[k % USERS], `Alert ${k}`, '<p>bench</p>', now, now, due, '1,0', due]),
      );
    }
    const loadAt = load();
    while (Date.now() < due * 1000) await sleep(200);
    // Until everything is delivered, or the minute is over (then a little longer, to see how long it took).
    const deadline = due * 1000 + 120_000;
    for (;;) {
      const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM todo_alerts WHERE pending = 0');
      if (Number(n) >= N || Date.now() > deadline) break;
      await sleep(250);
    }
    await sleep(500);
    const rows: Array<{ notified_at: string | number; mail_state: string }> = await ds.query('SELECT notified_at, mail_state FROM todo_alerts');
    const notify = rows.map((r) => Number(r.notified_at) - due * 1000).filter((x) => x > -1e12).sort((a, b) => a - b);
    const mail = peer ? await peer.stats() : null;
    const mailLag = mail ? mail.times.map((t) => t - due * 1000).sort((a, b) => a - b) : null;
    const notifiedCount = rows.filter((r) => Number(r.notified_at) > 0).length;
    const within = notifiedCount === N && notify[notify.length - 1] < 60_000 && (!mail || (mail.count === N && mailLag![mailLag!.length - 1] < 60_000));
    return {
      scenario: withMail ? 'in the console + e-mail' : 'in the console only', db, notified: notifiedCount, events, mails: mail ? mail.count : null,
      notifyP50: percentile(notify, 0.5), notifyP99: percentile(notify, 0.99), notifyMax: notify[notify.length - 1],
      mailP50: mailLag ? percentile(mailLag, 0.5) : null, mailP99: mailLag ? percentile(mailLag, 0.99) : null, mailMax: mailLag ? mailLag[mailLag.length - 1] : null,
      allWithin: within, loadAt,
    };
  } finally {
    for (const s of sockets) s.close();
    await bench.close();
    peer?.close();
  }
}

const loadBefore = load();
const results: Row[] = [];
results.push(await scenario('SQLite', false));
results.push(await scenario('SQLite', true));
const maria = await onScratchMariaDb(async (url) => [await scenario('MariaDB', false, url)]);
const maria2 = await onScratchMariaDb(async (url) => [await scenario('MariaDB', true, url)]);
const skipped: string[] = [];
for (const m of [maria, maria2]) {
  if ('value' in m) results.push(...m.value);
  else skipped.push(m.skipped);
}
const loadAfter = load();

const s = (ms: number | null) => (ms === null || Number.isNaN(ms) ? '—' : (ms / 1000).toFixed(1));
writeSection('todo-alerts', `## Todo alerts: 10,000 due in the same minute

${N.toLocaleString('en-US')} todos (${USERS} users x ${PER_USER}), each a once alert at the same whole minute; the console as in production (CRON_ENABLED=1, scan every 5 s, 500 rows a pass, the next pass at once after a full one), one instance; each owner has an open socket. E-mail goes to a real SMTP server (smtp-server, test/helpers/smtp.ts) in a process of its own on loopback, through the MailClient's pool of 3 connections, 8 messages in flight. Times are seconds after the due second: when the delivery row was notified (stored, pushed to the owner's tabs) and when the SMTP server had taken the message. ${machine()}; load average (1/5/15 min) ${loadBefore} before, ${loadAfter} after. Run: \`npm run bench -- todo-alerts\`.

| database | delivery | notified | notify.new received | e-mails | notified p50 / p99 / last s | e-mail p50 / p99 / last s | all within the minute | load at setup |
|---|---|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.db} | ${r.scenario} | ${r.notified} | ${r.events} | ${r.mails ?? '—'} | ${s(r.notifyP50)} / ${s(r.notifyP99)} / ${s(r.notifyMax)} | ${s(r.mailP50)} / ${s(r.mailP99)} / ${s(r.mailMax)} | ${r.allWithin ? 'yes' : '**no**'} | ${r.loadAt} |`).join('\n')}
${skipped.length ? `\nMariaDB not measured: ${skipped.join('; ')}.\n` : ''}
The first pass starts within one scan interval (5 s) of the due second, so that much lateness is by design (docs/todo.md "Delivery": the resolution is the scan interval). A pass takes 500 due todos (one multi-row INSERT IGNORE of their delivery rows per 200, the next due times in one CASE update per 200), stores and pushes their notifications (one multi-row INSERT per 200), then hands their e-mails to the instance's senders (8 in flight), which work beside the next passes, so the notifications of the later alerts do not wait for the e-mails of the earlier ones; a full pass is followed by the next at once. Machine shared with other work while measured (see the load columns).
`);
process.exit(0);
