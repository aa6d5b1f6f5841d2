/**
 * The database goes away (issue 18): the console on a MariaDB of the test's own (own data directory and
 * port, never the machine's), a stream of srv.save_server calls, the database killed (SIGKILL) and
 * started again. During the outage every answer is 503 'db' "Database unreachable…" (RPC, the batch,
 * REST, health) with no stack; the log has ONE warning for the outage and one info line when it is
 * back; afterwards every acknowledged write is there.
 *
 * It owns its database (DATABASE_URL points the app at the test's own server, TEST_DATABASE_URL is not
 * used), so it runs in one pass of the API suite only (the SQLite pass: test/helpers/passes.ts).
 * One pass: it owns a MariaDB of its own (see above).
 */
import type { Envelope } from '../../src/contracts/envelope.js';
import { JsonLogger } from '../../src/core/logger.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startOwnMariaDb, type OwnMariaDb } from '../helpers/own-mariadb.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { onlyIn } from '../helpers/passes.js';

interface LogLine { level: number; msg?: string; context?: string; stack?: string }

let db: OwnMariaDb | undefined;
let t: TestApp | undefined;
const lines: LogLine[] = [];

beforeAll(async () => {
  db = await startOwnMariaDb();
  const logger = new JsonLogger('info', {
    write: (s: string) => {
      for (const l of s.split('\n')) if (l.trim()) lines.push(JSON.parse(l) as LogLine);
    },
  });
  t = await startApp({ DATABASE_URL: db.url, CRON_ENABLED: '0' }, { logger });
}, 60_000);

afterAll(async () => {
  // The server and its directory go even when a test failed or closing the app fails or hangs; the app
  // first (its pool ends quietly).
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([t?.close(), new Promise((r) => { timer = setTimeout(r, 20_000); })]).finally(() => clearTimeout(timer));
  } finally {
    await db?.remove();
  }
}, 40_000);

const unreachable = /database unreachable/i;

onlyIn('sqlite')('killing the database under writes: 503 db during the outage, one warning, recovery, nothing acknowledged lost', async () => {
  const app = t!;
  const admin = (await app.session(1)).hash;
  const acked = new Map<number, string>();
  const failed: Array<{ status: number; env: Envelope }> = [];
  let stop = false;
  let n = 0;
  // The stream of writes: one after another, as an operator's UI would send them.
  const writer = (async () => {
    while (!stop) {
      const name = `w-${++n}`;
      const r = await app.rpc<{ Id: number }>(admin, 'srv.save_server', { name, type: 3 });
      if (r.env.status === 'ok') acked.set(r.env.result.Id, name);
      else failed.push(r);
      await sleep(20);
    }
  })();
  try {
    await waitFor('writes before the outage', () => acked.size >= 15, 20_000);
    expect(failed).toEqual([]);
    const logFrom = lines.length;

    await db!.kill();
    await waitFor('writes refused during the outage', () => failed.length >= 10, 20_000);

    // RPC: each answer 503 with the spec's wrapper status 'db' and a message that says so, no stack.
    for (const f of failed) {
      expect(f.status).toBe(503);
      expect(f.env).toEqual({ status: 'db', message: expect.stringMatching(unreachable), code: 503 });
    }
    // A batch of several methods: 503 as well, its envelope(s) 'db'.
    const batch = await app.rest<Envelope | Envelope[]>(admin, 'POST', '', { methods: ['srv.getList', 'srv.save_server'], args: [{}, { name: 'in-batch', type: 3 }], host: 0 });
    expect(batch.status).toBe(503);
    for (const e of [batch.body].flat()) expect(e).toMatchObject({ status: 'db', code: 503, message: expect.stringMatching(unreachable) });
    // REST: the same answer.
    const rest = await app.rest<Envelope>(admin, 'GET', '/srv/list');
    expect(rest).toEqual({ status: 503, body: { status: 'db', message: expect.stringMatching(unreachable), code: 503 } });
    for (const body of [JSON.stringify(batch.body), JSON.stringify(rest.body), ...failed.map((f) => JSON.stringify(f.env))]) {
      expect(body).not.toMatch(/\bat .*\.(ts|js):\d+|stack|Internal error/);
    }
    const health = await app.rest<Envelope>(null, 'GET', '/health');
    expect(health).toEqual({ status: 503, body: { status: 'db', message: expect.stringMatching(/^Database unreachable: /), code: 503 } });

    // The log: one warning for the outage, no error line and no stack for the calls.
    const outage = lines.slice(logFrom);
    expect(outage.filter((l) => l.level === 40 && unreachable.test(l.msg ?? ''))).toHaveLength(1);
    expect(outage.filter((l) => l.level >= 50 || l.stack)).toEqual([]);

    // Back: the writes go through again; one info line says so.
    const failedBefore = failed.length;
    await db!.start();
    const ackedBefore = acked.size;
    await waitFor('writes after the restart', () => acked.size >= ackedBefore + 10, 30_000);
    stop = true;
    await writer;
    const after = lines.slice(logFrom);
    expect(after.filter((l) => l.level === 30 && /Database reachable again/.test(l.msg ?? ''))).toHaveLength(1);
    expect(after.filter((l) => l.level === 40 && unreachable.test(l.msg ?? ''))).toHaveLength(1);
    expect(after.filter((l) => l.level >= 50 || l.stack)).toEqual([]);
    expect(failed.length).toBeGreaterThanOrEqual(failedBefore);
    for (const f of failed) expect(f.env).toMatchObject({ status: 'db', code: 503 });

    // Nothing acknowledged was lost.
    const list = await app.ok<Array<{ Id: number; name: string }>>(admin, 'srv.getList', { type: 3 });
    const stored = new Map(list.map((s) => [s.Id, s.name]));
    for (const [Id, name] of acked) expect([Id, stored.get(Id)]).toEqual([Id, name]);
    expect((await app.rest(null, 'GET', '/health')).status).toBe(200);
  } finally {
    stop = true;
    await writer;
  }
}, 90_000);
