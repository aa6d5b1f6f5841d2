/**
 * Image storage end to end (docs/architecture.md "Storage"; issue 20 "Image storage"; 001 §7
 * network_info.Files.*, "Storage upload") on the real app and database (SQLite, or MariaDB with
 * TEST_DATABASE_URL): roles; real JPEG, PNG, WebP and GIF pictures made here with sharp, checked,
 * re-encoded (EXIF and GPS gone) and stored once per content under their MD5 alias; refusals (a text
 * file called .png, an oversized upload); /storage/<alias> with its headers, HEAD, ETag, 404s and
 * traversal probes; references shared by two codes; getUrlStorageByCode; the REST upload route; and
 * the body-limit gate (a large body is read only for a session that may upload).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { STORAGE_MSG } from '../../src/contracts/storage.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
/** The suite's cap: 2 MB (STORAGE_MAX_MB), so the oversize probes stay small. */
const MAX_MB = 2;

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const b64 = (b: Buffer) => b.toString('base64');

/** A gradient picture of w x h as raw RGB. */
function gradient(w: number, h: number, seed = 0): Buffer {
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) raw.set([((i % w) * 5 + seed) & 255, (Math.floor(i / w) * 7 + seed * 3) & 255, (seed * 11 + 90) & 255], i * 3);
  return raw;
}
const picture = (w: number, h: number, seed = 0) => sharp(gradient(w, h, seed), { raw: { width: w, height: h, channels: 3 } });
/** Noise does not compress: a JPEG of about 1.4 MB (more than BODY_LIMIT 1mb as base64, less than the 2 MB cap). */
function noiseJpeg(): Promise<Buffer> {
  const w = 1400;
  const h = 1000;
  const raw = Buffer.alloc(w * h * 3);
  let x = 12345;
  for (let i = 0; i < raw.length; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; raw[i] = x >> 16; }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
}

const send = (h: string | null, args: Record<string, unknown>) => t.rpc<any>(h, 'network_info.Files.send', args);
const sendOk = async (args: Record<string, unknown>) => {
  const r = await send(admin, args);
  if (r.env.status !== 'ok') throw new Error(JSON.stringify(r.env));
  return (r.env as any).result as any[];
};
const body = (code: string, data: Buffer | string, extra: Record<string, unknown> = {}) =>
  ({ code_in_storage: code, domain: 'books.example', file_name: 'picture.png', file_data: typeof data === 'string' ? data : b64(data), ...extra });

/** Every file under STORAGE_DIR (shards included; temporary files too, so a leftover shows). */
function storedFiles(): string[] {
  const dir = t.cfg.storage.dir;
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const shard of readdirSync(dir)) for (const f of readdirSync(join(dir, shard))) out.push(`${shard}/${f}`);
  return out.sort();
}
const fileOf = (alias: string) => join(t.cfg.storage.dir, alias.slice(0, 2), alias);

/** A GET/HEAD sent as written (fetch would normalise '..' and '%2e%2e' before the server sees them). */
function raw(path: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const u = new URL(t.url);
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A POST that declares its whole body (Content-Length) but sends only the first 64 KB, then waits: it
 * is answered only when the server refuses the body without reading it (else the test times out).
 */
function refusedEarly(hash: string | null, path: string, payload: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const u = new URL(t.url);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    if (hash) headers.User = hash;
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'POST', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, text }); req.destroy(); });
    });
    req.on('error', reject);
    req.write(payload.slice(0, 64 * 1024));
  });
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0', STORAGE_MAX_MB: String(MAX_MB) });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`image storage (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('roles: anonymous 401, below admin 403, for every method and the REST upload', async () => {
    const png = await picture(8, 8).png().toBuffer();
    const calls: [string, unknown][] = [
      ['network_info.Files.send', body('site-a', png)],
      ['network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-a' }],
      ['network_info.Files.remove', { code_in_storage: 'site-a', alias: 'a'.repeat(32) }],
    ];
    for (const [m, a] of calls) {
      expect([m, (await t.rpc(null, m, a)).status]).toEqual([m, 401]);
      for (const h of [content, user]) {
        const r = await t.rpc<any>(h, m, a);
        expect([m, r.status, (r.env as any).code]).toEqual([m, 403, 403]);
      }
    }
    expect((await t.rest(null, 'POST', '/storage/upload', body('site-a', png))).status).toBe(401);
    expect((await t.rest(content, 'POST', '/storage/upload', body('site-a', png))).status).toBe(403);
    expect((await t.rest(user, 'POST', '/storage/upload', body('site-a', png))).status).toBe(403);
    expect(storedFiles()).toEqual([]);
  });

  test('JPEG, PNG, WebP and GIF are stored re-encoded under the MD5 of the stored bytes and served with their type', async () => {
    const kinds: [string, Buffer, string][] = [
      ['jpeg', await picture(64, 36, 1).jpeg().toBuffer(), 'image/jpeg'],
      ['png', await picture(40, 30, 2).png().toBuffer(), 'image/png'],
      ['webp', await picture(32, 32, 3).webp().toBuffer(), 'image/webp'],
      ['gif', await picture(20, 10, 4).gif().toBuffer(), 'image/gif'],
    ];
    for (const [kind, data, type] of kinds) {
      const res = await sendOk(body('site-a', data, { file_name: `x.${kind}` }));
      expect(res).toHaveLength(1);
      const [img] = res;
      const meta = await sharp(data).metadata();
      expect(img).toEqual({ alias: expect.stringMatching(/^[0-9a-f]{32}$/), url: `/storage/${img.alias}`, size: expect.any(Number), width: meta.width, height: meta.height, type });
      const got = await fetch(t.url + img.url);
      expect([kind, got.status, got.headers.get('content-type')]).toEqual([kind, 200, type]);
      const served = Buffer.from(await got.arrayBuffer());
      expect(md5(served)).toBe(img.alias);
      expect(served.length).toBe(img.size);
      expect((await sharp(served).metadata()).format).toBe(kind === 'jpeg' ? 'jpeg' : kind);
      // On disk: the alias, mode 0644, no temporary file left.
      expect((statSync(fileOf(img.alias)).mode & 0o777).toString(8)).toBe('644');
    }
    expect(storedFiles().filter((f) => f.includes('.tmp'))).toEqual([]);
    expect(storedFiles()).toHaveLength(4);
  });

  test('the same picture twice: the same alias, one file, one reference per code', async () => {
    const data = await picture(50, 20, 7).png().toBuffer();
    const before = storedFiles().length;
    const [a] = await sendOk(body('site-b', data, { file_name: 'first.png' }));
    const [b] = await sendOk(body('site-b', data, { file_name: 'second.png' }));
    expect(b.alias).toBe(a.alias);
    expect(storedFiles().length).toBe(before + 1);
    const list = await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-b' });
    expect(list.files.map((f: any) => [f.alias, f.file_name])).toEqual([[a.alias, 'second.png']]);
  });

  test('EXIF and GPS are gone after the re-encoding', async () => {
    const jpeg = await picture(48, 32, 9).jpeg().withExif({
      IFD0: { Copyright: 'SECRET-EXIF-MARK', Artist: 'Someone' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '55/1 45/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '37/1 37/1 0/1' },
    }).toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    expect(jpeg.includes('SECRET-EXIF-MARK')).toBe(true);
    const [img] = await sendOk(body('site-a', Buffer.concat([jpeg, Buffer.from('<script>alert("PAYLOAD-MARK")</script>')]), { file_name: 'gps.jpg' }));
    const served = readFileSync(fileOf(img.alias));
    const meta = await sharp(served).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.format).toBe('jpeg');
    expect(served.includes('SECRET-EXIF-MARK')).toBe(false);
    expect(served.includes('PAYLOAD-MARK')).toBe(false);
  });

  test('refused: a text file called .png, other formats, bad base64, bad fields; nothing stored', async () => {
    const before = storedFiles();
    const pngHead = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const bad: [Record<string, unknown>, string, RegExp][] = [
      [body('site-a', Buffer.from('just some text, renamed to notes.png'), { file_name: 'notes.png' }), 'file_data', /JPEG, PNG, WebP or GIF/],
      [body('site-a', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), { file_name: 'x.svg' }), 'file_data', /JPEG, PNG, WebP or GIF/],
      [body('site-a', await picture(8, 8).tiff().toBuffer()), 'file_data', /JPEG, PNG, WebP or GIF/],
      [body('site-a', Buffer.concat([pngHead, Buffer.from('garbage after a PNG signature')])), 'file_data', /cannot be read/],
      [body('site-a', 'not base64 at all!'), 'file_data', /base64/],
      [body('site-a', ''), 'file_data', /required/],
      [body('bad code/..', await picture(8, 8).png().toBuffer()), 'code_in_storage', /letters, digits/],
      [body('site-a', await picture(8, 8).png().toBuffer(), { alias: 'not-an-alias' }), 'alias', /storage alias/],
      [{ ...body('site-a', await picture(8, 8).png().toBuffer()), domain: undefined }, 'domain', /required/],
    ];
    for (const [args, field, msg] of bad) {
      const r = await send(admin, args);
      expect([field, r.status, r.env.status]).toEqual([field, 200, 'rules']);
      expect((r.env as any).code).toBe(422);
      expect((r.env as any).fields[field]).toMatch(msg);
    }
    // The same through the REST route: 422 naming the field.
    const rest = await t.rest<any>(admin, 'POST', '/storage/upload', body('site-a', Buffer.from('text'), { file_name: 'a.png' }));
    expect([rest.status, Object.keys(rest.body.fields)]).toEqual([422, ['file_data']]);
    expect(storedFiles()).toEqual(before);
  });

  test('oversize: over STORAGE_MAX_MB decoded is 422, a body over the upload limit 413 with a clear message; never a stack, nothing stored', async () => {
    const before = storedFiles();
    // Just over the cap: the body fits the upload limit, the storage refuses the size.
    const over = await send(admin, body('site-a', Buffer.alloc(MAX_MB * 1024 * 1024 + 2048, 1)));
    expect([(over.env as any).code, over.env.status]).toEqual([422, 'rules']);
    expect((over.env as any).fields.file_data).toBe(`at most ${MAX_MB} MB`);
    // Far over: the body parser refuses it by its length.
    const huge = await t.rest<any>(admin, 'POST', '', { methods: ['network_info.Files.send'], args: [body('site-a', Buffer.alloc(MAX_MB * 1024 * 1024 * 1.2, 1))] });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ status: 'http', code: 413, message: expect.stringMatching(new RegExp(`an upload is at most ${MAX_MB} MB \\(STORAGE_MAX_MB\\)`)) });
    expect(JSON.stringify(huge.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
    expect(storedFiles()).toEqual(before);
  });

  test('/storage/<alias>: type, nosniff, CSP sandbox, immutable cache, ETag; HEAD; 304; unknown alias and probes 404', async () => {
    const [img] = await sendOk(body('site-c', await picture(30, 20, 12).png().toBuffer()));
    const get = await raw(`/storage/${img.alias}`);
    expect(get.status).toBe(200);
    expect(get.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(img.size),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${img.alias}"`,
    });
    expect(md5(get.body)).toBe(img.alias);
    const head = await raw(`/storage/${img.alias}`, 'HEAD');
    expect([head.status, head.headers['content-type'], head.headers['content-length'], head.body.length]).toEqual([200, 'image/png', String(img.size), 0]);
    const again = await raw(`/storage/${img.alias}`, 'GET', { 'If-None-Match': `"${img.alias}"` });
    expect([again.status, again.body.length]).toEqual([304, 0]);

    const secret = readFileSync(join(t.cfg.dataDir, 'secret.key'), 'utf8').trim();
    const probes = [
      `/storage/${'0'.repeat(32)}`, // an alias nobody stored
      '/storage/', '/storage', `/storage/${img.alias}x`, `/storage/${img.alias.toUpperCase()}`, `/storage/${img.alias}.png`,
      `/storage/${img.alias.slice(0, 2)}`, `/storage/${img.alias.slice(0, 2)}/`, `/storage/${img.alias.slice(0, 2)}/${img.alias}`,
      '/storage/..%2fsecret.key', '/storage/%2e%2e/secret.key', '/storage/../secret.key', '/storage/%2e%2e%2f%2e%2e%2fsecret.key',
      '/storage/secret.key', `/storage/${img.alias}/..`, `/storage/${img.alias}%00`,
    ];
    for (const p of probes) {
      const r = await raw(p);
      expect([p, r.status]).toEqual([p, 404]);
      const text = r.body.toString('latin1');
      expect(text).not.toMatch(/<html/i);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(img.alias.slice(2, 20) + '\n');
    }
    for (const m of ['POST', 'PUT', 'DELETE']) expect([m, (await raw(`/storage/${img.alias}`, m)).status]).toEqual([m, 404]);
    // Still there after the probes.
    expect((await raw(`/storage/${img.alias}`)).status).toBe(200);
  });

  test('references: an image two codes share stays until both drop it; remove of an unknown alias is 404', async () => {
    const data = await picture(33, 22, 21).png().toBuffer();
    const [a] = await sendOk(body('shared-1', data));
    const [b] = await sendOk(body('shared-2', data));
    expect(b.alias).toBe(a.alias);
    const first = await t.ok(admin, 'network_info.Files.remove', { code_in_storage: 'shared-1', alias: a.alias });
    expect(first).toEqual({ alias: a.alias, code_in_storage: 'shared-1', file_removed: false, message: STORAGE_MSG.deleteOk });
    expect((await fetch(t.url + a.url)).status).toBe(200);
    expect((await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'shared-1' })).files).toEqual([]);
    // Again for the same code: it holds no such image now.
    const twice = await t.rpc<any>(admin, 'network_info.Files.remove', { code_in_storage: 'shared-1', alias: a.alias });
    expect([(twice.env as any).code, (twice.env as any).message]).toEqual([404, STORAGE_MSG.notFound]);
    const last = await t.ok(admin, 'network_info.Files.remove', { code_in_storage: 'shared-2', alias: a.alias });
    expect(last.file_removed).toBe(true);
    expect((await fetch(t.url + a.url)).status).toBe(404);
    expect(existsSync(fileOf(a.alias))).toBe(false);
    const unknown = await t.rpc<any>(admin, 'network_info.Files.remove', { code_in_storage: 'shared-2', alias: 'f'.repeat(32) });
    expect([(unknown.env as any).code, (unknown.env as any).message]).toEqual([404, STORAGE_MSG.notFound]);
  });

  test('send with alias replaces that image of the code (the old reference dropped after the new one is stored)', async () => {
    const [old] = await sendOk(body('site-r', await picture(20, 20, 31).png().toBuffer(), { file_name: 'old.png' }));
    const [kept] = await sendOk(body('site-r-other', await picture(20, 20, 31).png().toBuffer()));
    expect(kept.alias).toBe(old.alias);
    const [next] = await sendOk(body('site-r', await picture(20, 20, 32).png().toBuffer(), { file_name: 'new.png', alias: old.alias, server: 'storage-1' }));
    expect(next.alias).not.toBe(old.alias);
    const list = await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-r' });
    expect(list.files.map((f: any) => f.alias)).toEqual([next.alias]);
    // The other code still holds the old image: its file stays.
    expect((await fetch(t.url + old.url)).status).toBe(200);
    // Replacing an image with the same picture keeps it.
    const [same] = await sendOk(body('site-r', await picture(20, 20, 32).png().toBuffer(), { alias: next.alias }));
    expect(same.alias).toBe(next.alias);
    expect((await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-r' })).files.map((f: any) => f.alias)).toEqual([next.alias]);
    expect((await fetch(t.url + next.url)).status).toBe(200);
  });

  test('getUrlStorageByCode: the base URL and the code\'s images, newest first, paged', async () => {
    const aliases: string[] = [];
    for (let i = 0; i < 5; i++) aliases.push((await sendOk(body('site-p', await picture(10 + i, 10, 40 + i).png().toBuffer(), { file_name: `p${i}.png` })))[0].alias);
    const all = await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-p' });
    expect(all).toMatchObject({ code_in_storage: 'site-p', url: '/storage', count: 5, page: 1, limit: 50 });
    expect(all.files.map((f: any) => f.alias)).toEqual([...aliases].reverse());
    expect(all.files[0]).toEqual({
      alias: aliases[4], url: `/storage/${aliases[4]}`, size: expect.any(Number), width: 14, height: 10, type: 'image/png',
      domain: 'books.example', file_name: 'p4.png', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const p2 = await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-p', p_: 2, limit: 2 });
    expect([p2.count, p2.page, p2.limit, p2.files.map((f: any) => f.alias)]).toEqual([5, 2, 2, [aliases[2], aliases[1]]]);
    expect((await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'nobody' }))).toMatchObject({ files: [], count: 0 });
    const bad = await t.rpc<any>(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'site-p', limit: 500 });
    expect(Object.keys((bad.env as any).fields)).toEqual(['limit']);
  });

  test('REST POST /api/storage/upload: the same body and answer as Files.send', async () => {
    const data = await picture(16, 9, 50).jpeg().toBuffer();
    const r = await t.rest<any>(admin, 'POST', '/storage/upload', body('site-rest', `data:image/jpeg;base64,${b64(data)}`, { file_name: 'rest.jpg' }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', result: [{ alias: expect.stringMatching(/^[0-9a-f]{32}$/), url: expect.stringMatching(/^\/storage\//), size: expect.any(Number), width: 16, height: 9, type: 'image/jpeg' }] });
    const viaRpc = await sendOk(body('site-rest', data));
    expect(viaRpc[0].alias).toBe(r.body.result[0].alias);
  });

  test('body-limit gate: a large body is read only for a session that may upload on that route', async () => {
    const big = await noiseJpeg();
    expect(big.length).toBeGreaterThan(1024 * 1024); // past BODY_LIMIT once base64
    expect(big.length).toBeLessThan(MAX_MB * 1024 * 1024);
    // Admin on the RPC root and the REST route, a content editor on the banners' route: taken.
    const [img] = await sendOk(body('site-big', big, { file_name: 'noise.jpg' }));
    expect(img).toMatchObject({ width: 1400, height: 1000, type: 'image/jpeg' });
    expect((await t.rest<any>(admin, 'POST', '/storage/upload', body('site-big', big))).status).toBe(200);
    const banner = await t.rest<any>(content, 'POST', '/abs/set_abs', { title: 'Big', target: 'https://a.example/', img_data: b64(big) });
    expect(banner.body.status).toBe('ok');
    // Without a session, with a role that may not upload there, or a session that ended: BODY_LIMIT (413).
    const cases: [string | null, string, unknown][] = [
      [null, '', { methods: ['network_info.Files.send'], args: [body('site-big', big)] }],
      [null, '/storage/upload', body('site-big', big)],
      [null, '/abs/set_abs', { title: 'x', target: 'https://a.example/', img_data: b64(big) }],
      [user, '', { methods: ['network_info.Files.send'], args: [body('site-big', big)] }],
      [content, '/storage/upload', body('site-big', big)],
      [user, '/abs/set_abs', { title: 'x', target: 'https://a.example/', img_data: b64(big) }],
      ['not-a-session', '/storage/upload', body('site-big', big)],
    ];
    for (const [h, path, payload] of cases) {
      const r = await refusedEarly(h, `/api${path}`, JSON.stringify(payload));
      expect([h, path, r.status, JSON.parse(r.text)]).toEqual([h, path, 413, { status: 'http', code: 413, message: 'Request body is larger than 1mb' }]);
    }
    // Any other route keeps BODY_LIMIT for everyone, admins included.
    const other = await t.rest<any>(admin, 'POST', '/user/save', { data: b64(big) });
    expect([other.status, other.body.message]).toEqual([413, 'Request body is larger than 1mb']);
    expect(storedFiles().filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});
