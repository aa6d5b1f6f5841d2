/**
 * Banners end to end (docs/content.md "Banners", docs/input-stream.md "Record kinds") on the real app
 * and database (SQLite, or MariaDB with TEST_DATABASE_URL): /abs/set_abs and /abs/get with roles and
 * refusals; an image upload (a real PNG made here with sharp) re-encoded by the storage service and
 * served read-only under /storage (code 'abs'); an image two banners share kept until neither shows
 * it; a legacy image (a /files key of before issue 20) still served, and released on replace; a bad
 * file refused; the sites' read of the working banners by site
 * token; views and clicks reported in ingestion batches: counted once per batch id, clicks once per
 * (banner, visitor, minute), the totals, today's counts, CTR and the daily series.
 */
import sharp from 'sharp';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { join } from 'node:path';
import { InputStreamService } from '../../src/modules/input-stream/input-stream.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { get as httpGet } from 'node:http';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
let token: string;

const NOW = Math.floor(Date.now() / 1000);
/** The start of the current minute, and a time yesterday. */
const MIN = Math.floor(NOW / 60) * 60;
const YESTERDAY = NOW - 86_400;

async function ingest(tok: string | null, body: unknown) {
  const res = await fetch(`${t.url}/api/input_stream/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(tok ? { 'X-Site-Token': tok } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const setAbs = (h: string | null, body: unknown) => t.rest<any>(h, 'POST', '/abs/set_abs', body);
const getAbs = async (h: string, q: string) => t.rest<any>(h, 'GET', `/abs/get${q}`);
/** Every stored file (STORAGE_DIR/<2 hex>/<alias>), as aliases. */
const stored = () => {
  const dir = t.cfg.storage.dir;
  return existsSync(dir) ? readdirSync(dir).flatMap((d) => readdirSync(join(dir, d))).sort() : [];
};
const one = async (Idb: number, extra = '') => {
  const r = await getAbs(user, `?Idb=${Idb}${extra}`);
  expect(r.body.status).toBe('ok');
  return r.body.result;
};
/** A real PNG: a 40x20 gradient, with a text chunk (metadata) and bytes appended after its end. */
async function png(): Promise<Buffer> {
  const raw = Buffer.alloc(40 * 20 * 3);
  for (let i = 0; i < 40 * 20; i++) raw.set([i % 40 * 6, (i / 40) * 12, 200], i * 3);
  const img = await sharp(raw, { raw: { width: 40, height: 20, channels: 3 } }).png().withMetadata({ exif: { IFD0: { Copyright: 'SECRET-EXIF-MARK' } } }).toBuffer();
  return Buffer.concat([img, Buffer.from('<script>alert("PAYLOAD-MARK")</script>')]);
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  token = (await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'banners.example' })).token;
});
afterAll(async () => { await t?.close(); });

describe(`banners (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  const ids: Record<string, number> = {};

  test('set_abs {title, target, status, rate} answers {Idb}; defaults; roles', async () => {
    expect((await setAbs(null, { title: 'x', target: 'https://a.example/' })).status).toBe(401);
    expect((await setAbs(user, { title: 'x', target: 'https://a.example/' })).status).toBe(403);
    const a = await setAbs(content, { title: 'Осенняя распродажа', target: 'https://shop.example/sale', status: 0, rate: 25, description: 'Скидки\nдо 50%' });
    expect(a.body).toEqual({ status: 'ok', result: { Idb: expect.any(Number) } });
    ids.a = a.body.result.Idb;
    const b = await setAbs(admin, { title: 'Stopped one', target: 'http://b.example/' });
    ids.b = b.body.result.Idb;
    expect(await one(ids.b)).toMatchObject({ Idb: ids.b, status: 0, rate: 10, description: '', img: '', views: 0, tviews: 0, click: 0, tclick: 0, ctr: 0 });
    expect((await setAbs(content, { Idb: ids.b, status: 1 })).body.result).toEqual({ Idb: ids.b });
    expect(await one(ids.a)).toMatchObject({ title: 'Осенняя распродажа', target: 'https://shop.example/sale', status: 0, rate: 25, description: 'Скидки\nдо 50%' });
    expect(await one(ids.b)).toMatchObject({ title: 'Stopped one', status: 1, rate: 10 });

    // Every signed-in user reads the list (the menu item has no role); newest first, 20 per page.
    expect((await t.rest(null, 'GET', '/abs/get')).status).toBe(401);
    const list = await getAbs(user, '');
    expect(list.body.result).toMatchObject({ count: 2, page: 1, limit: 20 });
    expect(list.body.result.list.map((x: any) => x.Idb)).toEqual([ids.b, ids.a]);
    expect((await getAbs(user, '?status=1')).body.result.list.map((x: any) => x.Idb)).toEqual([ids.b]);
    expect((await getAbs(user, '?q=распрод')).body.result.list.map((x: any) => x.Idb)).toEqual([ids.a]);
  });

  test('refusals name the field', async () => {
    const bad: [unknown, string, number][] = [
      [{ target: 'https://a.example/' }, 'title', 422],
      [{ title: 'x' }, 'target', 422],
      [{ title: 'x', target: 'javascript:alert(1)' }, 'target', 422],
      [{ title: 'x', target: 'https://a.example/', status: 2 }, 'status', 422],
      [{ title: 'x', target: 'https://a.example/', rate: -1 }, 'rate', 422],
      [{ title: 'x', target: 'https://a.example/', rate: 'ten' }, 'rate', 422],
      [{ Idb: 'one', title: 'x' }, 'Idb', 422],
    ];
    for (const [body, field, code] of bad) {
      const r = await setAbs(content, body);
      expect([r.status, r.body.status, Object.keys(r.body.fields ?? {})]).toEqual([code, 'rules', expect.arrayContaining([field])]);
    }
    expect((await setAbs(content, { Idb: 999_999, title: 'x' })).status).toBe(404);
    expect((await getAbs(user, '?Idb=999999')).status).toBe(404);
    expect((await getAbs(user, '?Idb=abc')).status).toBe(422);
  });

  test('an image upload is checked, re-encoded and served read-only under /storage; replacing it removes the old file', async () => {
    const original = await png();
    const r = await setAbs(content, { Idb: ids.a, img_data: `data:image/png;base64,${original.toString('base64')}` });
    expect(r.body).toEqual({ status: 'ok', result: { Idb: ids.a } });
    const { img } = await one(ids.a);
    expect(img).toMatch(/^\/storage\/[0-9a-f]{32}$/);

    const res = await fetch(t.url + img);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const served = Buffer.from(await res.arrayBuffer());
    expect(await sharp(served).metadata()).toMatchObject({ format: 'png', width: 40, height: 20 });
    // Re-encoded: neither the appended payload nor the EXIF text survive.
    expect(served.includes('PAYLOAD-MARK')).toBe(false);
    expect(served.includes('SECRET-EXIF-MARK')).toBe(false);
    expect(original.includes('SECRET-EXIF-MARK')).toBe(true);

    // No listing, no traversal, nothing but stored aliases (DATA_DIR/secret.key is next to DATA_DIR/storage).
    const secret = readFileSync(join(t.cfg.dataDir, 'secret.key'), 'utf8').trim();
    expect(secret.length).toBeGreaterThan(10);
    // Sent as written (fetch would normalise '..' and '%2e%2e' away before the server sees them).
    const raw = (path: string) => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const u = new URL(t.url);
      httpGet({ host: u.hostname, port: u.port, path }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      }).on('error', reject);
    });
    for (const p of ['/storage/', '/storage', '/storage/..%2fsecret.key', '/storage/%2e%2e/secret.key', '/storage/../secret.key', `${img}x`, '/storage/secret.key', '/files/', '/files/../secret.key']) {
      const x = await raw(p);
      expect([p, x.status]).toEqual([p, 404]);
      expect(x.text).not.toMatch(/<html/i);
      expect(x.text).not.toContain(secret);
    }

    // Replacing the image removes the old file; the new one is JPEG now.
    const jpeg = await sharp(await png()).jpeg().toBuffer();
    await setAbs(content, { Idb: ids.a, img_data: jpeg.toString('base64') });
    const next = (await one(ids.a)).img;
    expect(next).toMatch(/^\/storage\/[0-9a-f]{32}$/);
    expect((await fetch(t.url + img)).status).toBe(404);
    expect((await fetch(t.url + next)).headers.get('content-type')).toBe('image/jpeg');
    expect(stored()).toEqual([next.slice('/storage/'.length)]);
    // The storage knows the banners' image as a reference of code 'abs'.
    const list = await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'abs' });
    expect(list.files.map((f: any) => f.alias)).toEqual([next.slice('/storage/'.length)]);
  });

  test('a bad file is refused and nothing is stored', async () => {
    const before = stored();
    const pngHead = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const bad: [string, RegExp][] = [
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64'), /JPEG, PNG, WebP or GIF/],
      [Buffer.from('just text, called a png').toString('base64'), /JPEG, PNG, WebP or GIF/],
      [Buffer.concat([pngHead, Buffer.from('garbage after a PNG signature')]).toString('base64'), /cannot be read/],
      [(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).tiff().toBuffer()).toString('base64'), /JPEG, PNG, WebP or GIF/],
      ['not base64 at all!', /base64/],
    ];
    for (const [data, msg] of bad) {
      const r = await setAbs(content, { Idb: ids.a, img_data: data });
      expect([r.status, r.body.status]).toEqual([422, 'rules']);
      expect(r.body.fields.img_data).toMatch(msg);
    }
    // Over the size cap: refused (by the body limit or the storage service), never stored.
    const big = await setAbs(content, { Idb: ids.a, img_data: Buffer.alloc(t.cfg.storage.maxBytes + 10, 1).toString('base64') });
    expect([413, 422]).toContain(big.status);
    expect(stored()).toEqual(before);
    expect((await one(ids.a)).img).toBe(`/storage/${before[0]}`);
    // A form body is refused before any parser (the API is JSON only).
    const form = await fetch(`${t.url}/api/abs/set_abs`, { method: 'POST', headers: { User: content, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' });
    expect(form.status).toBe(415);
  });

  test('sites read the working banners with their rates, by site token', async () => {
    expect((await fetch(`${t.url}/api/abs/working`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/abs/working`, { headers: { 'X-Site-Token': 'ist_wrong' } })).status).toBe(401);
    expect((await fetch(`${t.url}/api/abs/working`, { headers: { User: user } })).status).toBe(401);
    const r = await fetch(`${t.url}/api/abs/working`, { headers: { 'X-Site-Token': token } });
    const body = (await r.json()) as any;
    expect(body.result).toEqual([{ Idb: ids.a, title: 'Осенняя распродажа', description: 'Скидки\nдо 50%', target: 'https://shop.example/sale', img: expect.stringMatching(/^\/storage\/[0-9a-f]{32}$/), rate: 25 }]);
  });

  test('views and clicks from site batches: once per batch, clicks once per (banner, visitor, minute); totals, today, ctr, series', async () => {
    const batch = {
      batch_id: 'ab-1',
      banners: [
        { Idb: ids.a, time: NOW, views: 300 },
        { Idb: ids.a, time: YESTERDAY, views: 700, clicks: 7 },
        // One visitor clicking three times in one minute, then once in the next: 2 clicks.
        { Idb: ids.a, time: MIN + 1, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: MIN + 20, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: MIN + 59, clicks: 5, visitor: 'v-1' },
        { Idb: ids.a, time: MIN - 1, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: MIN + 5, clicks: 1, visitor: 'v-2' },
        { Idb: ids.b, time: NOW, views: 10 },
      ],
    };
    const first = await ingest(token, batch);
    expect(first).toEqual({ status: 200, body: { status: 'ok', result: { batch_id: 'ab-1', accepted: 8, duplicate: false } } });
    const expectA = { views: 1000, tviews: 300, click: 10, tclick: 3, ctr: 1 };
    expect(await one(ids.a)).toMatchObject(expectA);
    expect(await one(ids.b)).toMatchObject({ views: 10, tviews: 10, click: 0, tclick: 0, ctr: 0 });

    // The same batch again counts nothing.
    expect((await ingest(token, batch)).body.result).toEqual({ batch_id: 'ab-1', accepted: 0, duplicate: true });
    expect(await one(ids.a)).toMatchObject(expectA);

    // Another batch: v-1's clicks in the minutes already counted count nothing; a new minute counts one;
    // book events travel in the same batch.
    const second = await ingest(token, {
      batch_id: 'ab-2',
      events: [{ cat: 1, book: 1, pos: 1, shows: 5, clicks: 1, time: NOW }],
      banners: [
        { Idb: ids.a, time: MIN + 30, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: MIN - 30, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: MIN - 61, clicks: 1, visitor: 'v-1' },
        { Idb: ids.a, time: NOW, views: 200 },
      ],
    });
    expect(second.body.result).toMatchObject({ accepted: 5, duplicate: false });
    // 11 clicks / 1200 views = 0.92% -> 0.9
    expect(await one(ids.a)).toMatchObject({ views: 1200, tviews: 500, click: 11, tclick: 4, ctr: 0.9 });
    expect((await t.ok(user, 'metrics.get', { days: 1 })).shows).toBe(5);

    // A bot without a visitor id: counted as sent (sites that send no visitor id are trusted with their counts).
    await ingest(token, { batch_id: 'ab-3', banners: [{ Idb: ids.b, time: NOW, clicks: 1 }] });
    expect(await one(ids.b)).toMatchObject({ views: 10, click: 1, ctr: 10 });

    // The daily series of the banner's chart: 30 days, zeros included.
    const d = await one(ids.a, '&joinStats=1');
    expect(d.series).toHaveLength(30);
    const today = Math.floor(NOW / 86_400) * 86_400;
    expect(d.series.at(-1)).toEqual({ time: today, views: 500, click: 4, ctr: 0.8 });
    expect(d.series.at(-2)).toEqual({ time: today - 86_400, views: 700, click: 7, ctr: 1 });
    expect(d.series[0]).toEqual({ time: today - 29 * 86_400, views: 0, click: 0, ctr: 0 });
    expect((await one(ids.a)).series).toBeUndefined();
  });

  test('a bad banner batch is refused whole (422 naming the record), nothing counted', async () => {
    const before = await one(ids.a);
    const bad: [unknown, string][] = [
      [{ batch_id: 'ab-x', banners: [{ Idb: ids.a, time: NOW, views: 1 }, { Idb: 999_999, time: NOW, views: 1 }] }, 'banners.1.Idb'],
      [{ batch_id: 'ab-x', banners: [{ Idb: ids.a, time: NOW - 40 * 86_400, views: 1 }] }, 'banners.0.time'],
      [{ batch_id: 'ab-x', banners: [{ Idb: ids.a, time: NOW, views: -1 }] }, 'banners.0.views'],
      [{ batch_id: 'ab-x', banners: [{ Idb: ids.a, time: NOW, clicks: 1, visitor: '' }] }, 'banners.0.visitor'],
      [{ batch_id: 'ab-x', banners: 'many' }, 'banners'],
      [{ batch_id: 'ab-x', banners: [] }, 'events'],
      [{ batch_id: 'ab-x' }, 'events'],
    ];
    for (const [body, field] of bad) {
      const r = await ingest(token, body);
      expect([r.status, r.body.status]).toEqual([422, 'rules']);
      expect(Object.keys(r.body.fields ?? {})).toContain(field);
    }
    expect(await one(ids.a)).toMatchObject({ views: before.views, click: before.click });
    // The refused batch id was not taken: it can be sent again, fixed.
    expect((await ingest(token, { batch_id: 'ab-x', banners: [{ Idb: ids.a, time: NOW, views: 1 }] })).body.result.accepted).toBe(1);
  });

  test('click keys are dropped by the input stream retention once no batch can count them', async () => {
    const svc = t.app.get(InputStreamService);
    expect(await svc.pruneKinds(Date.now())).toBe(0);
    expect(await svc.pruneKinds(Date.now() + 32 * 86_400_000)).toBe(4);
  });

  test('the storage directory is DATA_DIR/storage', () => {
    expect(t.cfg.storage.dir).toBe(join(t.cfg.dataDir, 'storage'));
    expect(existsSync(t.cfg.storage.dir)).toBe(true);
  });

  test('an image two banners show stays until neither shows it', async () => {
    const pic = (await png()).toString('base64');
    const x = (await setAbs(content, { title: 'Shared 1', target: 'https://a.example/', img_data: pic })).body.result.Idb;
    const y = (await setAbs(content, { title: 'Shared 2', target: 'https://a.example/', img_data: pic })).body.result.Idb;
    const img = (await one(x)).img;
    expect((await one(y)).img).toBe(img);
    await setAbs(content, { Idb: x, img_remove: 1 });
    expect((await one(x)).img).toBe('');
    expect((await fetch(t.url + img)).status).toBe(200);
    await setAbs(content, { Idb: y, img_remove: 1 });
    expect((await fetch(t.url + img)).status).toBe(404);
    expect(stored()).not.toContain(img.slice('/storage/'.length));
  });

  test('a legacy image (DATA_DIR/files/<key>, before issue 20) is still served at /files; a new image replaces it and its file goes', async () => {
    const key = `${'c'.repeat(32)}.png`;
    const legacy = await sharp({ create: { width: 12, height: 6, channels: 3, background: '#0a0' } }).png().toBuffer();
    mkdirSync(join(t.cfg.dataDir, 'files'), { recursive: true });
    writeFileSync(join(t.cfg.dataDir, 'files', key), legacy);
    const Idb = (await setAbs(content, { title: 'Legacy', target: 'https://a.example/' })).body.result.Idb;
    await t.app.get<DataSource>(getDataSourceToken()).query('UPDATE banners SET img = ? WHERE Idb = ?', [key, Idb]);
    expect((await one(Idb)).img).toBe(`/files/${key}`);
    const res = await fetch(`${t.url}/files/${key}`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([200, 'image/png', 'nosniff', 'public, max-age=31536000, immutable']);
    expect(Buffer.from(await res.arrayBuffer()).equals(legacy)).toBe(true);
    expect((await fetch(`${t.url}/files/${'d'.repeat(32)}.png`)).status).toBe(404);
    await setAbs(content, { Idb, img_data: (await png()).toString('base64') });
    expect((await one(Idb)).img).toMatch(/^\/storage\/[0-9a-f]{32}$/);
    expect((await fetch(`${t.url}/files/${key}`)).status).toBe(404);
    expect(existsSync(join(t.cfg.dataDir, 'files', key))).toBe(false);
  });
});
