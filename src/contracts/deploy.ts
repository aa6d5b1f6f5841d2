/**
 * Run once, deploy and the server console (000 §2 /srv/deploy, /srv/deploy/{type}, server console;
 * §4 Deploy; §7 deploy (type web or web_test, host), deploy_logs_{server name}, the console's write
 * event tailing 150 lines): shapes, input schemas, labels and constants shared by the server and the UI.
 */
import { z } from 'zod';
import { id, int, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Run once: one command on many servers as separate executions, grouped by identical output

export const RUN_ONCE_MAX_HOSTS = 1000;
export const RUN_ONCE_CMD_MAX = 4000;
/** Per-host time-out (connect + run) unless the call says otherwise; at most RUN_ONCE_TIMEOUT_MAX_S. */
export const RUN_ONCE_TIMEOUT_S = 60;
export const RUN_ONCE_TIMEOUT_MAX_S = 3600;
/** Output kept per host (stdout then stderr), in characters; the rest is cut with a note. */
export const RUN_ONCE_OUTPUT_MAX = 64 * 1024;

export const RunOnceArgs = z.object({
  ids: z.array(id('ids item')).min(1, 'ids must not be empty').max(RUN_ONCE_MAX_HOSTS, `ids has at most ${RUN_ONCE_MAX_HOSTS} items`),
  cmd: text('cmd', RUN_ONCE_CMD_MAX, { min: 1, multiline: true }),
  /** Seconds per host; default RUN_ONCE_TIMEOUT_S. */
  timeout: int(1, RUN_ONCE_TIMEOUT_MAX_S, 'timeout').optional(),
  /** Client-made token that tags the progress events of this call (`srv.run_once`). */
  run: text('run', 64).optional(),
});

/** One group of hosts whose output was byte-identical (as ClusterShell's `clubak -b`): hosts and their exit codes, in the same order. */
export interface RunOnceGroup {
  output: string;
  hosts: string[];
  codes: number[];
}
export interface RunOnceFailure {
  name: string;
  error: string;
}
export interface RunOnceResult {
  groups: RunOnceGroup[];
  failed: RunOnceFailure[];
}
/** Progress of a run once call, to the calling user's sockets. */
export interface RunOnceProgressEvent {
  run: string | null;
  done: number;
  total: number;
  /** The host that just finished (absent on the first event). */
  name?: string;
  ok?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Deploy

export const DEPLOY_TYPES = ['web', 'web_test'] as const;
export type DeployType = (typeof DEPLOY_TYPES)[number];
/** Cluster config row type holding the command of each deploy type (a `{type}.{host}` row overrides it for one host). */
export const DEPLOY_CONFIG_TYPES: Record<DeployType, string> = { web: 'deploy_web', web_test: 'deploy_web_test' };
/** Servers whose name contains this are hidden from the deploy cards and never deployed (000 §2). */
export const DEPLOY_HIDDEN_NAME = 'dev';
export const DEPLOY_CONCURRENCY = 10;
/** Per-node time-out of a deploy command (connect included). */
export const DEPLOY_TIMEOUT_S = 600;
/** Longest line sent in a deploy_logs event (longer lines are cut). */
export const DEPLOY_LINE_MAX = 4000;
/** Lines a card keeps (older ones scroll away). */
export const DEPLOY_CARD_LINES = 500;
export const DEPLOY_HISTORY_PAGE_SIZE = 20;

/** Labels and messages (000 §4 verbatim where quoted; the rest are the console's own). */
export const DEPLOY_LABELS = {
  testOk: 'Test deploy: OK!',
  deploy: 'Deploy',
  test: 'Test',
  confirm: 'Deploy to every web server of this host?',
  noHosts: 'No host has web servers',
  noCommand: (configType: string) => `No deploy command: add a cluster config row of type '${configType}'`,
  busy: (host: string) => `A deploy of ${host} is already running`,
  unknownHost: (host: string) => `Unknown host '${host}'`,
  noNodes: (host: string) => `Host ${host} has no web servers to deploy to`,
} as const;

/** Markers of a deploy_logs event (000 §4): start shows a spinner, end stops it, test turns a test card green. */
export type DeployMarker = 'start' | 'end' | 'test';
export const DEPLOY_MARKER_TEXT: Record<DeployMarker, string> = { start: '#deploy_start', end: '#deploy_end', test: '#deploy_test_ok' };

/** Payload of `deploy_logs_{server name}`: one output line, or a marker line (with `marker`). */
export interface DeployLogEvent {
  type: DeployType;
  host: string;
  line: string;
  marker?: DeployMarker;
  /** With the end marker: the exit code (null when the node failed before or without one) and whether the node is ok. */
  code?: number | null;
  ok?: boolean;
  error?: string;
}
export const deployLogEvent = (serverName: string) => `deploy_logs_${serverName}` as const;

export const DeployArgs = z.object({
  type: z.enum(DEPLOY_TYPES, { error: `type must be one of ${DEPLOY_TYPES.join(', ')}` }),
  host: text('host', 128, { min: 1 }),
});

export interface DeployNodeResult {
  name: string;
  ok: boolean;
  code: number | null;
  error?: string;
}
export interface DeployResult {
  Id: number;
  nodes: DeployNodeResult[];
}

/** A host (a parent server, type 0) with its web servers (type 8, on, without 'dev' in the name). */
export interface DeployHost {
  Id: number;
  name: string;
  nodes: Array<{ Id: number; name: string }>;
}

export interface DeployRunView {
  Id: number;
  type: DeployType;
  host: string;
  uid: number | null;
  login: string | null;
  started_at: string;
  duration_ms: number | null;
  /** 1 every node ok, 0 some failed, null still running. */
  ok: number | null;
  nodes: DeployNodeResult[];
}

export const DeployHistoryArgs = z
  .object({
    page: int(1, 1_000_000, 'page').default(1),
    host: text('host', 128).optional(),
    type: z.enum(DEPLOY_TYPES, { error: `type must be one of ${DEPLOY_TYPES.join(', ')}` }).optional(),
  })
  .default({ page: 1 });

// ---------------------------------------------------------------------------------------------
// Server console: `tail -n 150 -F` of an app's log on each node

/** Cluster config rows of this type name an app: `name|/path/to/log[|types]` (types: server types, comma-separated; default WEB). */
export const CONSOLE_CONFIG_TYPE = 'console_app';
export const CONSOLE_TAIL_LINES = 150;
/** Consoles one socket may hold open at once. */
export const CONSOLE_PER_SOCKET = 4;
export const CONSOLE_LOG_PATH = /^\/[A-Za-z0-9._/-]+$/;
export const CONSOLE_APP_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface ConsoleApp {
  name: string;
  path: string;
  types: number[];
}
/** Parses a console_app row value; null when it is not `name|/path[|types]`. */
export function parseConsoleApp(value: string): ConsoleApp | null {
  const [name, path, types] = value.split('|').map((s) => s.trim());
  if (!name || !CONSOLE_APP_NAME.test(name) || !path || !CONSOLE_LOG_PATH.test(path) || path.includes('..')) return null;
  const list = types ? types.split(',').map((t) => Number(t.trim())) : [8];
  if (list.some((t) => !Number.isInteger(t) || t < 0)) return null;
  return { name, path, types: list };
}

export const ConsoleOpenArgs = z.object({ app: text('app', 64, { min: 1 }) });
export const ConsoleCloseArgs = z.object({ key: text('key', 64, { min: 1 }) });

export interface ConsoleOpenResult {
  key: string;
  app: string;
  path: string;
  nodes: Array<{ Id: number; name: string }>;
}
/** `server_console.data`: output of one node's tail. */
export interface ConsoleDataEvent {
  key: string;
  node: string;
  data: string;
}
/** `server_console.status`: a node's tail connected, ended or failed. */
export interface ConsoleStatusEvent {
  key: string;
  node: string;
  state: 'connecting' | 'live' | 'closed' | 'error';
  error?: string;
}
