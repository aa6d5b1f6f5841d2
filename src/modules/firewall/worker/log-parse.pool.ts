/**
 * A small pool of worker threads that parse access-log chunks off the event loop (docs/firewall.md).
 *
 *   const pool = new LogParsePool();
 *   let state = initialParseState(savedOffset);
 *   for await (const chunk of read()) {
 *     const r = await pool.parse(chunk, state); // chunk is transferred: do not use it afterwards
 *     store(r.batch.toEntries({ proxy_addr }));  // or r.batch fast paths (IpCounter, columns)
 *     state = r.state;                         // persist r.state.offset: a line boundary
 *   }
 *
 * Calls for one stream must be sequential (each needs the previous state); calls for different
 * streams run in parallel, one per worker, the rest queued. State travels with each call, so any
 * worker can take any call, and a worker that dies fails only its own call.
 *
 * Where the worker script is: `log-parse.worker.js` beside this module when compiled, else the .ts
 * through a transpiling hook (src/core/worker-script.ts).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { messageOf, resolveWorkerScript } from '../../../core/worker-script.js';
import { finishChunk, LogBatch, type LogParseOptions, type LogParseState } from './log-parser.js';
import type { LogParseReply, LogParseRequest } from './log-parse.worker.js';

export interface LogParsePoolOptions {
  /** Worker threads (default: cores - 1, at least 1, at most 4). */
  size?: number;
  /** Parser options for every call. */
  parse?: LogParseOptions;
  /** The worker script (tests); default: beside this module, see above. */
  workerUrl?: URL;
}

export interface LogParseResult {
  batch: LogBatch;
  state: LogParseState;
}

interface Task {
  req: LogParseRequest;
  transfer: ArrayBuffer[];
  resolve: (r: LogParseResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
}




/** The worker's entry: the compiled .js beside this module, else the .ts through a transpiling hook. */
export function resolveLogParseWorker(base: string = import.meta.url): URL {
  return resolveWorkerScript('log-parse.worker', base);
}


/** A view that owns its whole ArrayBuffer can be transferred; anything else (pool slices, shared memory) is copied. */
function transferable(chunk: Uint8Array): Uint8Array {
  const ab = chunk.buffer;
  if (Object.prototype.toString.call(ab) === '[object ArrayBuffer]' && chunk.byteOffset === 0 && chunk.byteLength === ab.byteLength) return chunk;
  const copy = new Uint8Array(chunk.byteLength);
  copy.set(chunk);
  return copy;
}

export class LogParsePool {
  readonly size: number;
  private readonly opts: LogParseOptions;
  private readonly workerUrl: URL;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(opts: LogParsePoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(4, availableParallelism() - 1));
    this.opts = opts.parse ?? {};
    this.workerUrl = opts.workerUrl ?? resolveLogParseWorker();
  }

  /**
   * Parses `state.carry + chunk` in a worker. The chunk's memory is transferred to the worker (the
   * caller's view is detached) and comes back as the batch's bytes; a chunk that does not own its whole
   * ArrayBuffer is copied first.
   */
  parse(chunk: Uint8Array, state: LogParseState | null = null): Promise<LogParseResult> {
    const c = transferable(chunk);
    return this.submit({ id: this.nextId++, op: 'parse', chunk: c, state, opts: this.opts }, c.byteLength ? [c.buffer as ArrayBuffer] : []);
  }

  /** End of a file that will not grow: its unfinished last line, parsed here (at most one line). */
  async finish(state: LogParseState): Promise<LogParseResult> {
    return finishChunk(state, this.opts);
  }

  /** Workers started, busy, and calls waiting. */
  stats(): { workers: number; busy: number; queued: number } {
    return { workers: this.slots.length, busy: this.slots.filter((s) => s.task).length, queued: this.queue.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error('log parse pool closed'));
    const slots = this.slots.splice(0);
    for (const s of slots) s.task?.reject(new Error('log parse pool closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Nest calls this on shutdown when the pool is a provider. */
  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  private submit(req: LogParseRequest, transfer: ArrayBuffer[]): Promise<LogParseResult> {
    if (this.closed) return Promise.reject(new Error('log parse pool closed'));
    return new Promise<LogParseResult>((resolve, reject) => {
      this.queue.push({ req, transfer, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch() {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.task);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      try {
        slot.worker.postMessage(task.req, task.transfer);
      } catch (e) {
        slot.task = null;
        slot.worker.unref();
        task.reject(new Error(`log parse pool: ${messageOf(e)}`));
      }
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerUrl, { name: 'log-parse' });
    const slot: Slot = { worker, task: null };
    worker.unref();
    worker.on('message', (m: LogParseReply) => {
      const task = slot.task;
      if (!task || task.req.id !== m.id) return;
      slot.task = null;
      worker.unref();
      if (m.ok) task.resolve({ batch: LogBatch.from(m.data), state: m.state });
      else task.reject(new Error(`log parse failed: ${m.error}`));
      this.dispatch();
    });
    const fail = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      slot.task?.reject(err);
      slot.task = null;
      void worker.terminate();
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (e) => fail(new Error(`log parse worker failed: ${messageOf(e)}`)));
    worker.on('exit', (code) => fail(new Error(`log parse worker exited (code ${code})`)));
    this.slots.push(slot);
    return slot;
  }
}
