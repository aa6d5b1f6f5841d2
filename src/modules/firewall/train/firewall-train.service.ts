/**
 * Firewall II, marks and training (000 §2 traffic screen Ok/Ne/Bad, /firewall/train_data; §3 Train data
 * log; §4 "Firewall train", "Train review"; §7; §8 'Set train: {n}'; §9 the network): operators mark
 * addresses of a host 0 / 0.5 / 1, each mark stored with the address's feature vector as it was then;
 * `firewall.train` trains the host's network from its marks in a worker thread (ip-features.ts,
 * nn-model.ts), streams its progress, and stores the model (one per host, versioned) when it ends.
 * Scoring, auto-bans and the AI report: firewall-score.service.ts. Decisions: docs/firewall.md
 * "Neural score".
 */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';
import type { z } from 'zod';
import { isDenyingStatus } from '../../../contracts/firewall-rules.js';
import {
  HostArgs, NN_REVIEW_THRESHOLD, NN_TOP_EFFECTS, SaveTrainDataArgs, SetTrainDataArgs, TrainDataIdArgs, UpdateTrainDataArgs, trainSetMessage,
  type FeatureVector, type NnModelInfo, type SetTrainAnswer, type TrainDataRow, type TrainEvent, type TrainMark, type TrainReviewRow, type TrainStatus,
} from '../../../contracts/firewall-train.js';
import { Role } from '../../../contracts/roles.js';
import { AppError, conflict, notFound } from '../../../core/errors.js';
import { RealtimeService } from '../../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { FirewallRulesService } from '../rules/firewall-rules.service.js';
import { NnModelEntity, TrainDataEntity } from './firewall-train.entities.js';
import { FirewallTrafficService } from '../traffic/firewall-traffic.service.js';
import { CounterReader, CounterReaderError, sharedSqliteFile } from './counter-reader.thread.js';
import { driverRawQuery, pageCollector, readCounterPages, toInput, vectorsOf, type CounterPageSink, type CounterTable, type LoadOptions, type Query, type RawQuery } from './ip-features.js';
import { Scorer, trainInWorker, typicalInput, type TrainSample } from './nn-model.js';

const refuse = (field: string, message: string) => new AppError(422, message, 'rules', { [field]: message });
/** Progress events: at most one per this many ms (the status reads the latest at any time). */
export const TRAIN_PROGRESS_EVERY_MS = 250;
/** The worker reports every this many iterations. */
export const TRAIN_PROGRESS_ITERATIONS = 10;

interface Running {
  ac: AbortController;
  iteration: number;
  error: number;
  samples: number;
  done: Promise<void>;
}

/** A model loaded for scoring, with the row it came from (json left out). */
export interface LoadedModel {
  info: NnModelInfo;
  scorer: Scorer;
}

export const modelInfo = (m: NnModelEntity): NnModelInfo => ({
  version: m.version, samples: m.samples, error: m.error, iterations: m.iterations, duration_ms: m.duration_ms, trained_by: m.trained_by, time: m.time.toISOString(),
});

@Injectable()
export class FirewallTrainService implements OnModuleDestroy {
  private readonly log = new Logger('FirewallTrain');
  readonly dialect: 'sqlite' | 'mariadb';
  /** Trainings going on in this instance, by host. */
  private readonly running = new Map<string, Running>();
  private raw: RawQuery | null = null;
  /** The counters read off the event loop (SQLite file in WAL mode), else null: decided at first use. */
  private reader: CounterReader | null | undefined;
  /** Scorers by host, kept while the stored version is the same. */
  private readonly scorers = new Map<string, LoadedModel>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(TrainDataEntity) private readonly marks: Repository<TrainDataEntity>,
    @InjectRepository(NnModelEntity) private readonly models: Repository<NnModelEntity>,
    private readonly traffic: FirewallTrafficService,
    private readonly rules: FirewallRulesService,
    private readonly realtime: RealtimeService,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  async onModuleDestroy() {
    const all = [...this.running.values()];
    for (const r of all) r.ac.abort();
    await Promise.all(all.map((r) => r.done.catch(() => undefined)));
    await this.reader?.close();
    this.reader = undefined;
  }

  // ------------------------------------------------------------------------------------------
  // Features

  /** The feature vectors of addresses of a host from their stored rows (ip-features.ts), by address (loadFeatures). */
  async features(host: string, ips?: string[]): Promise<Map<string, FeatureVector>> {
    return vectorsOf(await this.counters(host, ips));
  }

  /** The same addresses' counters, packed for the scoring thread (loadCounters: it builds the vectors). */
  async counters(host: string, ips?: string[]): Promise<CounterTable> {
    const c = pageCollector();
    await this.readPages(host, await this.loadOptions(ips), c.sink);
    return c.table();
  }

  /** The same for every address of the host, page by page as read (readCounterPages: a page is worked on while the next is read). */
  async counterPages(host: string, onPage: CounterPageSink): Promise<void> {
    return this.readPages(host, await this.loadOptions(), onPage);
  }

  /**
   * Rows of a read statement that may walk many log rows (scoring's addresses seen since the last run, the
   * window's addresses of getNeyronData and the AI report): in the reader thread when there is one
   * (CounterReader.rows), else (or when it fails there) on the app's connection.
   */
  async readRows<R = Record<string, unknown>>(sql: string, params: unknown[]): Promise<R[]> {
    return this.inReader('a read', (r) => r.rows<R>(sql, params), async () => (await this.db.query(sql, params)) as R[]);
  }

  /**
   * readCounterPages on SQLite in the reader thread, on its own read-only connection (CounterReader: the
   * statements hold that thread, not the event loop), else on the app's connection. A failed read in the
   * thread is made again on the app's connection, its pages numbered above those handed on (the caller
   * drops those).
   */
  private readPages(host: string, opts: LoadOptions, onPage: CounterPageSink): Promise<void> {
    return this.inReader(
      `reading the feature counters of ${host}`,
      (r) => r.pages(host, opts, onPage),
      (from) => readCounterPages(this.query, this.dialect, host, opts, (t, attempt) => onPage(t, attempt + from)),
    );
  }

  /**
   * `inThread` with the counter reader when there is one; else, or when the thread's read fails (a
   * CounterReaderError: the caller's own errors pass as they are), `onApp` on the app's connection, given
   * the first page attempt not handed on yet.
   */
  private async inReader<T>(what: string, inThread: (r: CounterReader) => Promise<T>, onApp: (from: number) => Promise<T>): Promise<T> {
    const reader = this.counterReader();
    if (!reader) return onApp(0);
    try {
      return await inThread(reader);
    } catch (e) {
      if (!(e instanceof CounterReaderError)) throw e;
      this.log.warn(`${what} in the counter reader thread failed (${e.message}): read on the app's connection instead`);
      return onApp(e.attempt + 1);
    }
  }

  private counterReader(): CounterReader | null {
    if (this.reader === undefined && this.db.isInitialized) {
      const file = sharedSqliteFile(this.db);
      this.reader = file ? new CounterReader(file) : null;
    }
    return this.reader ?? null;
  }

  private readonly query: Query = (sql, params) => this.db.query(sql, params);

  private async loadOptions(ips?: string[]): Promise<LoadOptions> {
    return { bookPattern: await this.traffic.bookPattern(), raw: (this.raw ??= driverRawQuery(this.db)), ...(ips ? { ips } : {}) };
  }

  private noRows = (field: string, ip: string, host: string) =>
    refuse(field, `${ip} has no stored log rows for ${host} (its features are read from them): nothing to mark`);

  // ------------------------------------------------------------------------------------------
  // Marks (Train data log)

  private row = (m: TrainDataEntity): TrainDataRow => ({ Id: m.Id, ip: m.ip, host: m.host, bal: m.bal as TrainMark, data: m.data, time: m.time.toISOString() });

  /** Stores a mark, replacing the one of the same (host, ip) in place (its Id stays). */
  private async upsertMark(em: EntityManager, host: string, ip: string, bal: number, data: FeatureVector): Promise<number> {
    const repo = em.getRepository(TrainDataEntity);
    for (let attempt = 0; ; attempt++) {
      const existing = await repo.findOne({ where: { host, ip } });
      if (existing) {
        await repo.update({ Id: existing.Id }, { bal, data, time: new Date() });
        return existing.Id;
      }
      try {
        return (await repo.insert({ host, ip, bal, data, time: new Date() })).identifiers[0].Id as number;
      } catch (e) {
        if (attempt > 0) throw e; // the same mark stored at the same moment elsewhere: update it instead
      }
    }
  }

  /** A mark 1 bans the address (000 §4) unless allowlisted; a denying rule it already has stays as it is. */
  private async banMarked(ip: string): Promise<Pick<SetTrainAnswer, 'banned' | 'ban_message'>> {
    const status = (await this.rules.statusesOf([ip])).get(ip);
    if (status !== undefined && isDenyingStatus(status)) return { banned: true, ban_message: `${ip} is already banned (status ${status})` };
    try {
      const r = await this.rules.setIpBan({ ip });
      return { banned: true, ban_message: r.message };
    } catch (e) {
      if (e instanceof AppError && e.httpStatus < 500) return { banned: false, ban_message: e.message };
      throw e;
    }
  }

  @Rpc('firewall.setTrainDataLog', {
    role: Role.admin, write: true, input: SetTrainDataArgs,
    summary: "{ip, host, bal: 0|0.5|1}: marks an address of a host (Ok 0, Ne 0.5, Bad 1) with its feature vector as it is now (422 when it has no stored rows); one mark per (host, ip), a new one replaces it; bal 1 also bans the address unless allowlisted (the mark is stored either way); answers {Id, message: 'Set train: {bal}', banned?, ban_message?}",
  })
  async setTrainDataLog(a: z.output<typeof SetTrainDataArgs>): Promise<SetTrainAnswer> {
    const data = (await this.features(a.host, [a.ip])).get(a.ip);
    if (!data) throw this.noRows('ip', a.ip, a.host);
    const Id = await this.upsertMark(this.db.manager, a.host, a.ip, a.bal, data);
    const out: SetTrainAnswer = { Id, message: trainSetMessage(a.bal) };
    return a.bal === 1 ? { ...out, ...(await this.banMarked(a.ip)) } : out;
  }

  /** POST /api/firewall/save_train_data: several marks, all or none (an address without rows refuses the batch). */
  async saveTrainData(a: z.output<typeof SaveTrainDataArgs>): Promise<{ Ids: number[]; message: string; bans: Array<{ ip: string; banned: boolean; ban_message?: string }> }> {
    const byHost = new Map<string, string[]>();
    for (const m of a.data) byHost.set(m.host, [...(byHost.get(m.host) ?? []), m.ip]);
    const feats = new Map<string, Map<string, FeatureVector>>();
    for (const [host, ips] of byHost) feats.set(host, await this.features(host, [...new Set(ips)]));
    a.data.forEach((m, i) => {
      if (!feats.get(m.host)!.has(m.ip)) throw this.noRows(`data.${i}.ip`, m.ip, m.host);
    });
    const Ids = await this.db.transaction(async (em) => {
      const out: number[] = [];
      for (const m of a.data) out.push(await this.upsertMark(em, m.host, m.ip, m.bal, feats.get(m.host)!.get(m.ip)!));
      return out;
    });
    const bans = [];
    for (const ip of new Set(a.data.filter((m) => m.bal === 1).map((m) => m.ip))) bans.push({ ip, ...(await this.banMarked(ip)) } as { ip: string; banned: boolean; ban_message?: string });
    return { Ids, message: trainSetMessage(Ids.length), bans };
  }

  @Rpc('firewall.getTrainDataLog', {
    role: Role.admin, input: HostArgs,
    summary: '{host}: the marks of a host, newest first: [{Id, ip, host, bal, data: {feature: value}, time}]',
  })
  async getTrainDataLog(a: z.output<typeof HostArgs>): Promise<TrainDataRow[]> {
    return (await this.marks.find({ where: { host: a.host }, order: { time: 'DESC', Id: 'DESC' } })).map(this.row);
  }

  @Rpc('firewall.updateTrainDataLog', {
    role: Role.admin, write: true, input: UpdateTrainDataArgs,
    summary: "{Id, bal}: changes a mark's value (its stored features stay; no ban: the review corrects training data); answers {message: 'Update ok!', affected: 1}",
  })
  async updateTrainDataLog(a: z.output<typeof UpdateTrainDataArgs>) {
    const r = await this.marks.update({ Id: a.Id }, { bal: a.bal });
    if (!r.affected) throw notFound(`Mark ${a.Id} not found`);
    return { message: 'Update ok!', affected: 1 };
  }

  @Rpc('firewall.deleteTrainDataLog', {
    role: Role.admin, write: true, input: TrainDataIdArgs,
    summary: "{Id}: removes a mark; answers {message: 'Delete ok!', affected: 1}",
  })
  async deleteTrainDataLog(a: z.output<typeof TrainDataIdArgs>) {
    const r = await this.marks.delete({ Id: a.Id });
    if (!r.affected) throw notFound(`Mark ${a.Id} not found`);
    return { message: 'Delete ok!', affected: 1 };
  }

  // ------------------------------------------------------------------------------------------
  // Models

  /** The host's stored model for scoring (loaded again only when its version changed), or null. */
  async model(host: string): Promise<LoadedModel | null> {
    const head = await this.models.findOne({ where: { host }, select: { host: true, version: true } });
    if (!head) {
      this.scorers.delete(host);
      return null;
    }
    const cached = this.scorers.get(host);
    if (cached && cached.info.version === head.version) return cached;
    const m = await this.models.findOne({ where: { host } });
    if (!m) return null;
    const loaded = { info: modelInfo(m), scorer: new Scorer(m.json) };
    this.scorers.set(host, loaded);
    return loaded;
  }

  /** The model, or 422 telling to train first. */
  async requireModel(host: string): Promise<LoadedModel> {
    const m = await this.model(host);
    if (!m) throw refuse('host', `No model for ${host}: train first`);
    return m;
  }

  /** Hosts that have a model. */
  async modelHosts(): Promise<string[]> {
    return (await this.models.find({ select: { host: true }, order: { host: 'ASC' } })).map((m) => m.host);
  }

  // ------------------------------------------------------------------------------------------
  // Training

  private emit(e: TrainEvent) {
    this.realtime.emit('firewall.train', e, Role.admin);
  }

  @Rpc('firewall.train', {
    role: Role.admin, write: true, input: HostArgs, aliases: ['firewall.setTrainLog'],
    summary: "{host}: trains the host's network from its marks in a worker thread and answers at once {started: true} (422 without marks of two different values, 409 while one runs); socket event firewall.train: start, progress, end (the new model) or cancelled / error; the previous model scores until the new one is stored",
  })
  async train(a: z.output<typeof HostArgs>, ctx?: RpcContext): Promise<{ started: true }> {
    const host = a.host;
    if (this.running.has(host)) throw conflict(`Training for ${host} is running`);
    const marks = await this.marks.find({ where: { host }, order: { Id: 'ASC' } });
    const values = new Set(marks.map((m) => m.bal));
    if (values.size < 2) {
      throw refuse('host', `Training for ${host} needs marks of at least two different values (Ok 0, Ne 0.5, Bad 1): it has ${marks.length} mark${marks.length === 1 ? '' : 's'}${values.size ? ` of value ${[...values].join(', ')}` : ''}`);
    }
    if (this.running.has(host)) throw conflict(`Training for ${host} is running`);
    const samples: TrainSample[] = marks.map((m) => ({ input: toInput(m.data), output: m.bal }));
    const trainedBy = ctx?.actor?.name ?? '';
    const ac = new AbortController();
    const run: Running = { ac, iteration: 0, error: 0, samples: samples.length, done: Promise.resolve() };
    this.running.set(host, run);
    this.emit({ host, state: 'start', iteration: 0, error: 0, samples: samples.length });
    let lastEmit = 0;
    run.done = (async () => {
      try {
        const model = await trainInWorker(samples, {
          signal: ac.signal,
          progressEvery: TRAIN_PROGRESS_ITERATIONS,
          onProgress: (p) => {
            run.iteration = p.iteration;
            run.error = p.error;
            const now = Date.now();
            if (now - lastEmit >= TRAIN_PROGRESS_EVERY_MS) {
              lastEmit = now;
              this.emit({ host, state: 'progress', iteration: p.iteration, error: p.error, samples: samples.length });
            }
          },
        });
        const info = await this.saveModel(host, samples.length, model, trainedBy);
        this.log.log(`${host}: model ${info.version} from ${info.samples} marks, error ${info.error.toFixed(4)} after ${info.iterations} iterations (${info.duration_ms} ms)`);
        this.emit({ host, state: 'end', iteration: info.iterations, error: info.error, samples: samples.length, model: info });
      } catch (e) {
        if ((e as Error)?.name === 'AbortError') {
          this.emit({ host, state: 'cancelled', iteration: run.iteration, error: run.error, samples: samples.length, message: `Training for ${host} cancelled: the previous model stays` });
        } else {
          this.log.error(`${host}: training failed: ${(e as Error)?.message ?? e}`);
          this.emit({ host, state: 'error', iteration: run.iteration, error: run.error, samples: samples.length, message: `Training for ${host} failed: ${(e as Error)?.message ?? e}` });
        }
      } finally {
        this.running.delete(host);
      }
    })();
    return { started: true };
  }

  /** Stores a finished training as the host's model (version + 1; scored_id back to 0). */
  private async saveModel(host: string, samples: number, m: { json: unknown; error: number; iterations: number; duration_ms: number }, trainedBy: string): Promise<NnModelInfo> {
    const row = { samples, error: m.error, iterations: m.iterations, duration_ms: Math.round(m.duration_ms), trained_by: trainedBy.slice(0, 190), time: new Date(), json: m.json as never, scored_id: 0 };
    for (let attempt = 0; attempt < 5; attempt++) {
      const cur = await this.models.findOne({ where: { host }, select: { host: true, version: true } });
      if (cur) {
        // compare-and-set on the version: a model saved meanwhile by another instance is not overwritten blindly
        const r = await this.models.update({ host, version: cur.version }, { ...row, version: cur.version + 1 });
        if (r.affected) return modelInfo({ host, version: cur.version + 1, ...row } as NnModelEntity);
      } else {
        try {
          await this.models.insert({ host, version: 1, ...row });
          return modelInfo({ host, version: 1, ...row } as NnModelEntity);
        } catch {
          // inserted elsewhere at the same moment: update it on the next turn
        }
      }
    }
    throw new Error(`the model of ${host} could not be stored (changed under us 5 times)`);
  }

  @Rpc('firewall.cancelTrain', {
    role: Role.admin, write: true, input: HostArgs,
    summary: "{host}: stops the host's training running in this instance (the previous model stays); answers {cancelled: true}; 422 when none runs",
  })
  async cancelTrain(a: z.output<typeof HostArgs>) {
    const r = this.running.get(a.host);
    if (!r) throw refuse('host', `No training for ${a.host} is running`);
    r.ac.abort();
    return { cancelled: true };
  }

  @Rpc('firewall.getTrainStatus', {
    role: Role.admin, input: HostArgs,
    summary: "{host}: {running, iteration, error, model: {version, samples, error, iterations, duration_ms, trained_by, time} | null}; running, iteration and error are this instance's (training runs where it was started)",
  })
  async getTrainStatus(a: z.output<typeof HostArgs>): Promise<TrainStatus> {
    const r = this.running.get(a.host);
    const m = await this.models.findOne({ where: { host: a.host }, select: { host: true, version: true, samples: true, error: true, iterations: true, duration_ms: true, trained_by: true, time: true } });
    return { running: !!r, iteration: r?.iteration ?? 0, error: r?.error ?? 0, model: m ? modelInfo(m) : null };
  }

  /** Waits until the host's training (if any) has ended here (tests, shutdown). */
  async settled(host: string) {
    await this.running.get(host)?.done;
  }

  // ------------------------------------------------------------------------------------------
  // Review

  @Rpc('firewall.loadHostTrainData', {
    role: Role.admin, input: HostArgs,
    summary: "{host}: train review: the host's marks 0 and 1 (0.5 skipped) whose network output disagrees (output above 0.99 counts 1, else 0): [{Id, ip, host, bal, data, time, output, predicted, top}] (top: the 3 largest effects against the median of the host's marks); 422 without a model",
  })
  async loadHostTrainData(a: z.output<typeof HostArgs>): Promise<TrainReviewRow[]> {
    const { scorer } = await this.requireModel(a.host);
    const marks = (await this.marks.find({ where: { host: a.host }, order: { Id: 'ASC' } })).filter((m) => m.bal !== 0.5);
    const inputs = marks.map((m) => toInput(m.data));
    const outputs = scorer.scoreMany(inputs);
    // The marks' vectors come from other hours than the traffic of now: their own median is the typical value here.
    const typical = typicalInput(inputs);
    const out: TrainReviewRow[] = [];
    marks.forEach((m, i) => {
      const predicted = outputs[i] > NN_REVIEW_THRESHOLD ? 1 : 0;
      if (predicted !== m.bal) out.push({ ...this.row(m), output: outputs[i], predicted, top: scorer.explain(inputs[i], typical, NN_TOP_EFFECTS) });
    });
    return out;
  }
}
