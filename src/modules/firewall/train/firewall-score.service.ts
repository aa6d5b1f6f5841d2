/**
 * Firewall II, the score in use (issue 9 "Scoring", "Explanation", "AI report"; 000 §4, §7
 * getNeyronData, POST /py/ai/report; §9 decision threshold 0.97): scores of a host's addresses with its
 * model and the features that pushed each most; automatic bans after each worker run (status
 * NN_AUTO_BAN_STATUS, never over the allowlist or an existing rule, per-host threshold or off in cluster
 * configs), their list and undo; the AI report (its client is src/core/outside/ai-report.client.ts). Decisions: docs/firewall.md "Neural score".
 */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, type DataSource, type Repository } from 'typeorm';
import type { z } from 'zod';
import { FW_MESSAGES } from '../../../contracts/firewall-rules.js';
import {
  AUTO_BANS_PAGE_SIZE, AutoBanListArgs, FEATURE_WINDOW_S, HostArgs, NN_AUTO_BAN_STATUS, NN_AUTOBAN_CONFIG_TYPE, NN_DECISION_THRESHOLD, NN_SCORE_LIST_MAX, NN_TOP_EFFECTS,
  NeyronDataArgs, ScoreNowArgs, UndoAutoBanArgs,
  type AiReport, type AutoBanRow, type FeatureVector, type NeyronScore, type ScoreResult,
} from '../../../contracts/firewall-train.js';
import { NOT_CONFIGURED } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import { notFound } from '../../../core/errors.js';
import { AiReportClient } from '../../../core/outside/ai-report.client.js';
import { OutsideError } from '../../../core/outside/outside-error.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { CfgConfigsService } from '../../cfg-configs/cfg-configs.service.js';
import { FirewallRulesService } from '../rules/firewall-rules.service.js';
import { NnAutoBanEntity, NnModelEntity, TrainDataEntity } from './firewall-train.entities.js';
import { FirewallTrainService, type LoadedModel } from './firewall-train.service.js';
import { toInput, type CounterTable } from './ip-features.js';
import { typicalInput } from './nn-model.js';
import { ScoringThread } from './nn-score.thread.js';

/** Effects listed per scored address. */
/** Addresses the AI report sends (the host's busiest of the window). */
export const AI_REPORT_ADDRESSES = 50;
/** Addresses of a later run (those seen since the last scoring) whose counters are read and scored together. */
const SCORE_BATCH = 2000;
/** The addresses seen since the last scoring are read along the primary key when it is at most this many Ids behind. */
const SEEN_BY_ID_MAX = 200_000;

/** A host's auto-ban setting from cluster configs: the threshold, or null (off), and a bad value's message. */
export interface AutoBanSetting {
  threshold: number | null;
  error?: string;
}

/**
 * Per-host auto-ban settings from cluster config rows of type NN_AUTOBAN_CONFIG_TYPE: each row's value
 * holds `host=0.985` (threshold in (0, 1]), `host=off` or `host=on` (NN_DECISION_THRESHOLD), several
 * separated by spaces, commas or lines; later rows win. A bad value turns auto-ban off for its host
 * (and is reported): a typo must not ban with a threshold nobody chose.
 */
export function autoBanSettings(values: string[]): Map<string, AutoBanSetting> {
  const out = new Map<string, AutoBanSetting>();
  for (const value of values) {
    for (const item of value.split(/[\s,;]+/).filter(Boolean)) {
      const eq = item.indexOf('=');
      const host = (eq > 0 ? item.slice(0, eq) : '').trim().toLowerCase();
      const v = eq > 0 ? item.slice(eq + 1).trim().toLowerCase() : '';
      if (!host) continue;
      if (v === 'off' || v === '0') out.set(host, { threshold: null });
      else if (v === 'on' || v === '1') out.set(host, { threshold: NN_DECISION_THRESHOLD });
      else if (/^(0?\.\d+|1(\.0*)?)$/.test(v) && Number(v) > 0) out.set(host, { threshold: Number(v) });
      else out.set(host, { threshold: null, error: `'${item}' in the cluster config '${NN_AUTOBAN_CONFIG_TYPE}' is not host=on, host=off or host=<threshold between 0 and 1>: auto-ban is off for ${host}` });
    }
  }
  return out;
}

const nowS = () => Math.floor(Date.now() / 1000);

@Injectable()
export class FirewallScoreService implements OnModuleDestroy {
  private readonly log = new Logger('FirewallScore');
  /** Scoring of this instance, one at a time (the worker's runs and scoreNow calls queue). */
  private chain: Promise<unknown> = Promise.resolve();
  /** The forward pass of whole batches, off the event loop (started on first use). */
  private thread: ScoringThread | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(NnModelEntity) private readonly models: Repository<NnModelEntity>,
    @InjectRepository(NnAutoBanEntity) private readonly autobans: Repository<NnAutoBanEntity>,
    @InjectRepository(TrainDataEntity) private readonly marks: Repository<TrainDataEntity>,
    private readonly ai: AiReportClient,
    private readonly train: FirewallTrainService,
    private readonly rules: FirewallRulesService,
    private readonly configs: CfgConfigsService,
  ) {}

  async onModuleDestroy(): Promise<void> {
    await this.thread?.close();
    this.thread = null;
  }

  // ------------------------------------------------------------------------------------------
  // Scores with explanation

  /** Addresses of a host with rows in the window before now, the most recent first, at most `limit` (a GROUP BY over the window's rows: on SQLite in the counter reader thread). */
  private async recentIps(host: string, since: number, limit: number): Promise<Array<{ ip: string; last: number }>> {
    const rows = await this.train.readRows(
      `SELECT ip, MAX(stime) AS last FROM fw_access_log WHERE proxy_host = ? AND stime >= ? GROUP BY ip ORDER BY last DESC, ip ASC LIMIT ${Math.floor(limit)}`,
      [host, since],
    ) as Array<{ ip: string; last: unknown }>;
    return rows.map((r) => ({ ip: String(r.ip), last: Number(r.last) }));
  }

  /** Scores, features and top effects of addresses (those without stored rows are left out). */
  private async scoresOf(host: string, model: LoadedModel, ips: string[] | null): Promise<NeyronScore[]> {
    const windowIps = (await this.recentIps(host, nowS() - FEATURE_WINDOW_S, NN_SCORE_LIST_MAX)).map((r) => r.ip);
    const want = ips ?? windowIps;
    const feats = await this.train.features(host, [...new Set([...windowIps, ...want])]);
    const typical = typicalInput(windowIps.filter((ip) => feats.has(ip)).map((ip) => toInput(feats.get(ip)!)));
    const out: NeyronScore[] = [];
    for (const ip of want) {
      const f = feats.get(ip);
      if (!f) continue;
      const input = toInput(f);
      out.push({ ip, score: model.scorer.score(input), features: f, top: model.scorer.explain(input, typical, NN_TOP_EFFECTS) });
    }
    return out;
  }

  @Rpc('firewall.getNeyronData', {
    role: Role.admin, input: NeyronDataArgs,
    summary: "{host, ips?}: neural scores with the host's model: [{ip, score, features: {name: value}, top: [{feature, effect}] (3 largest: score minus the score with that feature at the host's typical value)}] for the given addresses (those without stored rows left out), else the addresses of the last hour, most recent first, at most 1000; 422 without a model",
  })
  async getNeyronData(a: z.output<typeof NeyronDataArgs>): Promise<NeyronScore[]> {
    const model = await this.train.requireModel(a.host);
    return this.scoresOf(a.host, model, a.ips ? [...new Set(a.ips)] : null);
  }

  // ------------------------------------------------------------------------------------------
  // Automatic bans

  /** The auto-ban settings of every host configured (cluster configs). */
  async settings(): Promise<Map<string, AutoBanSetting>> {
    return autoBanSettings((await this.configs.getConfigs({ type: NN_AUTOBAN_CONFIG_TYPE })).map((r) => r.value));
  }

  @Rpc('firewall.scoreNow', {
    role: Role.admin, write: true, input: ScoreNowArgs,
    summary: "{host?}: scores the addresses seen since the last scoring (one host, or every host with a model) and bans those at or over the host's threshold (cluster config 'firewall_nn_autoban': host=0.985 | host=off | host=on, default 0.97) with status 3, never allowlisted ones, ones with a rule, or ones whose auto-ban was undone under the same model version; runs after each worker run too; answers [{host, model_version, threshold, scored, banned: [{ip, score}], skipped: [{ip, score, reason}], config_error?}]",
  })
  scoreNow(a: z.output<typeof ScoreNowArgs> = {}): Promise<ScoreResult[]> {
    const r = this.chain.then(() => this.scoreHosts(a.host ? [a.host] : null));
    this.chain = r.catch(() => undefined);
    return r;
  }

  /** After each firewall worker run: scoring of every host with a model; failures are logged, never thrown. */
  async afterWorkerRun(): Promise<void> {
    try {
      const results = await this.scoreNow({});
      for (const r of results) if (r.banned.length) this.log.log(`${r.host}: ${r.banned.length} addresses banned automatically (model ${r.model_version})`);
    } catch (e) {
      this.log.warn(`scoring after the worker run failed: ${(e as Error)?.message ?? e}`);
    }
  }

  private async scoreHosts(only: string[] | null): Promise<ScoreResult[]> {
    const hosts = only ?? (await this.train.modelHosts());
    const settings = await this.settings();
    const out: ScoreResult[] = [];
    for (const host of hosts) {
      const model = only ? await this.train.requireModel(host) : await this.train.model(host);
      if (!model) continue;
      out.push(await this.scoreHost(host, model, settings.get(host) ?? { threshold: NN_DECISION_THRESHOLD }));
    }
    return out;
  }

  private async scoreHost(host: string, model: LoadedModel, setting: AutoBanSetting): Promise<ScoreResult> {
    const version = model.info.version;
    const result: ScoreResult = { host, model_version: version, threshold: setting.threshold, scored: 0, banned: [], skipped: [], ...(setting.error ? { config_error: setting.error } : {}) };
    if (setting.threshold === null) return result; // off: nothing scored, the place kept for when it is on again
    const threshold = setting.threshold;
    const row = await this.models.findOne({ where: { host }, select: { host: true, version: true, scored_id: true } });
    if (!row || row.version !== version) return result; // replaced meanwhile: the next run scores with the new one
    const [top] = (await this.db.query('SELECT MAX(Id) AS m FROM fw_access_log')) as Array<{ m: unknown }>;
    const maxId = Number(top?.m ?? 0);
    if (maxId <= row.scored_id) return result;
    const thread = (this.thread ??= new ScoringThread());
    const key = `${host}\n${version}`;
    // each page of counters goes to the scoring thread as soon as it is read (the thread builds the inputs and
    // runs the forward pass while the main thread reads the next page); bans wait for the whole read, since a
    // read that a rollup overtook is made again (its pages come again with a higher attempt: the scores of
    // the earlier ones are dropped)
    let pages: Array<{ ips: string[]; scores: Promise<Float64Array> }> = [];
    let current = 0;
    const score = (t: CounterTable, attempt: number) => {
      if (attempt !== current) {
        pages = [];
        current = attempt;
      }
      if (!t.ips.length) return;
      const scores = thread.scoreCounters(key, model.scorer, t.counters);
      scores.catch(() => undefined); // awaited below; a page dropped or left behind by a failure must not be an unhandled rejection
      pages.push({ ips: t.ips, scores });
    };
    if (row.scored_id === 0) {
      // a new version scores the whole window: every address of the host's counters, page by page
      await this.train.counterPages(host, score);
    } else {
      // the addresses with rows stored since the last scoring (Id) within the window, read by Id when few
      // (the primary key: the time index would walk the whole hour), their counters by IN lists; on SQLite in
      // the counter reader thread (readRows), since a statement walking up to SEEN_BY_ID_MAX rows holds its thread
      const table = maxId - row.scored_id > SEEN_BY_ID_MAX ? 'fw_access_log' : this.train.dialect === 'sqlite' ? 'fw_access_log NOT INDEXED' : 'fw_access_log FORCE INDEX (PRIMARY)';
      const seen = ((await this.train.readRows(
        `SELECT DISTINCT ip FROM ${table} WHERE proxy_host = ? AND Id > ? AND Id <= ? AND stime >= ?`,
        [host, row.scored_id, maxId, nowS() - FEATURE_WINDOW_S],
      )) as Array<{ ip: string }>).map((r) => String(r.ip));
      for (let i = 0; i < seen.length; i += SCORE_BATCH) score(await this.train.counters(host, seen.slice(i, i + SCORE_BATCH)), 0);
    }
    if (!pages.length) {
      await this.models.update({ host, version }, { scored_id: maxId });
      return result;
    }
    const allow = await this.rules.allowlist();
    for (const page of pages) {
      const scores = await page.scores;
      result.scored += page.ips.length;
      const over: Array<{ ip: string; score: number }> = [];
      for (let k = 0; k < page.ips.length; k++) if (scores[k] >= threshold) over.push({ ip: page.ips[k], score: scores[k] });
      if (!over.length) continue;
      const statuses = await this.rules.statusesOf(over.map((s) => s.ip));
      const before = new Set((await this.autobans.find({ where: { host, model_version: version, ip: In(over.map((s) => s.ip)) }, select: { Id: true, ip: true } })).map((b) => b.ip));
      for (const s of over) {
        if (FirewallRulesService.allowReason(allow, s.ip)) result.skipped.push({ ...s, reason: 'allowlisted' });
        else if (statuses.has(s.ip)) result.skipped.push({ ...s, reason: 'rule' });
        else if (before.has(s.ip)) result.skipped.push({ ...s, reason: 'undone' });
        else if (await this.rules.insertIfNone(s.ip, NN_AUTO_BAN_STATUS)) {
          try {
            await this.autobans.insert({ host, ip: s.ip, score: s.score, model_version: version, time: new Date(), undone: null });
          } catch {
            // recorded by another instance scoring at the same moment (UQ host, ip, model_version)
          }
          result.banned.push(s);
        } else result.skipped.push({ ...s, reason: 'rule' });
      }
    }
    await this.models.update({ host, version }, { scored_id: maxId });
    return result;
  }

  @Rpc('firewall.getAutoBans', {
    role: Role.admin, input: AutoBanListArgs,
    summary: '{host?, p_?}: automatic bans of the neural score, newest first, 50 a page: {list: [{ip, host, score, model_version, time, status (the rule now, null when gone), undone}], count}',
  })
  async getAutoBans(a: z.output<typeof AutoBanListArgs>): Promise<{ list: AutoBanRow[]; count: number }> {
    const [rows, count] = await this.autobans.findAndCount({
      where: a.host ? { host: a.host } : {}, order: { time: 'DESC', Id: 'DESC' }, skip: ((a.p_ ?? 1) - 1) * AUTO_BANS_PAGE_SIZE, take: AUTO_BANS_PAGE_SIZE,
    });
    const statuses = await this.rules.statusesOf([...new Set(rows.map((r) => r.ip))]);
    return {
      list: rows.map((r) => ({
        ip: r.ip, host: r.host, score: r.score, model_version: r.model_version, time: r.time.toISOString(), status: statuses.get(r.ip) ?? null, undone: r.undone ? r.undone.toISOString() : null,
      })),
      count,
    };
  }

  @Rpc('firewall.undoAutoBan', {
    role: Role.admin, write: true, input: UndoAutoBanArgs,
    summary: "{ip}: undoes the address's automatic ban: removes its rule while it still has the automatic status (marks of it become 0, as for any removed rule), stores an Ok mark (0) for the host that banned it when it has stored rows, and the same model version never bans it again; answers {message: 'Delete rule ok!', affected, marked}; 404 when it has no automatic ban standing",
  })
  async undoAutoBan(a: z.output<typeof UndoAutoBanArgs>) {
    const active = await this.autobans.find({ where: { ip: a.ip, undone: IsNull() } });
    if (!active.length) throw notFound(`${a.ip} has no automatic ban to undo`);
    const status = (await this.rules.statusesOf([a.ip])).get(a.ip);
    let affected = 0;
    if (status === NN_AUTO_BAN_STATUS) affected = (await this.rules.deleteIpRules({ ip: a.ip })).affected;
    await this.autobans.update({ Id: In(active.map((b) => b.Id)) }, { undone: new Date() });
    let marked = 0;
    for (const host of new Set(active.map((b) => b.host))) {
      const f = (await this.train.features(host, [a.ip])).get(a.ip);
      if (f && (await this.setZeroMark(host, a.ip, f))) marked++;
    }
    return { message: FW_MESSAGES.deleted, affected, marked };
  }

  /** An Ok mark (0) for an address whose automatic ban was undone: the next training learns the correction. */
  private async setZeroMark(host: string, ip: string, data: FeatureVector): Promise<boolean> {
    const existing = await this.marks.findOne({ where: { host, ip } });
    if (existing) await this.marks.update({ Id: existing.Id }, { bal: 0, data, time: new Date() });
    else await this.marks.insert({ host, ip, bal: 0, data, time: new Date() });
    return true;
  }

  // ------------------------------------------------------------------------------------------
  // AI report

  /** What the AI report sends as `data`: the host's model and its busiest addresses of the window, with scores and top effects. */
  async aiReportData(host: string) {
    const since = nowS() - FEATURE_WINDOW_S;
    const busiest = await this.train.readRows(
      `SELECT ip, COUNT(*) AS n FROM fw_access_log WHERE proxy_host = ? AND stime >= ? GROUP BY ip ORDER BY n DESC, ip ASC LIMIT ${AI_REPORT_ADDRESSES}`,
      [host, since],
    ) as Array<{ ip: string; n: unknown }>;
    const model = await this.train.model(host);
    const ips = busiest.map((r) => String(r.ip));
    const scored = model ? new Map((await this.scoresOf(host, model, ips)).map((s) => [s.ip, s])) : null;
    const feats = scored ? null : await this.train.features(host, ips);
    return {
      window_s: FEATURE_WINDOW_S,
      model: model ? { version: model.info.version, samples: model.info.samples, error: model.info.error, time: model.info.time } : null,
      addresses: busiest.map((r) => {
        const ip = String(r.ip);
        const s = scored?.get(ip);
        return { ip, requests: Number(r.n), score: s ? s.score : null, top: s ? s.top : [], features: s ? s.features : (feats?.get(ip) ?? null) };
      }),
    };
  }

  @Rpc('firewall.getAiReport', {
    role: Role.admin, input: HostArgs,
    summary: "{host}: the AI report: POST {AI_REPORT_URL}/py/ai/report {domain: host, data: {window_s, model, addresses: the 50 busiest of the last hour with requests, score, top effects and features}}; answers {configured: true, res} or {configured: true, error} (upstream failure or time-out, AI_REPORT_TIMEOUT_MS), or {configured: false} without AI_REPORT_URL",
  })
  async getAiReport(a: z.output<typeof HostArgs>, ctx?: Pick<RpcContext, 'signal'>): Promise<AiReport> {
    if (!this.ai.configured) return NOT_CONFIGURED;
    const data = await this.aiReportData(a.host);
    try {
      return { configured: true, res: await this.ai.report({ domain: a.host, data }, ctx?.signal) };
    } catch (e) {
      // the service's failure is the report's answer (the panel shows it), not a failed call
      if (e instanceof OutsideError) return { configured: true, error: e.message };
      throw e;
    }
  }
}
