/**
 * The agent's file access, confined to the configured directories (docs/agent.md "Confinement"):
 * a file is named `name` (one directory) or `label/name` (several); only regular files directly inside
 * a configured directory are listed, read or deleted. The directories are real paths (resolved at
 * start), so no symlink sits between them and the file; the file itself is opened with O_NOFOLLOW and
 * checked with fstat, and deleted only after lstat says it is a regular file.
 */
import { constants, promises as fsp, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isSafeLogName, type LogFile } from '../contracts/logs.js';
import type { AgentConfig } from './config.js';

export class AgentHttpError extends Error {
  constructor(readonly code: number, message: string) { super(message); }
}

export interface Resolved { name: string; path: string }

/** The real location of a file name, or a 400 (a name that tries to leave) / 404 (no such directory). */
export function resolveName(cfg: AgentConfig, name: string): Resolved {
  if (!isSafeLogName(name) || name.includes('\0') || name.includes('\\') || name.includes('%')) throw new AgentHttpError(400, 'Bad file name');
  const parts = name.split('/');
  let dir: AgentConfig['dirs'][number] | undefined;
  let file: string;
  if (parts.length === 1) {
    if (cfg.dirs.length !== 1) throw new AgentHttpError(400, 'Bad file name: name the directory (dir/file)');
    dir = cfg.dirs[0];
    file = parts[0];
  } else {
    if (cfg.dirs.length === 1) throw new AgentHttpError(400, 'Bad file name');
    dir = cfg.dirs.find((d) => d.label === parts[0]);
    file = parts[1];
  }
  if (!dir) throw new AgentHttpError(404, 'File not found');
  return { name, path: join(dir.path, file) };
}

/**
 * The error stream paired with an output log (docs/agent.md "Output and error"), after pm2's naming:
 * `{app}-out.log` / `{app}-error.log` (also `{app}-out-{n}.log` / `{app}-error-{n}.log`) and the
 * `.out` / `.err` pair. An error file is its own error stream. null: the name has no error counterpart.
 */
export function errorCounterpart(name: string): string | null {
  const slash = name.lastIndexOf('/');
  const dir = name.slice(0, slash + 1);
  const base = name.slice(slash + 1);
  if (/-error(-\d+)?\.log$/.test(base) || /\.err$/.test(base)) return name;
  const pm2 = /^(.+)-out(-\d+)?\.log$/.exec(base);
  if (pm2) return `${dir}${pm2[1]}-error${pm2[2] ?? ''}.log`;
  const out = /^(.+)\.out$/.exec(base);
  if (out) return `${dir}${out[1]}.err`;
  return null;
}

/** Regular files directly in the configured directories (symlinks and subdirectories are left out). */
export async function listFiles(cfg: AgentConfig): Promise<LogFile[]> {
  const out: LogFile[] = [];
  for (const d of cfg.dirs) {
    let entries: string[];
    try { entries = await fsp.readdir(d.path); } catch { continue; }
    for (const e of entries) {
      const name = cfg.dirs.length === 1 ? e : `${d.label}/${e}`;
      if (!isSafeLogName(name)) continue;
      let st: Stats;
      try { st = await fsp.lstat(join(d.path, e)); } catch { continue; }
      if (!st.isFile()) continue;
      out.push({ name, size: st.size, mtime: Math.round(st.mtimeMs) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Opens a confined file for reading without following a symlink; 404 when it is not a regular file. */
export async function openConfined(r: Resolved): Promise<fsp.FileHandle> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(r.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new AgentHttpError(403, 'Refused: a symbolic link');
    throw new AgentHttpError(404, 'File not found');
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new AgentHttpError(404, 'File not found');
  }
  return fh;
}

const CHUNK = 64 * 1024;
/** At most this much is read from the end, whatever the line lengths (bounded memory). */
export const TAIL_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The last `n` lines of an open file, read backwards from its end in 64 KiB chunks: only as much of
 * the file as those lines take is ever read (at most TAIL_MAX_BYTES). A trailing newline ends the last line.
 */
export async function tailLines(fh: fsp.FileHandle, n: number): Promise<{ lines: string[]; bytesRead: number; size: number }> {
  const { size } = await fh.stat();
  const chunks: Buffer[] = [];
  let pos = size;
  let newlines = 0;
  let read = 0;
  let skipTrailing = true;
  while (pos > 0 && read < TAIL_MAX_BYTES) {
    const len = Math.min(CHUNK, pos, TAIL_MAX_BYTES - read);
    pos -= len;
    const buf = Buffer.allocUnsafe(len);
    const { bytesRead } = await fh.read(buf, 0, len, pos);
    const b = buf.subarray(0, bytesRead);
    read += bytesRead;
    chunks.unshift(b);
    for (let i = b.length - 1; i >= 0; i--) {
      if (b[i] !== 10) { skipTrailing = false; continue; }
      if (skipTrailing && pos + i === size - 1) continue; // the file's final newline ends a line, it starts none
      newlines++;
    }
    if (newlines >= n) break;
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  let lines = text.split('\n');
  // The first piece may be a partial line when reading stopped early; drop it then.
  if (pos > 0 && lines.length > n) lines = lines.slice(lines.length - n);
  else if (pos > 0 && lines.length) lines = lines.slice(1);
  else if (lines.length > n) lines = lines.slice(lines.length - n);
  if (lines.length === 1 && lines[0] === '' && size === 0) lines = [];
  return { lines: lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)), bytesRead: read, size };
}

/** Deletes a confined regular file (a symlink or anything else is refused). */
export async function deleteConfined(r: Resolved): Promise<void> {
  let st: Stats;
  try { st = await fsp.lstat(r.path); } catch { throw new AgentHttpError(404, 'File not found'); }
  if (st.isSymbolicLink()) throw new AgentHttpError(403, 'Refused: a symbolic link');
  if (!st.isFile()) throw new AgentHttpError(404, 'File not found');
  await fsp.unlink(r.path);
}
