import { Inject, Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type OutputInfo } from 'sharp';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { invalid } from '../errors.js';

/**
 * THE storage service of the console (docs/architecture.md "Storage"): images uploaded by the areas
 * (banners now, the network's site images later) kept as files under DATA_DIR/files and served
 * read-only under FILES_PATH. What it stores is always its own re-encoding: the upload's type is
 * checked by its content (magic bytes, then sharp must read the same format), only JPEG, PNG, WebP and
 * GIF are taken, and sharp writes the picture again, which drops metadata (EXIF, GPS, ICC comments)
 * and anything appended to or embedded in the original file.
 *
 * Files are named by a random id (`<32 hex>.<ext>`), never by the uploader's name: one file per
 * upload, so removing the file a record replaces can never take another record's image.
 */

/** The URL prefix the files are served under (outside /api: no session, read-only). */
export const FILES_PATH = '/files';
/** The largest upload taken, decoded (the JSON body carries it as base64: 4/3 of this). */
export const UPLOAD_MAX_BYTES = 3 * 1024 * 1024;
/** The largest picture taken (width × height), against decompression bombs. */
export const UPLOAD_MAX_PIXELS = 25_000_000;
/**
 * The JSON body limit of the routes that carry an upload (base64 of UPLOAD_MAX_BYTES and the record's
 * other fields); every other route keeps BODY_LIMIT. bootstrap.ts mounts a parser with this limit on
 * UPLOAD_ROUTES: an area whose save carries an image adds its route there.
 */
export const UPLOAD_BODY_LIMIT = `${Math.ceil((UPLOAD_MAX_BYTES * 4) / 3 / 1024) + 64}kb`;
export const UPLOAD_ROUTES = ['/api/abs/set_abs'];

export type StoredType = 'jpeg' | 'png' | 'webp' | 'gif';
const EXT: Record<StoredType, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif' };
const CONTENT_TYPE: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };
/** A stored file's key: what records keep and what FILES_PATH serves. */
const KEY = /^[0-9a-f]{32}\.(jpg|png|webp|gif)$/;

export interface StoredFile {
  /** `<32 hex>.<ext>`: what a record keeps. */
  key: string;
  /** Where the browser and the sites read it: /files/<key>. */
  url: string;
  type: StoredType;
  /** Bytes stored (after re-encoding). */
  size: number;
  width: number;
  height: number;
}

/** The type an upload's first bytes say it is, or null. */
export function sniffImage(b: Buffer): StoredType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return 'gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

/**
 * Base64 letters, then at most two '=': a loop, not /^[A-Za-z0-9+/]+={0,2}$/, which overflowed the
 * stack on a 4 MB upload (seen in CI: a 500 instead of the 422).
 */
function isBase64(b64: string): boolean {
  let end = b64.length;
  while (end > 0 && b64.charCodeAt(end - 1) === 61 /* = */ && b64.length - end < 2) end--;
  if (end === 0) return false;
  for (let i = 0; i < end; i++) {
    const c = b64.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/** The bytes of a base64 upload: a `data:image/...;base64,` URL or the bare base64 (white space ignored). */
export function decodeBase64(value: string, field: string): Buffer {
  const m = /^data:[\w.+/-]*;base64,/i.exec(value);
  const b64 = (m ? value.slice(m[0].length) : value).replace(/\s+/g, '');
  if ((b64.length * 3) / 4 > UPLOAD_MAX_BYTES + 3) throw invalid(`${field}: the file is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB`, { [field]: `at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MB` });
  if (!b64 || !isBase64(b64) || b64.length % 4 === 1) throw invalid(`${field}: not base64`, { [field]: 'not base64' });
  return Buffer.from(b64, 'base64');
}

@Injectable()
export class StorageService {
  private readonly log = new Logger('Storage');
  readonly dir: string;

  constructor(@Inject(APP_CONFIG) cfg: AppConfig) {
    this.dir = join(cfg.dataDir, 'files');
  }

  static isKey(key: unknown): key is string {
    return typeof key === 'string' && KEY.test(key);
  }

  static urlOf(key: string | null | undefined): string {
    return key && StorageService.isKey(key) ? `${FILES_PATH}/${key}` : '';
  }

  /**
   * Checks, re-encodes and stores an image; answers what was stored. A file that is not a JPEG, PNG,
   * WebP or GIF by its content, is larger than UPLOAD_MAX_BYTES, cannot be decoded or has more than
   * UPLOAD_MAX_PIXELS pixels is refused with 422 naming `field`.
   */
  async putImage(data: Buffer, field = 'file'): Promise<StoredFile> {
    const refuse = (why: string) => invalid(`${field}: ${why}`, { [field]: why });
    if (data.length === 0) throw refuse('the file is empty');
    if (data.length > UPLOAD_MAX_BYTES) throw refuse(`the file is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB`);
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
      const enc = sniffed === 'jpeg' ? pipeline.jpeg({ quality: 88, mozjpeg: true })
        : sniffed === 'png' ? pipeline.png({ compressionLevel: 9 })
        : sniffed === 'webp' ? pipeline.webp({ quality: 88 })
        : pipeline.gif();
      ({ data: out, info } = await enc.toBuffer({ resolveWithObject: true }));
    } catch (err) {
      if ((err as { httpStatus?: number }).httpStatus) throw err;
      const msg = String((err as Error)?.message ?? err);
      throw refuse(/pixel limit/i.test(msg) ? `the picture is larger than ${UPLOAD_MAX_PIXELS / 1_000_000} megapixels` : 'the image cannot be read');
    }
    const key = `${randomBytes(16).toString('hex')}.${EXT[sniffed]}`;
    await mkdir(this.dir, { recursive: true, mode: 0o755 });
    const tmp = join(this.dir, `.${key}.tmp`);
    await writeFile(tmp, out, { mode: 0o644 });
    await rename(tmp, join(this.dir, key));
    return { key, url: StorageService.urlOf(key), type: sniffed, size: out.length, width: info.width, height: info.pageHeight ?? info.height };
  }

  /** putImage of a base64 upload (a data URL or bare base64), the JSON API's way of carrying a file. */
  async putBase64Image(value: string, field = 'file'): Promise<StoredFile> {
    return this.putImage(decodeBase64(value, field), field);
  }

  /** Removes a stored file (a record's old image); a missing file or a key that is not one is ignored. */
  async remove(key: string | null | undefined): Promise<void> {
    if (!StorageService.isKey(key)) return;
    try {
      await unlink(join(this.dir, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`cannot remove ${key}: ${(err as Error).message}`);
    }
  }

  async exists(key: string): Promise<boolean> {
    if (!StorageService.isKey(key)) return false;
    try { return (await stat(join(this.dir, key))).isFile(); } catch { return false; }
  }

  /**
   * The read-only file server mounted on FILES_PATH by bootstrap.ts: GET and HEAD of `/<key>` only
   * (the key's pattern leaves no room for `..`, `/` or another name: no traversal, no listing), with
   * the type of the stored format, `nosniff`, a CSP that runs nothing, and a year's cache (a key never
   * changes its bytes). Anything else is a plain 404.
   */
  serve() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      const key = req.path.replace(/^\//, '');
      const notFound = () => {
        res.status(404).type('text/plain').setHeader('X-Content-Type-Options', 'nosniff');
        res.end('Not found');
      };
      if (!StorageService.isKey(key)) return notFound();
      const file = join(this.dir, key);
      stat(file).then(
        (st) => {
          if (!st.isFile()) return notFound();
          res.setHeader('Content-Type', CONTENT_TYPE[key.split('.')[1]]);
          res.setHeader('Content-Length', String(st.size));
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
          res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
          if (req.method === 'HEAD') return void res.end();
          createReadStream(file).on('error', () => res.destroy()).pipe(res);
        },
        () => notFound(),
      );
    };
  }
}
