/**
 * Log viewing on nodes and 'Deploy configs' (000 §2 "Logs", §3 Log node / Log file / Log entry / Ant-log
 * options, §4, §5, §7 "Node sync", §8, §9): shapes, constants and messages shared by the node agent,
 * the console and the UI.
 */
import { z } from 'zod';
import { flag, id, int, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Constants (000 §9) and messages (000 §5, §8), verbatim

/** Ant-log options (000 §3): type default output, lines default 200. */
export const LOG_DEFAULT_LINES = 200;
export const LOG_MAX_LINES = 5000;
export const LOG_TYPES = ['output', 'error'] as const;
export type LogType = (typeof LOG_TYPES)[number];
export const LOG_DEFAULT_TYPE: LogType = 'output';
/** 000 §5: response lines containing this, or shorter than 2 characters, are ignored. */
export const LOG_IGNORED_TEXT = 'no such file or directory';
export const LOG_MIN_LINE = 2;
export const LOG_MSG = {
  notValidHost: 'Not valid response node hostname',
  notConfirmHost: (node: string) => `Not confirm hostname ${node}!`,
  fileNotFound: 'File not found',
  empty: 'Empty',
  wait: 'wait',
  clearAll: 'Clear all nodes',
  refresh: 'Refresh',
  close: 'Close',
  remove: 'Remove',
  deployConfigs: 'Deploy configs',
  deploy: 'Deploy',
  unknown: '--',
  ok: 'ok',
} as const;

/** The header the cluster key travels in (never in a URL that lands in a log). */
export const CLUSTER_KEY_HEADER = 'x-cluster-key';

/** 000 §5: the lines of a response worth showing. */
export const keepLogLine = (l: string) => l.length >= LOG_MIN_LINE && !l.toLowerCase().includes(LOG_IGNORED_TEXT);

// ---------------------------------------------------------------------------------------------
// The agent's protocol (docs/agent.md): every answer is {host, srv?, r: {res}} (an error adds r.error)

export interface AgentAnswer<T> {
  /** The node's hostname (the console checks it against the node it asked, 000 §5). */
  host: string;
  /** The `_srv_` the caller named, echoed. */
  srv?: string;
  r: { res: T; error?: string };
}
export interface LogFile {
  name: string;
  /** Bytes. */
  size: number;
  /** Last change, ms since the epoch. */
  mtime: number;
}
export interface ConfigRow { type: string; value: string }
export interface DeployTestRes {
  file: string;
  changed: boolean;
  added: string[];
  removed: string[];
}
export interface DeployRes extends DeployTestRes {
  written: boolean;
  reload: { cmd: string; code: number | null; output: string } | null;
}

/** A file name as the agent lists it: `name` or `dir/name` (several directories), no `..`, no `/` at the start. */
export const LOG_NAME_RE = /^(?:[A-Za-z0-9._@+-]{1,128}\/)?[A-Za-z0-9._@+ -]{1,255}$/;
export const isSafeLogName = (n: string) => LOG_NAME_RE.test(n) && !n.split('/').some((p) => p === '.' || p === '..');

// ---------------------------------------------------------------------------------------------
// Console RPC (admin only)

export const logNameField = text('name', 400, { min: 1 }).refine(isSafeLogName, 'name must be a file name the node listed (no .., no absolute path)');
export const LogsIdArgs = z.object({ Id: id() });
export const LogsOpenArgs = z.object({
  Id: id(),
  name: logNameField,
  lines: int(1, LOG_MAX_LINES, 'lines').optional(),
  type: z.enum(LOG_TYPES, { error: `type must be one of ${LOG_TYPES.join(', ')}` }).optional(),
});
export const LogsFileArgs = z.object({ Id: id(), name: logNameField });
export const LogsClusterArgs = z.object({ host: text('host', 128).optional() }).default({});
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export const AppLogsArgs = z
  .object({
    Id: id().optional(),
    level: z.enum(LOG_LEVELS, { error: `level must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
    q: text('q', 200).optional(),
    limit: int(1, 1000, 'limit').optional(),
  })
  .default({});
export const DeployGlobalArgs = z.object({
  /** A switch like every other (0, 1, '0', '1', true, false), answered and sent on as a boolean. */
  test: flag('test').transform((v) => v === 1),
  /** Client-made token that tags the progress events of this call (`cfg.deploy_global`). */
  run: text('run', 64).optional(),
});
export const FollowArgs = z.object({ Id: id(), name: logNameField });

export interface LogNodeView {
  Id: number;
  name: string;
  type: number;
  ip: string;
  agent_url: string;
  has_key: boolean;
}
export interface LogClusterView {
  Id: number;
  name: string;
  nodes: LogNodeView[];
}
export interface LogsClustersView {
  clusters: LogClusterView[];
  /** Nodes whose WEB cluster is unknown (no type 2 server under the same parent). */
  free: LogNodeView[];
}
export interface LogFilesResult { host: string; files: Array<{ name: string; size: number; mtime: number }> }
/** `file`: the file read — `name` itself, or with type 'error' its error counterpart (docs/agent.md "Output and error"). */
export interface LogOpenResult { host: string; name: string; type: LogType; file: string; lines: string[] }
/** Log entry (000 §3). */
export interface AppLogEntry { node: string; file: string; level: string; ip: string; date: string; data: string; url: string; ref: string; post: string }
export interface AppLogsResult { entries: AppLogEntry[]; errors: Array<{ Id: number; name: string; error: string }> }
export interface DeployNodeResult { Id: number; name: string; ok: boolean; res?: DeployTestRes | DeployRes; error?: string }
export interface DeployGlobalResult { test: boolean; nodes: DeployNodeResult[] }
/** Socket `cfg.deploy_global`: one node of a `cfg.deployGlobalConfig` call answered (done of total); to the caller's sockets. */
export interface DeployGlobalProgressEvent { run: string | null; test: boolean; total: number; done: number; node: DeployNodeResult | null }

/** Socket: lines appended to a followed file (`logs.lines`), and its end (`logs.follow_end`). */
export interface LogLinesEvent { fid: string; Id: number; name: string; lines: string[]; truncated?: boolean }
export interface LogFollowEndEvent { fid: string; Id: number; name: string; error?: string }
