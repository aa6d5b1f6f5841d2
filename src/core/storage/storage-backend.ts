import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { isStorageAlias } from '../../contracts/storage.js';

/**
 * Where stored images live (docs/architecture.md "Storage"): the few operations StorageService needs,
 * so that an S3-compatible store can take the local disk's place (an object per alias: PUT, HEAD, GET
 * with a Range, DELETE). Names are always aliases (32 lower-case hex characters); an alias names
 * exactly one content (the MD5 of the bytes), so putting an alias twice stores the same bytes.
 */
export interface StorageBackend {
  /** A short name for logs and docs ('local disk /path'). */
  readonly label: string;
  /** Stores `data` under `alias`, atomically: a reader sees the whole file or none. */
  put(alias: string, data: Buffer): Promise<void>;
  /** The stored object's size, or null when there is none. */
  stat(alias: string): Promise<{ size: number } | null>;
  /** The stored bytes (inclusive `range` when given); the stream errors when the object is gone. */
  openRead(alias: string, range?: { start: number; end: number }): Readable;
  /** Removes the object; answers whether there was one. */
  remove(alias: string): Promise<boolean>;
}

/** Refuses anything but an alias before it becomes part of a path or a key. */
function checkAlias(alias: string): string {
  if (!isStorageAlias(alias)) throw new Error(`not a storage alias: ${JSON.stringify(String(alias).slice(0, 40))}`);
  return alias;
}

/**
 * The local-disk backend: `<dir>/<first 2 hex>/<alias>` (256 sub-directories, so no directory grows
 * past what a file system lists comfortably), files 0644, directories 0755. A write goes to a temporary
 * file in the same directory, is flushed, and is renamed over the final name, so a reader (or a crash)
 * never sees half a file. Nothing here lists a directory.
 */
export class LocalDiskBackend implements StorageBackend {
  readonly label: string;

  constructor(readonly dir: string) {
    this.label = `local disk ${dir}`;
  }

  pathOf(alias: string): string {
    checkAlias(alias);
    return join(this.dir, alias.slice(0, 2), alias);
  }

  async put(alias: string, data: Buffer): Promise<void> {
    const file = this.pathOf(alias);
    const current = await this.stat(alias);
    // Content-addressed: a file of this alias and size holds these bytes already.
    if (current && current.size === data.length) return;
    const shard = join(this.dir, alias.slice(0, 2));
    await mkdir(shard, { recursive: true, mode: 0o755 });
    const tmp = join(shard, `.${alias}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const fh = await open(tmp, 'wx', 0o644);
      try {
        await fh.writeFile(data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await chmod(tmp, 0o644); // whatever the umask says
      await rename(tmp, file);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  async stat(alias: string): Promise<{ size: number } | null> {
    try {
      const st = await stat(this.pathOf(alias));
      return st.isFile() ? { size: st.size } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw err;
    }
  }

  openRead(alias: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(alias), range ? { start: range.start, end: range.end } : {});
  }

  async remove(alias: string): Promise<boolean> {
    try {
      await unlink(this.pathOf(alias));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }
}
