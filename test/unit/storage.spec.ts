/**
 * The storage's pieces without HTTP (docs/architecture.md "Storage"): the content sniffer and base64
 * reader; the local-disk backend (atomic write, mode 0644, shard path, no other name than an alias);
 * and StorageService on a real SQLite database and a real directory: references and file lifetime,
 * what a failed row or a failed owner write leaves (nothing), and the per-alias queue that keeps a put
 * from being taken apart by a remove of the same image.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { StorageFiles1807000000000 } from '../../src/core/database/migrations/1807000000000-storage-files.js';
import { LocalDiskBackend } from '../../src/core/storage/storage-backend.js';
import { StorageFileEntity } from '../../src/core/storage/storage-file.entity.js';
import { decodeBase64, sniffImage, StorageService } from '../../src/core/storage/storage.service.js';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'storage-spec-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const alias = (s: string) => createHash('md5').update(s).digest('hex');
const png = (seed: number) => sharp({ create: { width: 10 + seed, height: 6, channels: 3, background: { r: seed * 20, g: 100, b: 50 } } }).png().toBuffer();
const turns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };

describe('sniffImage and decodeBase64', () => {
  test('types by their first bytes, not their names', async () => {
    expect(sniffImage(await png(1))).toBe('png');
    expect(sniffImage(await sharp(await png(1)).jpeg().toBuffer())).toBe('jpeg');
    expect(sniffImage(await sharp(await png(1)).webp().toBuffer())).toBe('webp');
    expect(sniffImage(await sharp(await png(1)).gif().toBuffer())).toBe('gif');
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImage(Buffer.from('RIFF1234WAVE'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });

  test('a data URL or bare base64 (white space ignored); too long or not base64 refused naming the field', () => {
    expect(decodeBase64('data:image/png;base64,aGVsbG8=', 'f', 100).toString()).toBe('hello');
    expect(decodeBase64('aGVs\nbG8=', 'f', 100).toString()).toBe('hello');
    expect(() => decodeBase64('A'.repeat(200), 'f', 100)).toThrow(/f: the file is larger than/);
    expect(() => decodeBase64('not base64!', 'f', 100)).toThrow(/f: not base64/);
    expect(() => decodeBase64('', 'f', 100)).toThrow(/not base64/);
    // A 4 MB string: the check is a loop (a regex once overflowed the stack here).
    expect(decodeBase64('QUFB'.repeat(1024 * 1024), 'f', 4 * 1024 * 1024).length).toBe(3 * 1024 * 1024);
  });
});

describe('LocalDiskBackend', () => {
  test('atomic put under <2 hex>/<alias>, 0644, no temporary file left; stat, read, remove', async () => {
    const dir = tmp();
    const b = new LocalDiskBackend(dir);
    const a = alias('one');
    expect(await b.stat(a)).toBeNull();
    await b.put(a, Buffer.from('hello world'));
    await b.put(a, Buffer.from('hello world')); // the same alias again: harmless
    expect(readdirSync(dir)).toEqual([a.slice(0, 2)]);
    expect(readdirSync(join(dir, a.slice(0, 2)))).toEqual([a]);
    expect((statSync(join(dir, a.slice(0, 2), a)).mode & 0o777).toString(8)).toBe('644');
    expect(await b.stat(a)).toEqual({ size: 11 });
    const read = (range?: { start: number; end: number }) => new Promise<string>((resolve, reject) => {
      let s = '';
      b.openRead(a, range).on('data', (c) => { s += c.toString(); }).on('end', () => resolve(s)).on('error', reject);
    });
    expect(await read()).toBe('hello world');
    expect(await read({ start: 0, end: 4 })).toBe('hello');
    expect(await b.remove(a)).toBe(true);
    expect(await b.remove(a)).toBe(false);
    expect(await b.stat(a)).toBeNull();
  });

  test('refuses any name but an alias before it becomes a path', async () => {
    const b = new LocalDiskBackend(tmp());
    for (const bad of ['../secret.key', `${alias('x')}/..`, alias('x').toUpperCase(), `${alias('x')}.png`, '']) {
      await expect(b.put(bad, Buffer.from('x'))).rejects.toThrow(/not a storage alias/);
      await expect(b.stat(bad)).rejects.toThrow(/not a storage alias/);
      expect(() => b.openRead(bad)).toThrow(/not a storage alias/);
      await expect(b.remove(bad)).rejects.toThrow(/not a storage alias/);
    }
  });
});

describe('StorageService on SQLite and a real directory', () => {
  let ds: DataSource;
  let svc: StorageService;
  let backend: GatedBackend;

  /** The real local disk, with a gate a test can close on `remove` (to hold a remove half-way). */
  class GatedBackend extends LocalDiskBackend {
    removeGate: Promise<void> | null = null;
    removeReached: () => void = () => undefined;
    calls: string[] = [];
    override async put(a: string, data: Buffer) { this.calls.push(`put ${a}`); return super.put(a, data); }
    override async stat(a: string) { this.calls.push(`stat ${a}`); return super.stat(a); }
    override async remove(a: string) {
      this.calls.push(`remove ${a}`);
      if (this.removeGate) { this.removeReached(); await this.removeGate; }
      return super.remove(a);
    }
  }

  const open = async () => {
    const d = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [StorageFileEntity], migrations: [StorageFiles1807000000000], migrationsRun: true });
    await d.initialize();
    return d;
  };

  beforeAll(async () => {
    const dataDir = tmp();
    const cfg = loadConfig({ DATA_DIR: dataDir, STORAGE_MAX_MB: '1' });
    ds = await open();
    backend = new GatedBackend(cfg.storage.dir);
    svc = new StorageService(cfg, ds, backend);
  });
  afterAll(async () => { await ds?.destroy(); });

  const rows = (a: string) => ds.getRepository(StorageFileEntity).find({ where: { alias: a }, order: { code: 'ASC' } });

  test('one file per content, one row per (alias, code); the file goes with its last reference', async () => {
    const data = await png(1);
    const x = await svc.put(data, { code: 'a', domain: 'a.example', fileName: 'a.png', uid: 1 });
    const y = await svc.put(data, { code: 'b', fileName: 'b.png' });
    const again = await svc.put(data, { code: 'a', fileName: 'renamed.png' });
    expect(y.alias).toBe(x.alias);
    expect(again.alias).toBe(x.alias);
    expect((await rows(x.alias)).map((r) => [r.code, r.file_name])).toEqual([['a', 'renamed.png'], ['b', 'b.png']]);
    expect(await svc.remove(x.alias, 'a')).toEqual({ removed: true, fileRemoved: false });
    expect(await svc.exists(x.alias)).toBe(true);
    expect(await svc.remove(x.alias, 'a')).toEqual({ removed: false, fileRemoved: false });
    // The owner says another of its records still shows it: nothing dropped.
    expect(await svc.remove(x.alias, 'b', async () => true)).toEqual({ removed: false, fileRemoved: false });
    expect(await svc.remove(x.alias, 'b', async () => false)).toEqual({ removed: true, fileRemoved: true });
    expect(await svc.exists(x.alias)).toBe(false);
    expect(await rows(x.alias)).toEqual([]);
  });

  test('a failed owner write takes back what the put added (and only that)', async () => {
    const data = await png(2);
    await expect(svc.putWith(data, { code: 'c' }, 'img', async () => { throw new Error('owner row failed'); })).rejects.toThrow('owner row failed');
    const a = (await svc.encode(data)).alias;
    expect(await rows(a)).toEqual([]);
    expect(await svc.exists(a)).toBe(false);
    // With a reference there before, the reference and the file stay.
    await svc.put(data, { code: 'c' });
    await expect(svc.putWith(data, { code: 'c' }, 'img', async () => { throw new Error('again'); })).rejects.toThrow('again');
    expect((await rows(a)).map((r) => r.code)).toEqual(['c']);
    expect(await svc.exists(a)).toBe(true);
    // Another code's new reference goes, the first code's stays.
    await expect(svc.putWith(data, { code: 'd' }, 'img', async () => { throw new Error('d failed'); })).rejects.toThrow('d failed');
    expect((await rows(a)).map((r) => r.code)).toEqual(['c']);
    expect(await svc.exists(a)).toBe(true);
  });

  test('a row that cannot be written leaves no reference and no file this call wrote', async () => {
    const d2 = await open();
    const cfg = loadConfig({ DATA_DIR: tmp() });
    const s2 = new StorageService(cfg, d2);
    await d2.query('DROP TABLE storage_files');
    await expect(s2.put(await png(3), { code: 'x' })).rejects.toThrow();
    expect(existsSync(cfg.storage.dir) ? readdirSync(cfg.storage.dir).flatMap((sub) => readdirSync(join(cfg.storage.dir, sub))) : []).toEqual([]);
    await d2.destroy();
  });

  test('a put of an image waits while a remove of the same image is half-way (same instance): the new reference keeps its file', async () => {
    const data = await png(4);
    const a = (await svc.put(data, { code: 'old' })).alias;
    let release!: () => void;
    backend.removeGate = new Promise<void>((r) => { release = r; });
    const reached = new Promise<void>((r) => { backend.removeReached = r; });
    // The last reference goes: the remove holds at the backend's delete.
    const removing = svc.remove(a, 'old');
    await reached;
    backend.calls = [];
    let putDone = false;
    // Known when the put has its encoded picture (the step before it queues for the alias).
    const encode = svc.encode.bind(svc);
    const encoded = new Promise<void>((resolve) => {
      svc.encode = async (...args: Parameters<StorageService['encode']>) => { const r = await encode(...args); resolve(); return r; };
    });
    const putting = svc.put(data, { code: 'new' }).then((r) => { putDone = true; return r; });
    await encoded;
    svc.encode = encode;
    await turns(50);
    // Queued behind the remove: it has not touched the backend or the table.
    expect(putDone).toBe(false);
    expect(backend.calls).toEqual([]);
    expect((await rows(a)).map((r) => r.code)).toEqual([]);
    backend.removeGate = null;
    release();
    expect(await removing).toEqual({ removed: true, fileRemoved: true });
    expect((await putting).alias).toBe(a);
    expect((await rows(a)).map((r) => r.code)).toEqual(['new']);
    expect(await svc.exists(a)).toBe(true);
  });

  test('limits: empty, over STORAGE_MAX_MB, not an image, undecodable', async () => {
    await expect(svc.put(Buffer.alloc(0), { code: 'x' }, 'f')).rejects.toMatchObject({ httpStatus: 422, fields: { f: 'the file is empty' } });
    await expect(svc.put(Buffer.alloc(1024 * 1024 + 1, 0xff), { code: 'x' }, 'f')).rejects.toMatchObject({ httpStatus: 422, fields: { f: 'the file is larger than 1 MB' } });
    await expect(svc.put(Buffer.from('hello, a text file'), { code: 'x' }, 'f')).rejects.toMatchObject({ fields: { f: 'not a JPEG, PNG, WebP or GIF image' } });
    await expect(svc.put(Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2, 3]), { code: 'x' }, 'f')).rejects.toMatchObject({ fields: { f: 'the image cannot be read' } });
  });

  test('urlOf: /storage/<alias>, /files/<legacy key>, else nothing', () => {
    const a = alias('u');
    expect(StorageService.urlOf(a)).toBe(`/storage/${a}`);
    expect(StorageService.urlOf(`${a}.png`)).toBe(`/files/${a}.png`);
    expect(StorageService.urlOf('../x')).toBe('');
    expect(StorageService.urlOf(null)).toBe('');
  });
});
