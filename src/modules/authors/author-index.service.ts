import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import { messageOf, resolveWorkerScript } from '../../core/worker-script.js';
import type { Candidate } from './author-names.js';
import type { IndexReply, IndexRequest } from './author-index.worker.js';

/** Authors read per query while building (each page goes to the index thread as it is read). */
const LOAD_PAGE = 5000;
/** How long a checked fingerprint is trusted before the table is asked again (ms). */
const RECHECK_MS = 3000;
/** After start, the index is built in the background once this has passed, so the first operator on /author/marge finds it ready. */
const WARM_AFTER_MS = 5000;

/** A request without its id (the id is given when it is sent). */
type Request = IndexRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;
type Reply = Extract<IndexReply, { ok: true }>;

interface Built {
  /** The invalidate() generation it was begun in. */
  generation: number;
  /** Ids with at least one candidate by name (before 'not same' decisions). */
  doubles: number[];
  fingerprint: string;
  /** The thread that holds this index (a new thread starts empty: the index is built again). */
  worker: Worker;
}

/**
 * The duplicate-candidate index over all authors (docs/authors.md "Candidates"), held by a worker
 * thread (author-index.worker.ts) so that building it over a few hundred thousand names, the full pass
 * and the garbage they make never stall the event loop; queries go to the thread as messages. It is
 * rebuilt when the authors table changes: this service's own writes invalidate it at once; other
 * writers (import, another instance) are noticed through a fingerprint (row count, highest id, total
 * name length) checked at most every RECHECK_MS. A build reads the table in pages of LOAD_PAGE and
 * hands each to the thread; callers that need the index meanwhile wait for that one build. A thread
 * that dies fails its pending calls; the next call starts another and rebuilds.
 */
@Injectable()
export class AuthorIndexService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('AuthorIndex');
  private warm?: ReturnType<typeof setTimeout>;
  private stopping = false;
  private built: Built | null = null;
  /** The build under way, with the generation it was begun in. */
  private building: { generation: number; promise: Promise<Built> } | null = null;
  private checkedAt = 0;
  /** Bumped by every invalidate(): an index (or a build) of an older generation is not served. */
  private generation = 0;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  onApplicationBootstrap(): void {
    this.warm = setTimeout(() => {
      this.get().catch((err) => { if (!this.stopping) this.log.warn(`building the candidate index failed: ${(err as Error).message}`); });
    }, WARM_AFTER_MS);
    this.warm.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.warm);
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  // ---------------------------------------------------------------------------------------------
  // The thread

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(resolveWorkerScript('author-index.worker', import.meta.url), { name: 'author-index' });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: IndexReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (!this.pending.size) worker.unref();
      if (m.ok) p.resolve(m);
      else p.reject(new Error(`author index: ${m.error}`));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', (e) => fail(new Error(`author index thread failed: ${messageOf(e)}`)));
    worker.on('exit', (code) => fail(new Error(`author index thread exited (code ${code})`)));
    return worker;
  }

  private call(worker: Worker, req: Request): Promise<Reply> {
    if (this.stopping) return Promise.reject(new Error('The console is stopping'));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...req, id } as IndexRequest);
    });
  }

  /** Forget the index: the next read rebuilds it (after a write of names or of the authors list). */
  invalidate(): void {
    this.generation++;
  }

  private async fingerprint(): Promise<string> {
    const [r] = await this.db.query('SELECT COUNT(*) AS n, MAX(Id_author) AS m, SUM(LENGTH(a_fio)) AS l FROM authors');
    return `${Number(r.n)}|${Number(r.m ?? 0)}|${Number(r.l ?? 0)}`;
  }

  /**
   * The current index (built or rebuilt as needed): the ids with candidates, and the thread that holds it.
   * A build begun before the last invalidate() read the table before that write: a caller waits for it to
   * end and starts another, so a read that follows a write always sees it.
   */
  async get(): Promise<Built> {
    for (;;) {
      const job = this.building;
      if (job) {
        if (job.generation === this.generation) return job.promise;
        await job.promise.catch(() => undefined);
        continue;
      }
      const built = this.built;
      const current = built !== null && built.generation === this.generation && built.worker === this.worker;
      if (current && Date.now() - this.checkedAt < RECHECK_MS) return built;
      const generation = this.generation;
      const promise = this.refresh(current ? built : null, generation).finally(() => {
        if (this.building?.promise === promise) this.building = null;
      });
      this.building = { generation, promise };
      return promise;
    }
  }

  /** The index of `generation`: `kept` (current but not checked lately) when the table's fingerprint has not moved, else built anew. */
  private async refresh(kept: Built | null, generation: number): Promise<Built> {
    const fp = await this.fingerprint();
    this.checkedAt = Date.now();
    if (kept && kept.worker === this.worker && kept.fingerprint === fp) return kept;
    this.built = await this.build(fp, generation);
    return this.built;
  }

  private async build(fingerprint: string, generation: number): Promise<Built> {
    const worker = this.thread();
    await this.call(worker, { op: 'begin' });
    let after = 0;
    for (;;) {
      const rows: { Id_author: number; a_fio: string }[] = await this.db.query('SELECT Id_author, a_fio FROM authors WHERE Id_author > ? ORDER BY Id_author LIMIT ?', [after, LOAD_PAGE]);
      if (rows.length) await this.call(worker, { op: 'add', ids: rows.map((r) => Number(r.Id_author)), names: rows.map((r) => String(r.a_fio ?? '')) });
      if (rows.length < LOAD_PAGE) break;
      after = Number(rows[rows.length - 1].Id_author);
    }
    const { doubles } = await this.call(worker, { op: 'finish' });
    return { generation, doubles: doubles!, fingerprint, worker };
  }

  /** One author's candidates, without the ids in `skip`. */
  async candidatesOf(Id_author: number, skip?: ReadonlySet<number>): Promise<Candidate[]> {
    const built = await this.get();
    return (await this.call(built.worker, { op: 'candidates', Id_author, skip: [...(skip ?? [])] })).candidates!;
  }

  /** Of `items` ([id, ids it must not be matched with]), the ids that still have a candidate by name. */
  async stillDouble(items: Array<[number, number[]]>): Promise<number[]> {
    if (!items.length) return [];
    const built = await this.get();
    return (await this.call(built.worker, { op: 'stillDouble', items })).ids!;
  }
}
