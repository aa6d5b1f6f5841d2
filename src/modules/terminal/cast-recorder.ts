import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

/** The header line of an asciicast v2 file (https://docs.asciinema.org/manual/asciicast/v2/). */
export interface CastHeader {
  version: 2;
  width: number;
  height: number;
  /** Unix time (seconds) of the start. */
  timestamp: number;
  title?: string;
  env?: Record<string, string>;
}

/** How long events are gathered before one write (fewer, larger writes; never a synchronous one). */
const FLUSH_MS = 50;
/** Gathered text that is written at once, without waiting for the timer. */
const FLUSH_BYTES = 64 * 1024;

/**
 * Writes one shell session as asciicast v2: a JSON header line, then one JSON array per event,
 * `[seconds since start, code, data]` with code "o" (output), "i" (input, when keystrokes are
 * recorded) or "r" (resize, data "COLSxROWS").
 *
 * Writes never block the event loop: events are gathered in memory and handed to an fs WriteStream
 * (asynchronous) every 50 ms or 64 KB; `congested` tells the caller when the stream's own buffer is
 * over its high-water mark, so the terminal pauses the SSH stream until the disk catches up. Output
 * past `maxBytes` is not recorded (one marker event says so; `truncated` is set).
 */
export class CastRecorder {
  private readonly out: WriteStream;
  private readonly t0 = process.hrtime.bigint();
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private closed = false;
  private failed: Error | null = null;
  /** Bytes handed to the file so far (header included). */
  bytes = 0;
  truncated = false;

  constructor(readonly path: string, header: CastHeader, private readonly maxBytes: number) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.out = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: 256 * 1024 });
    this.out.on('error', (err) => { this.failed = err; });
    this.push(JSON.stringify(header) + '\n', true);
  }

  private get elapsed(): number {
    return Math.round(Number(process.hrtime.bigint() - this.t0) / 1e3) / 1e6;
  }

  output(data: string) {
    this.event('o', data);
  }

  input(data: string) {
    this.event('i', data);
  }

  resize(cols: number, rows: number) {
    this.event('r', `${cols}x${rows}`);
  }

  /** True while the file's write buffer is full: the caller should hold its source back. */
  get congested(): boolean {
    return !this.closed && this.out.writableNeedDrain;
  }

  /** The write error, when the file could not be written (the session goes on unrecorded). */
  get error(): Error | null {
    return this.failed;
  }

  /** Resolves once the file's buffer has drained (at once when it is not congested). */
  drained(): Promise<void> {
    if (!this.congested) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { this.out.off('drain', done); this.out.off('close', done); resolve(); };
      this.out.once('drain', done);
      this.out.once('close', done);
    });
  }

  private event(code: 'o' | 'i' | 'r', data: string) {
    if (this.closed || this.failed) return;
    if (this.truncated) return;
    const line = JSON.stringify([this.elapsed, code, data]) + '\n';
    if (this.bytes + this.pendingBytes + line.length > this.maxBytes) {
      this.truncated = true;
      this.push(JSON.stringify([this.elapsed, 'o', '\r\n[recording stopped: size limit reached]\r\n']) + '\n', true);
      return;
    }
    this.push(line, false);
  }

  private push(line: string, now: boolean) {
    this.pending.push(line);
    this.pendingBytes += Buffer.byteLength(line);
    if (now || this.pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  private flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length || this.failed) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.bytes += this.pendingBytes;
    this.pendingBytes = 0;
    this.out.write(chunk);
  }

  /** Writes what is left and closes the file; resolves with its size. Never rejects. */
  close(): Promise<number> {
    if (this.closed) return Promise.resolve(this.bytes);
    this.flush();
    this.closed = true;
    return new Promise((resolve) => {
      if (this.out.destroyed) return resolve(this.bytes);
      this.out.end(() => resolve(this.bytes));
      this.out.once('error', () => resolve(this.bytes));
    });
  }
}
