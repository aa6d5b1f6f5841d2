import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { CandidateIndex, type Candidate } from './author-names.js';

/** Authors read per query while building; the event loop gets a turn after every ADD_CHUNK names indexed. */
const LOAD_PAGE = 5000;
const ADD_CHUNK = 1000;
/** How long a checked fingerprint is trusted before the table is asked again (ms). */
const RECHECK_MS = 3000;
/** After start, the index is built in the background once this has passed, so the first operator on /author/marge finds it ready. */
const WARM_AFTER_MS = 5000;

interface Built {
  index: CandidateIndex;
  /** Ids with at least one candidate by name (before 'not same' decisions). */
  doubles: number[];
  fingerprint: string;
}

/**
 * The duplicate-candidate index over all authors (docs/authors.md "Candidates"), kept in memory and
 * rebuilt when the authors table changes: this service's own writes invalidate it at once; other
 * writers (import, another instance) are noticed through a fingerprint (row count, highest id, total
 * name length) checked at most every RECHECK_MS. A build reads the table in pages of LOAD_PAGE and
 * yields the event loop after every ADD_CHUNK names and every few thousand pair checks, so requests keep being served;
 * concurrent callers share one build.
 */
@Injectable()
export class AuthorIndexService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('AuthorIndex');
  private warm?: ReturnType<typeof setTimeout>;
  private stopping = false;
  private built: Built | null = null;
  private building: Promise<Built> | null = null;
  private checkedAt = 0;
  private dirty = true;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  onApplicationBootstrap(): void {
    this.warm = setTimeout(() => {
      this.get().catch((err) => { if (!this.stopping) this.log.warn(`building the candidate index failed: ${(err as Error).message}`); });
    }, WARM_AFTER_MS);
    this.warm.unref();
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    clearTimeout(this.warm);
  }

  /** Forget the index: the next read rebuilds it (after a write of names or of the authors list). */
  invalidate(): void {
    this.dirty = true;
  }

  private async fingerprint(): Promise<string> {
    const [r] = await this.db.query('SELECT COUNT(*) AS n, MAX(Id_author) AS m, SUM(LENGTH(a_fio)) AS l FROM authors');
    return `${Number(r.n)}|${Number(r.m ?? 0)}|${Number(r.l ?? 0)}`;
  }

  /** The current index (built or rebuilt as needed). */
  async get(): Promise<Built> {
    if (this.built && !this.dirty && Date.now() - this.checkedAt < RECHECK_MS) return this.built;
    if (this.building) return this.building;
    this.building = (async () => {
      try {
        const fp = await this.fingerprint();
        this.checkedAt = Date.now();
        if (this.built && !this.dirty && this.built.fingerprint === fp) return this.built;
        this.dirty = false;
        this.built = await this.build(fp);
        return this.built;
      } finally {
        this.building = null;
      }
    })();
    return this.building;
  }

  private async build(fingerprint: string): Promise<Built> {
    const index = new CandidateIndex([]);
    let after = 0;
    for (;;) {
      const rows: { Id_author: number; a_fio: string }[] = await this.db.query('SELECT Id_author, a_fio FROM authors WHERE Id_author > ? ORDER BY Id_author LIMIT ?', [after, LOAD_PAGE]);
      for (let i = 0; i < rows.length; i++) {
        index.add({ Id_author: Number(rows[i].Id_author), a_fio: String(rows[i].a_fio ?? '') });
        if (i % ADD_CHUNK === ADD_CHUNK - 1) await yieldLoop();
      }
      if (rows.length < LOAD_PAGE) break;
      after = Number(rows[rows.length - 1].Id_author);
      await yieldLoop();
    }
    const doubles: number[] = [];
    for (const step of index.withCandidatesSteps(5000)) {
      if (step === null) await yieldLoop();
      else doubles.push(...step);
    }
    doubles.sort((x, y) => x - y);
    return { index, doubles, fingerprint };
  }

  /** One author's candidates, without the ids in `skip`. */
  async candidatesOf(Id_author: number, skip?: ReadonlySet<number>): Promise<Candidate[]> {
    return (await this.get()).index.candidatesOf(Id_author, skip);
  }
}
