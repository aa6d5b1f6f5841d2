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
 * Where the worker script is: compiled, the pool runs `log-parse.worker.js` beside its own
 * `log-parse.pool.js` (dist/src/modules/firewall/). Run from the TypeScript sources (ts-jest), there is
 * no .js beside it: the worker then starts from `log-parse.worker.ts` through a small module hook that
 * transpiles TypeScript with the `typescript` package (a dev dependency, present wherever the sources
 * run); the code that runs is the same.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
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

const HOOKS = (tsPath: string) => `
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const ts = createRequire(${JSON.stringify(pathToFileURL(tsPath).href)})(${JSON.stringify(tsPath)});
const local = (s) => s.startsWith('./') || s.startsWith('../');
export async function resolve(specifier, context, next) {
  if (local(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const js = new URL(specifier, context.parentURL);
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (!existsSync(fileURLToPath(js)) && existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, inlineSourceMap: true, inlineSources: true },
  });
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
`;

/** The message of an error from any realm (worker errors are not `instanceof Error` under jest's VM). */
const messageOf = (e: unknown) => (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e));

const dataUrl = (code: string) => new URL('data:text/javascript,' + encodeURIComponent(code));

/** The worker's entry: the compiled .js beside this module, else the .ts through a transpiling hook. */
export function resolveLogParseWorker(base: string = import.meta.url): URL {
  return resolveWorkerScript('log-parse.worker', base);
}

/**
 * A worker script `name` (without extension) beside `base` (default: this module's folder), found as
 * the log parse worker's is (see the header): the compiled .js, else the .ts through a transpiling hook.
 */
export function resolveWorkerScript(name: string, base: string = import.meta.url): URL {
  const js = new URL(`./${name}.js`, base);
  if (base.startsWith('file:') && existsSync(fileURLToPath(js))) return js;
  const ts = new URL(`./${name}.ts`, base);
  if (!base.startsWith('file:') || !existsSync(fileURLToPath(ts))) throw new Error(`${name} not found beside ${base} (run npm run build)`);
  let tsPath: string;
  try {
    tsPath = createRequire(base).resolve('typescript');
  } catch {
    throw new Error(`${name}: running from TypeScript sources needs the typescript package; run the compiled dist/ instead`);
  }
  const hooks = dataUrl(HOOKS(tsPath));
  return dataUrl(`import { register } from 'node:module';\nregister(${JSON.stringify(hooks.href)});\nawait import(${JSON.stringify(ts.href)});\n`);
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
