import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NextFunction, Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type OutputInfo } from 'sharp';
import type { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { isStorageAlias, STORAGE_PATH, storageUrl, type StoredImage } from '../../contracts/storage.js';
import { invalid } from '../errors.js';
import { LocalDiskBackend, type StorageBackend } from './storage-backend.js';
import { StorageFileEntity } from './storage-file.entity.js';

/**
 * THE storage service of the console (docs/architecture.md "Storage"): images uploaded by the areas
 * (banners, the network's site images of network_info) are checked, re-encoded and kept in one
 * content-addressed store behind a backend interface (StorageBackend; the local disk under STORAGE_DIR
 * now), named by their alias, the MD5 hex of the stored bytes, and served read-only at /storage/<alias>.
 *
 * What it stores is always its own re-encoding: the upload's type is checked by its content (magic
 * bytes, then sharp must read the same format), only JPEG, PNG, WebP and GIF are taken, and sharp
 * writes the picture again, which drops metadata (EXIF, GPS, ICC comments) and anything appended to or
 * embedded in the original file.
 *
 * References: table storage_files holds one row per (alias, owner code). `put` stores the file, then
 * adds the reference; `remove(alias, code)` drops the reference and deletes the file only when no
 * reference is left, so an image two codes (or two uploads) share is never removed from under the other.
 *
 * Legacy: banners stored before issue 20 keep files named `<32 hex>.<ext>` under DATA_DIR/files; they
 * are still served at /files/<key> (read-only: nothing new is written there).
 */

/** The URL prefix of the legacy banner files (DATA_DIR/files; outside /api: no session, read-only). */
export const FILES_PATH = '/files';
/**
 * Injection token of the storage backend: unset, the local disk under STORAGE_DIR. Another backend
 * (an S3-compatible store) is provided under this token by StorageModule.
 */
export const STORAGE_BACKEND = Symbol('STORAGE_BACKEND');
/** The largest picture taken (width × height), against decompression bombs. */
export const UPLOAD_MAX_PIXELS = 25_000_000;

export type StoredType = 'jpeg' | 'png' | 'webp' | 'gif';
const MIME: Record<StoredType, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };
const LEGACY_TYPE: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };
/** A legacy file's key (banners before issue 20): what /files serves. */
const LEGACY_KEY = /^[0-9a-f]{32}\.(jpg|png|webp|gif)$/;
/** Content types of served aliases kept in memory (an alias never changes its bytes). */
const TYPE_CACHE_MAX = 10_000;

/** Who refers to a stored image: the owner code and what the uploader said about it. */
export interface StorageRef {
  /** The owner: a site's code_in_storage, or an area of the console ('abs' for banners). */
  code: string;
  domain?: string;
  /** The uploader's file name, for display only. */
  fileName?: string;
  uid?: number | null;
}

/** The type an upload's first bytes say it is, or null. */
export function sniffImage(b: Buffer): StoredType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return 'gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * The bytes of a base64 upload: a `data:image/...;base64,` URL or the bare base64 (white space
 * ignored). Longer than `maxBytes` decoded: refused before decoding.
 */
export function decodeBase64(value: string, field: string, maxBytes: number): Buffer {
  const m = /^data:[\w.+/-]*;base64,/i.exec(value);
  let b64 = m ? value.slice(m[0].length) : value;
  if (/\s/.test(b64)) b64 = b64.replace(/\s+/g, '');
  if ((b64.length * 3) / 4 > maxBytes + 3) throw invalid(`${field}: the file is larger than ${mb(maxBytes)}`, { [field]: `at most ${mb(maxBytes)}` });
  const notBase64 = () => invalid(`${field}: not base64`, { [field]: 'not base64' });
  if (!b64 || b64.length % 4 === 1) throw notBase64();
  // Node's decoder skips what is not base64; the text is base64 exactly when the bytes encode back to
  // it (padding added). Native both ways: a JavaScript loop over the letters took 70-130 ms for 5 MB,
  // and a regex over the whole string once overflowed the stack (a 500 in CI).
  const padded = b64.length % 4 ? b64 + '='.repeat(4 - (b64.length % 4)) : b64;
  const bytes = Buffer.from(padded, 'base64');
  if (bytes.length === 0 || bytes.toString('base64') !== padded) throw notBase64();
  return bytes;
}

/** The checked and re-encoded picture, before it is stored. */
interface Encoded { data: Buffer; alias: string; type: StoredType; width: number; height: number }

@Injectable()
export class StorageService {
  private readonly log = new Logger('Storage');
  readonly backend: StorageBackend;
  /** The largest upload taken, decoded (STORAGE_MAX_MB). */
  readonly maxBytes: number;
  /** The base URL of the answers' `url` ('' = this origin; STORAGE_PUBLIC_URL). */
  readonly publicUrl: string;
  /** Where the legacy banner files are (DATA_DIR/files). */
  readonly legacyDir: string;
  private readonly files: Repository<StorageFileEntity>;
  /** Per-alias queue: a put and a remove of one alias never interleave on this instance. */
  private readonly locks = new Map<string, Promise<void>>();
  private readonly types = new Map<string, string>();

  constructor(@Inject(APP_CONFIG) cfg: AppConfig, @InjectDataSource() db: DataSource, @Optional() @Inject(STORAGE_BACKEND) backend?: StorageBackend) {
    this.backend = backend ?? new LocalDiskBackend(cfg.storage.dir);
    this.maxBytes = cfg.storage.maxBytes;
    this.publicUrl = cfg.storage.publicUrl;
    this.legacyDir = join(cfg.dataDir, 'files');
    this.files = db.getRepository(StorageFileEntity);
  }

  static isLegacyKey(key: unknown): key is string {
    return typeof key === 'string' && LEGACY_KEY.test(key);
  }

  /**
   * The console-relative URL of what a record keeps: `/storage/<alias>` for an alias, `/files/<key>`
   * for a legacy key, '' for anything else (nothing, or a value that is neither).
   */
  static urlOf(ref: string | null | undefined): string {
    if (isStorageAlias(ref)) return storageUrl(ref);
    return StorageService.isLegacyKey(ref) ? `${FILES_PATH}/${ref}` : '';
  }

  /** The URL the network's sites use for an alias: under STORAGE_PUBLIC_URL, or this origin. */
  publicUrlOf(alias: string): string {
    return storageUrl(alias, this.publicUrl);
  }

  /** The base URL the images are served under (`${base}/<alias>`). */
  get publicBase(): string {
    return `${this.publicUrl}${STORAGE_PATH}`;
  }

  private async locked<T>(alias: string, fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const prev = this.locks.get(alias) ?? Promise.resolve();
    const mine = prev.then(() => gate);
    this.locks.set(alias, mine);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(alias) === mine) this.locks.delete(alias);
    }
  }

  /**
   * Checks and re-encodes an upload. A file that is empty, larger than STORAGE_MAX_MB, not a JPEG,
   * PNG, WebP or GIF by its content, undecodable, or larger than UPLOAD_MAX_PIXELS is refused with
   * 422 naming `field`.
   */
  async encode(data: Buffer, field = 'file'): Promise<Encoded> {
    const refuse = (why: string) => invalid(`${field}: ${why}`, { [field]: why });
    if (data.length === 0) throw refuse('the file is empty');
    if (data.length > this.maxBytes) throw refuse(`the file is larger than ${mb(this.maxBytes)}`);
    const sniffed = sniffImage(data);
    if (!sniffed) throw refuse('not a JPEG, PNG, WebP or GIF image');
    const animated = sniffed === 'gif' || sniffed === 'webp';
    let out: Buffer;
    let info: OutputInfo;
    try {
      const img = sharp(data, { limitInputPixels: UPLOAD_MAX_PIXELS, failOn: 'error', animated });
      const meta = await img.metadata();
      if (meta.format !== sniffed) throw refuse('the file\'s content does not match its type');
      const pipeline = img.autoOrient();
      // libjpeg-turbo with optimised Huffman tables, not mozjpeg: mozjpeg took 2 s for a 5 MP picture
      // (bench/README.md "Storage") for files about 10% smaller.
      const enc = sniffed === 'jpeg' ? pipeline.jpeg({ quality: 88, optimiseCoding: true })
        : sniffed === 'png' ? pipeline.png({ compressionLevel: 9 })
        : sniffed === 'webp' ? pipeline.webp({ quality: 88 })
        : pipeline.gif();
      ({ data: out, info } = await enc.toBuffer({ resolveWithObject: true }));
    } catch (err) {
      if ((err as { httpStatus?: number }).httpStatus) throw err;
      const msg = String((err as Error)?.message ?? err);
      throw refuse(/pixel limit/i.test(msg) ? `the picture is larger than ${UPLOAD_MAX_PIXELS / 1_000_000} megapixels` : 'the image cannot be read');
    }
    const alias = createHash('md5').update(out).digest('hex');
    return { data: out, alias, type: sniffed, width: info.width, height: info.pageHeight ?? info.height };
  }

  /**
   * Checks, re-encodes and stores an image for `ref.code`; answers what was stored. The file is
   * written first (atomically), then the reference row: a failed row leaves no reference, and a file
   * this call wrote that no row refers to is removed again. The same picture stored twice is one file;
   * for one code, one row (its domain, name, uploader and time are the latest upload's).
   */
  async put(data: Buffer, ref: StorageRef, field = 'file'): Promise<StoredImage> {
    return (await this.putWith(data, ref, field, async () => undefined)).image;
  }

  /**
   * put(), then `within(image)` (typically the owner's own row that keeps the alias) while no other
   * put or remove of this alias runs on this instance, so an owner's "is the alias still used?" check
   * in remove() never misses a record being saved. When `within` fails, what this call added is taken
   * back: the reference when it did not exist before, and the file when no reference is left.
   */
  async putWith<T>(data: Buffer, ref: StorageRef, field: string, within: (image: StoredImage) => Promise<T>): Promise<{ image: StoredImage; result: T }> {
    const img = await this.encode(data, field);
    const type = MIME[img.type];
    const image: StoredImage = { alias: img.alias, url: this.publicUrlOf(img.alias), size: img.data.length, width: img.width, height: img.height, type };
    const row = {
      alias: img.alias, code: ref.code, domain: ref.domain ?? '', file_name: (ref.fileName ?? '').slice(0, 190), type,
      size: img.data.length, width: img.width, height: img.height, uid: ref.uid ?? null, created_at: new Date(),
    };
    const result = await this.locked(img.alias, async () => {
      const hadFile = (await this.backend.stat(img.alias)) !== null;
      const hadRow = (await this.files.countBy({ alias: img.alias, code: ref.code })) > 0;
      await this.backend.put(img.alias, img.data);
      const undo = async (dropRow: boolean) => {
        if (dropRow) await this.files.delete({ alias: img.alias, code: ref.code });
        if ((await this.files.countBy({ alias: img.alias })) === 0 && (!hadFile || dropRow)) await this.backend.remove(img.alias);
      };
      try {
        await this.files.upsert(row, ['alias', 'code']);
      } catch (err) {
        await undo(false).catch((e: unknown) => this.log.warn(`undo of ${img.alias}: ${(e as Error).message}`));
        throw err;
      }
      // Another instance may have removed the file between the write and the row (its last reference
      // went at that moment): the row is ours now, so the file must be there.
      if (!(await this.backend.stat(img.alias))) await this.backend.put(img.alias, img.data);
      try {
        return await within(image);
      } catch (err) {
        if (!hadRow) await undo(true).catch((e: unknown) => this.log.warn(`undo of ${img.alias}: ${(e as Error).message}`));
        throw err;
      }
    });
    this.types.delete(img.alias);
    return { image, result };
  }

  /** put() of a base64 upload (a data URL or bare base64), the JSON API's way of carrying a file. */
  async putBase64(value: string, ref: StorageRef, field = 'file'): Promise<StoredImage> {
    return this.put(decodeBase64(value, field, this.maxBytes), ref, field);
  }

  /** putWith() of a base64 upload. */
  async putBase64With<T>(value: string, ref: StorageRef, field: string, within: (image: StoredImage) => Promise<T>): Promise<{ image: StoredImage; result: T }> {
    return this.putWith(decodeBase64(value, field, this.maxBytes), ref, field, within);
  }

  /**
   * Drops the reference of `code` to `alias`; the file goes when it was the last one. `stillUsed`
   * (asked while no put or remove of this alias runs on this instance): the owner's own check that
   * another of its records still shows the image, in which case nothing is dropped. Answers whether
   * the reference was dropped and whether the file was removed.
   */
  async remove(alias: string, code: string, stillUsed?: () => Promise<boolean>): Promise<{ removed: boolean; fileRemoved: boolean }> {
    if (!isStorageAlias(alias)) return { removed: false, fileRemoved: false };
    return this.locked(alias, async () => {
      if (stillUsed && (await stillUsed())) return { removed: false, fileRemoved: false };
      const r = await this.files.delete({ alias, code });
      if (!r.affected) return { removed: false, fileRemoved: false };
      if ((await this.files.countBy({ alias })) > 0) return { removed: true, fileRemoved: false };
      this.types.delete(alias);
      return { removed: true, fileRemoved: await this.backend.remove(alias) };
    });
  }

  /** The references to an alias (every code that uses it). */
  references(alias: string): Promise<StorageFileEntity[]> {
    return this.files.find({ where: { alias }, order: { Id: 'ASC' } });
  }

  /** The reference of one code to an alias, or null. */
  reference(alias: string, code: string): Promise<StorageFileEntity | null> {
    return this.files.findOneBy({ alias, code });
  }

  /** A code's images, newest first. */
  async list(code: string, page: number, limit: number): Promise<{ rows: StorageFileEntity[]; count: number }> {
    const [rows, count] = await this.files.findAndCount({ where: { code }, order: { created_at: 'DESC', Id: 'DESC' }, skip: (page - 1) * limit, take: limit });
    return { rows, count };
  }

  async exists(alias: string): Promise<boolean> {
    return isStorageAlias(alias) && (await this.backend.stat(alias)) !== null;
  }

  /** Removes a legacy banner file (`<32 hex>.<ext>`: one file per upload, so only its banner used it). */
  async removeLegacy(key: string | null | undefined): Promise<void> {
    if (!StorageService.isLegacyKey(key)) return;
    try {
      await unlink(join(this.legacyDir, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`cannot remove ${key}: ${(err as Error).message}`);
    }
  }

  /** The content type of a stored alias, read from its first bytes (cached: an alias never changes), or null. */
  private async typeOf(alias: string): Promise<string | null> {
    const known = this.types.get(alias);
    if (known) return known;
    const head = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      this.backend.openRead(alias, { start: 0, end: 15 })
        .on('data', (c: Buffer) => parts.push(c))
        .on('end', () => resolve(Buffer.concat(parts)))
        .on('error', reject);
    });
    const t = sniffImage(head);
    if (!t) return null;
    if (this.types.size >= TYPE_CACHE_MAX) this.types.delete(this.types.keys().next().value!);
    this.types.set(alias, MIME[t]);
    return MIME[t];
  }

  /**
   * The read-only image server mounted on STORAGE_PATH by bootstrap.ts: GET and HEAD of `/<alias>`
   * only (the alias pattern leaves no room for `..`, `/` or another name: no traversal, no listing),
   * with the type the stored bytes say, `nosniff`, a CSP that runs nothing, a year's immutable cache
   * and the alias as ETag (an alias never changes its bytes). Anything else is a plain 404.
   */
  serve() {
    return (req: Request, res: Response, _next: NextFunction) => {
      const alias = req.path.replace(/^\//, '');
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !isStorageAlias(alias)) return notFound(res);
      (async () => {
        const st = await this.backend.stat(alias);
        const type = st ? await this.typeOf(alias) : null;
        if (!st || !type) return notFound(res);
        const etag = `"${alias}"`;
        imageHeaders(res, type);
        res.setHeader('ETag', etag);
        const inm = String(req.headers['if-none-match'] ?? '');
        if (inm && (inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) return void res.status(304).end();
        res.setHeader('Content-Length', String(st.size));
        if (req.method === 'HEAD') return void res.end();
        this.backend.openRead(alias).on('error', () => res.destroy()).pipe(res);
      })().catch((err: unknown) => {
        this.log.warn(`serving ${alias}: ${(err as Error)?.message ?? err}`);
        if (!res.headersSent) notFound(res);
        else res.destroy();
      });
    };
  }

  /**
   * The legacy banner files under DATA_DIR/files, mounted on FILES_PATH: GET and HEAD of `/<key>` only,
   * with the type of the key's extension, the same headers as /storage; anything else is a plain 404.
   */
  serveLegacy() {
    return (req: Request, res: Response, _next: NextFunction) => {
      const key = req.path.replace(/^\//, '');
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !StorageService.isLegacyKey(key)) return notFound(res);
      const file = join(this.legacyDir, key);
      stat(file).then(
        (st) => {
          if (!st.isFile()) return notFound(res);
          imageHeaders(res, LEGACY_TYPE[key.split('.')[1]]);
          res.setHeader('Content-Length', String(st.size));
          if (req.method === 'HEAD') return void res.end();
          createReadStream(file).on('error', () => res.destroy()).pipe(res);
        },
        () => notFound(res),
      );
    };
  }
}

function notFound(res: Response) {
  res.status(404).type('text/plain').setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  res.end('Not found');
}

function imageHeaders(res: Response, type: string) {
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
}
