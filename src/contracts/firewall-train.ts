/**
 * Firewall II (000 §2 traffic screen marks, /firewall/train_data; §3 Train data log; §4 "Firewall train",
 * "Train review"; §7; §8; §9): the neural score of visitor addresses. Shapes and inputs shared by the
 * server and the UI. Decisions: docs/firewall.md "Neural score".
 */
import { z } from 'zod';
import { id, int, text } from './fields.js';
import { ipField } from './firewall-rules.js';

// ---------------------------------------------------------------------------------------------
// Constants of 000 §9

/** The network (brain.js NeuralNetwork): hidden layers, activation, iterations, error threshold. */
export const NN_HIDDEN_LAYERS = [60, 60, 30] as const;
export const NN_ACTIVATION = 'sigmoid';
export const NN_ITERATIONS = 5000;
export const NN_ERROR_THRESHOLD = 0.02;
/** A score at or above this bans the address automatically (per-host override in cluster configs). */
export const NN_DECISION_THRESHOLD = 0.97;
/** Features named beside a score (the largest effects). */
export const NN_TOP_EFFECTS = 3;
/** Train review: the network's output above this counts as 1, else 0. */
export const NN_REVIEW_THRESHOLD = 0.99;

/** Marks of 000 §4: Ok = 0, Neutral = 0.5, Bad = 1. */
export const TRAIN_MARKS = [0, 0.5, 1] as const;
export type TrainMark = (typeof TRAIN_MARKS)[number];
export const TRAIN_MARK_LABELS: Record<TrainMark, string> = { 0: 'Ok', 0.5: 'Ne', 1: 'Bad' };
/** 'Set train: {n}' of 000 §8. */
export const trainSetMessage = (n: number) => `Set train: ${n}`;

/** The IP rule status that the neural score's automatic bans carry (000 §3: 3-11 are automatic-ban reasons). */
export const NN_AUTO_BAN_STATUS = 3;
/**
 * Cluster config type of the per-host auto-ban setting: one row per host, value `host=0.985` (threshold),
 * `host=off` (no automatic bans for that host) or `host=on` (the default threshold).
 */
export const NN_AUTOBAN_CONFIG_TYPE = 'firewall_nn_autoban';
/** Stored log rows of an address read for its features: the window before its newest row (s). */
export const FEATURE_WINDOW_S = 3600;

/**
 * The feature vector, in this order, each normalised to 0..1 (src/modules/firewall/train/ip-features.ts
 * computes them; the reason for each is written there and in docs/firewall.md "Neural score").
 */
export const FEATURE_NAMES = [
  'rate', 'burst', 'distinct_urls', 'share_4xx', 'share_5xx', 'share_static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot',
  'agents_per_ip', 'head_post', 'request_time', 'night', 'url_depth', 'books_per_min',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type FeatureVector = Record<FeatureName, number>;

// ---------------------------------------------------------------------------------------------
// Inputs

const host = text('Host', 190, { min: 1 }).transform((v) => v.toLowerCase());
const ip = ipField();
/** A mark: the number 0, 0.5 or 1 (strings are refused, as everywhere in fields.ts). */
const mark = z
  .number({ error: `Bal must be one of ${TRAIN_MARKS.join(', ')}` })
  .refine((v) => (TRAIN_MARKS as readonly number[]).includes(v), `Bal must be one of ${TRAIN_MARKS.join(', ')}`)
  .transform((v) => v as TrainMark);

/** firewall.setTrainDataLog: mark an address of a host (the features as they are now are stored with it). */
export const SetTrainDataArgs = z.object({ ip, host, bal: mark });
export const HostArgs = z.object({ host });
export const UpdateTrainDataArgs = z.object({ Id: id('Id'), bal: mark });
export const TrainDataIdArgs = z.object({ Id: id('Id') });
export const NeyronDataArgs = z.object({ host, ips: z.array(ip).max(1000, 'At most 1000 addresses').optional() });
/** firewall.setRuleByIp: Block from the traffic screen (a rule by address; status default 1). */
export const RuleByIpArgs = z.object({ ip, status: int(-1, 15, 'Status').optional() });
export const AutoBanListArgs = z.object({ host: host.optional(), p_: int(1, 100_000, 'Page').optional() });
export const UndoAutoBanArgs = z.object({ ip });
/** POST /api/firewall/save_train_data: a batch of marks, stored all or none. */
export const SaveTrainDataArgs = z.object({
  data: z.array(SetTrainDataArgs, { error: 'Data must be a list of {ip, host, bal}' }).min(1, 'Data must not be empty').max(1000, 'Data has at most 1000 marks'),
});
/** firewall.scoreNow: score the addresses seen since the last scoring (one host, or every host with a model). */
export const ScoreNowArgs = z.object({ host: host.optional() }).default({});
/** Rows of the auto-ban list per page. */
export const AUTO_BANS_PAGE_SIZE = 50;
/** Addresses scored per host at most by firewall.getNeyronData without `ips` (the most recent first). */
export const NN_SCORE_LIST_MAX = 1000;

// ---------------------------------------------------------------------------------------------
// Answers

/** Train data log of 000 §3 (Id, bal, data) with the address, host and time it was marked. */
export interface TrainDataRow {
  Id: number;
  ip: string;
  host: string;
  bal: TrainMark;
  /** The feature vector when the operator marked the address. */
  data: FeatureVector;
  time: string;
}

export interface NnModelInfo {
  version: number;
  samples: number;
  error: number;
  iterations: number;
  duration_ms: number;
  trained_by: string;
  time: string;
}

export interface TrainStatus {
  running: boolean;
  /** The running training's last reported iteration and error (0 when none runs). */
  iteration: number;
  error: number;
  model: NnModelInfo | null;
}

/** One feature's part in a score: the change of the score when the feature is set to the host's typical value. */
export interface FeatureEffect {
  feature: FeatureName;
  effect: number;
}

export interface NeyronScore {
  ip: string;
  score: number;
  features: FeatureVector;
  top: FeatureEffect[];
}

/** A train review row (loadHostTrainData): a mark that the network's output disagrees with. */
export interface TrainReviewRow extends TrainDataRow {
  /** The network's output for the stored features, and what it counts as (above 0.99: 1, else 0). */
  output: number;
  predicted: 0 | 1;
  /** The features that pushed the output most, against the median of the host's marks (the data the model learnt from). */
  top: FeatureEffect[];
}

export interface AutoBanRow {
  ip: string;
  host: string;
  score: number;
  model_version: number;
  time: string;
  /** The address's rule status now (NN_AUTO_BAN_STATUS while the ban stands). */
  status: number | null;
  /** When an operator undid it (firewall.undoAutoBan), else null. */
  undone: string | null;
}

/** firewall.setTrainDataLog: the mark's Id, 'Set train: {n}', and for a mark 1 what became of the ban. */
export interface SetTrainAnswer {
  Id: number;
  message: string;
  /** Mark 1 only: true when the address is banned now (new rule, or a denying rule it already had). */
  banned?: boolean;
  /** Mark 1 only: 'Set ban ok!', or why no ban was set (allowlisted, or an Allowed rule). */
  ban_message?: string;
}

/** firewall.scoreNow (and the scoring after each worker run), per host. */
export interface ScoreResult {
  host: string;
  model_version: number;
  /** The threshold used, or null when auto-ban is off for the host. */
  threshold: number | null;
  scored: number;
  banned: Array<{ ip: string; score: number }>;
  /** Addresses at or over the threshold left alone, and why. */
  skipped: Array<{ ip: string; score: number; reason: 'allowlisted' | 'rule' | 'undone' }>;
  /** A bad per-host config value (auto-ban is then off for the host). */
  config_error?: string;
}

/** POST {AI_REPORT_URL}/py/ai/report answered `res`; `configured: false` when AI_REPORT_URL is unset. */
export interface AiReport {
  configured: boolean;
  res?: unknown;
  error?: string;
}

/** Socket event `firewall.train` (admins): 'start', progress, then 'end' (or 'cancelled' / 'error'). */
export interface TrainEvent {
  host: string;
  state: 'start' | 'progress' | 'end' | 'cancelled' | 'error';
  iteration: number;
  error: number;
  samples?: number;
  model?: NnModelInfo;
  message?: string;
}
