/**
 * Input stream end to end (docs/input-stream.md) on the real app and database (SQLite, or MariaDB with
 * TEST_DATABASE_URL): admins make a site and get its token once; a site posts batches with the token
 * (refused without it, with a wrong, rotated or deactivated one); a batch counts once per batch id;
 * hour and day aggregates answer stream.cats / stream.items / stream.cat / metrics.get and
 * GET /stats/get_views_data with the sums computed here; roles; bad input; retention.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { request } from 'node:http';
import type { DataSource } from 'typeorm';
import { StreamBatchEntity } from '../../src/modules/input-stream/input-stream.entities.js';
import { InputStreamService } from '../../src/modules/input-stream/input-stream.service.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
let token: string;
let siteId: number;

const NOW = Math.floor(Date.now() / 1000);
const HOUR_START = Math.floor(NOW / 3600) * 3600;

async function ingest(tok: string | null, body: unknown) {
  const res = await fetch(`${t.url}/api/input_stream/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(tok ? { 'X-Site-Token': tok } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Events: category 1 has books 11 (shown more) and 12; category 2 has book 21. */
const events = [
  { cat: 1, book: 11, pos: 1, shows: 100, clicks: 10, time: HOUR_START + 5 },
  { cat: 1, book: 11, pos: 3, shows: 50, clicks: 2, time: HOUR_START - 3600 + 7 },
  { cat: 1, book: 12, pos: 5, shows: 40, clicks: 1, time: HOUR_START + 9 },
  { cat: 2, book: 21, pos: 2, shows: 10, clicks: 0, time: HOUR_START + 1 },
];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  const ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title) VALUES (1, 'Фэнтези'), (2, 'Детективы')");
  await ds.query("INSERT INTO books (Id_book, book_title, book_cat) VALUES (11, 'Книга один', 1), (12, 'Книга два', 1), (21, 'Книга три', 2)");
});
afterAll(async () => { await t?.close(); });

describe(`input stream (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('sites: admins only; the token is answered once and never listed', async () => {
    for (const h of [content, user]) expect((await t.rpc(h, 'stream.siteSave', { name: 'x' })).status).toBe(403);
    expect((await t.rpc(content, 'stream.sites')).status).toBe(403);
    const made = await t.ok<{ Id: number; token: string }>(admin, 'stream.siteSave', { name: 'books.example' });
    expect(made.token).toMatch(/^ist_[A-Za-z0-9_-]{32}$/);
    token = made.token;
    siteId = made.Id;
    const dup = await t.rpc(admin, 'stream.siteSave', { name: 'books.example' });
    expect(dup.env).toMatchObject({ status: 'rules', code: 409 });
    const list = await t.ok<any[]>(admin, 'stream.sites');
    expect(list).toEqual([expect.objectContaining({ Id: siteId, name: 'books.example', active: 1, batches: 0 })]);
    expect(JSON.stringify(list)).not.toContain(token);
    // Sealed at rest: the stored row has neither the token nor anything it starts with.
    const [row] = await t.app.get<DataSource>(getDataSourceToken()).query('SELECT token_digest, token_sealed FROM stream_sites WHERE Id = ?', [siteId]);
    expect(row.token_sealed).toMatch(/^v1:/);
    expect(row.token_sealed).not.toContain(token.slice(4, 20));
    expect(row.token_digest).toHaveLength(64);
  });

  test('ingestion refuses a missing or wrong token, and bad batches with 422', async () => {
    const batch = { batch_id: 'b-1', events };
    expect((await ingest(null, batch)).status).toBe(401);
    expect((await ingest('ist_wrong', batch)).status).toBe(401);
    expect((await ingest(user, batch)).status).toBe(401); // a session hash is no site token
    const bad: [unknown, string][] = [
      [{ batch_id: 'b-x', events: [] }, 'events'],
      [{ batch_id: '', events }, 'batch_id'],
      [{ batch_id: 'has space', events }, 'batch_id'],
      [{ batch_id: 'b-x', events: [{ ...events[0], cat: 'one' }] }, 'events.0.cat'],
      [{ batch_id: 'b-x', events: [{ ...events[0], clicks: 101 }] }, 'events.0.clicks'],
      [{ batch_id: 'b-x', events: [{ ...events[0], time: NOW - 40 * 86400 }] }, 'events.0.time'],
      [[events], '_'],
    ];
    for (const [body, field] of bad) {
      const r = await ingest(token, body);
      expect([r.status, r.body.status]).toEqual([422, 'rules']);
      expect(Object.keys(r.body.fields ?? {}).join(',')).toContain(field);
    }
    // Nothing of the refused batches was counted.
    expect((await t.ok(user, 'metrics.get', {})).shows).toBe(0);
  });

  test('a missing or wrong token is refused (401) before the body is read: the answer comes while the body is still held', async () => {
    /** Sends the headers of a 900 KB batch and its first 1,000 bytes, then holds the rest; answers what the server said (status 0: nothing in 15 s). */
    const held = (tok: string | null) => new Promise<{ status: number; body: any; connection?: string }>((resolve) => {
      const u = new URL(t.url);
      const req = request({
        host: u.hostname, port: u.port, path: '/api/input_stream/ingest', method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': 900_000, ...(tok ? { 'x-site-token': tok } : {}) },
      });
      const timer = setTimeout(() => { req.destroy(); resolve({ status: 0, body: null }); }, 15_000);
      req.on('error', () => undefined); // the server closes the connection after its answer
      req.on('response', (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { data += c; });
        res.on('end', () => { clearTimeout(timer); req.destroy(); resolve({ status: res.statusCode ?? 0, body: JSON.parse(data), connection: res.headers.connection }); });
      });
      req.write(`{"batch_id": "held", "events": [${' '.repeat(1000 - 32)}`);
    });
    for (const tok of ['ist_wrong', null, user]) {
      const r = await held(tok);
      expect(r).toMatchObject({ status: 401, body: { status: 'error' }, connection: 'close' });
    }
  }, 60_000);

  test('a batch counts once per batch id; sums per hour and day', async () => {
    const first = await ingest(token, { batch_id: 'b-1', events });
    expect(first).toEqual({ status: 200, body: { status: 'ok', result: { batch_id: 'b-1', accepted: 4, duplicate: false } } });
    const again = await ingest(token, { batch_id: 'b-1', events });
    expect(again.body.result).toEqual({ batch_id: 'b-1', accepted: 0, duplicate: true });
    // The same batch twice at once: still counted once.
    const both = await Promise.all([ingest(token, { batch_id: 'b-2', events: [events[3]] }), ingest(token, { batch_id: 'b-2', events: [events[3]] })]);
    expect(both.map((r) => r.body.result.duplicate).sort()).toEqual([false, true]);

    const m = await t.ok(user, 'metrics.get', { days: 2 });
    expect(m).toMatchObject({ days: 2, shows: 210, clicks: 13, ctr: 6.2 });
    const sites = await t.ok<any[]>(admin, 'stream.sites');
    expect(sites[0]).toMatchObject({ batches: 2, events: 5 });
    expect(sites[0].last_seen_at).not.toBeNull();
  });

  test('stream.cats, stream.items and stream.cat answer the sums, titles and series', async () => {
    const cats = await t.ok(user, 'stream.cats', { days: 2 });
    expect(cats).toMatchObject({ count: 2, page: 1, limit: 20 });
    expect(cats.list[0]).toEqual({ Id_cat: 1, cat_title: 'Фэнтези', books: 2, shows: 190, clicks: 13, ctr: 6.8, pos: 3 });
    expect(cats.list[1]).toMatchObject({ Id_cat: 2, shows: 20, clicks: 0, ctr: 0, pos: 2 });
    expect((await t.ok(user, 'stream.cats', { days: 2, q: 'Детек' })).list.map((r: any) => r.Id_cat)).toEqual([2]);

    const items = await t.ok(user, 'stream.items', { days: 2, Id_cat: 1 });
    expect(items.count).toBe(2);
    expect(items.list[0]).toEqual({ Id_book: 11, book_title: 'Книга один', Id_cat: 1, cat_title: 'Фэнтези', shows: 150, clicks: 12, ctr: 8, pos: 2 });
    expect((await t.ok(user, 'stream.items', { days: 2, p_: 2, Id_cat: 1 })).list).toEqual([]);

    const hours = await t.ok(user, 'stream.cat', { id: 1, days: 1 });
    expect(hours).toMatchObject({ Id_cat: 1, cat_title: 'Фэнтези', step: 'hour', count: 2, limit: 50 });
    const b11 = hours.list.find((b: any) => b.Id_book === 11);
    expect(b11.series).toEqual([
      { time: HOUR_START - 3600, shows: 50, clicks: 2, ctr: 4, pos: 3 },
      { time: HOUR_START, shows: 100, clicks: 10, ctr: 10, pos: 1 },
    ].filter((p) => p.time >= HOUR_START - 23 * 3600));
    const days = await t.ok(user, 'stream.cat', { id: 1, days: 7 });
    expect(days.step).toBe('day');
    expect(days.list[0].series.reduce((s: number, p: any) => s + p.shows, 0)).toBe(150);

    const missing = await t.rpc(user, 'stream.cat', { id: 999 });
    expect(missing.env).toMatchObject({ status: 'empty', message: 'Cat not found!' });
    const bad = await t.rpc(user, 'stream.cat', { id: 'x' });
    expect(bad.env).toMatchObject({ status: 'rules', code: 422 });
  });

  test('GET /stats/get_views_data: object and count since time_more_than; select; session required', async () => {
    const r = await t.rest<any>(user, 'GET', `/stats/get_views_data?time_more_than=${HOUR_START}`);
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual([{ object: 11, count: 100 }, { object: 12, count: 40 }, { object: 21, count: 20 }]);
    const all = await t.rest<any>(user, 'GET', `/stats/get_views_data?time_more_than=${HOUR_START - 3600}&select=object,count,clicks`);
    expect(all.body.result[0]).toEqual({ object: 11, count: 150, clicks: 12 });
    expect((await t.rest(null, 'GET', '/stats/get_views_data')).status).toBe(401);
    expect((await t.rest(user, 'GET', '/stats/get_views_data?select=password')).status).toBe(422);
    expect((await t.rest(user, 'GET', '/stats/get_views_data?time_more_than=abc')).status).toBe(422);
  });

  test('retention: batch ids after 31 days, hour rows after STREAM_HOURS_RETENTION_DAYS, day rows after STREAM_DAYS_RETENTION_DAYS, in day windows; only where scheduled work runs', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const svc = t.app.get(InputStreamService);
    const now = Date.now();
    const day = Math.floor(now / 86_400_000);
    const at = (days: number) => new Date(now - days * 86_400_000);
    // batch ids received 45, 32 and 30 days ago (and the ones of the tests before, just now)
    for (const [id, d] of [['old-45', 45], ['old-32', 32], ['keep-30', 30]] as const) {
      await ds.getRepository(StreamBatchEntity).insert({ site_id: siteId, batch_id: id, events: 1, received_at: at(d) });
    }
    // hour rows 100, 36 and 34 days back (default 35 days), day rows 500, 401 and 399 days back (default 400), besides today's
    for (const [tier, ts] of [['hours', (day - 100) * 24], ['hours', (day - 36) * 24 + 5], ['hours', (day - 34) * 24], ['days', day - 500], ['days', day - 401], ['days', day - 399]] as const) {
      await ds.query(`INSERT INTO stream_${tier} (Id_cat, Id_book, ts, shows, clicks, pos_sum, pos_n) VALUES (9, 99, ?, 1, 0, 1, 1)`, [ts]);
    }
    const count = async (sql: string) => Number((await ds.query(sql))[0].n);
    const hoursBefore = await count('SELECT COUNT(*) AS n FROM stream_hours');
    const daysBefore = await count('SELECT COUNT(*) AS n FROM stream_days');

    expect(await svc.scheduledPrune()).toBeNull(); // CRON_ENABLED=0: not here
    expect(await svc.prune(now)).toEqual({ batches: 2, hours: 2, days: 2 });
    expect((await ds.query('SELECT batch_id FROM stream_batches ORDER BY batch_id')).map((r: any) => r.batch_id)).toEqual(['b-1', 'b-2', 'keep-30']);
    expect(await count('SELECT COUNT(*) AS n FROM stream_hours')).toBe(hoursBefore - 2);
    expect(await count(`SELECT COUNT(*) AS n FROM stream_hours WHERE Id_book = 99 AND ts = ${(day - 34) * 24}`)).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM stream_days')).toBe(daysBefore - 2);
    expect(await count(`SELECT COUNT(*) AS n FROM stream_days WHERE Id_book = 99 AND ts = ${day - 399}`)).toBe(1);
    expect(await svc.prune(now)).toEqual({ batches: 0, hours: 0, days: 0 });
    // the reads are unchanged: today's sums stay
    expect(await t.ok(user, 'metrics.get', { days: 2 })).toMatchObject({ shows: 210, clicks: 13 });
    await ds.query('DELETE FROM stream_hours WHERE Id_book = 99');
    await ds.query('DELETE FROM stream_days WHERE Id_book = 99');
    await ds.query("DELETE FROM stream_batches WHERE batch_id = 'keep-30'");
  });

  test('rotating a token stops the old one; a deactivated site is refused', async () => {
    const rotated = await t.ok<{ token: string }>(admin, 'stream.siteRotate', { Id: siteId });
    expect(rotated.token).not.toBe(token);
    expect((await ingest(token, { batch_id: 'b-3', events })).status).toBe(401);
    expect((await ingest(rotated.token, { batch_id: 'b-3', events: [events[2]] })).body.result.accepted).toBe(1);
    await t.ok(admin, 'stream.siteSave', { Id: siteId, active: 0 });
    expect((await ingest(rotated.token, { batch_id: 'b-4', events })).status).toBe(401);
    expect((await t.rpc(content, 'stream.siteRotate', { Id: siteId })).status).toBe(403);
    const removed = await t.ok(admin, 'stream.siteRemove', { Id: siteId });
    expect(removed.message).toBe('Delete ok!');
    expect((await t.rpc(admin, 'stream.siteRemove', { Id: siteId })).env).toMatchObject({ code: 404 });
  });
});
