/**
 * Terminals (000 §2 terminal grid and /srv/MassTerminal, §4 "Terminal connection status is live per
 * node", §7 node_control.*; issue 11): socket message shapes, limits and labels shared by the server and
 * the UI. Decisions: docs/terminals.md.
 *
 * The socket contract: `node_control.connect {Id}` opens an interactive shell on server Id for this
 * socket (the shell's key is the server's Id), `node_control.write {key, str}` sends keystrokes,
 * output arrives as `node_control.data {key, data}`, `node_control.resize {key, cols, rows}` follows
 * the browser, `node_control.get_status` answers the shells of the socket, `node_control.unsubscribe
 * {key}` closes one, `node_control.mass_write {keys, line}` writes one line to several (audited per host).
 */
import { z } from 'zod';
import { id, int, INT_MAX, oneOrMany } from './fields.js';

/** Terminal geometry (000 §2): font 13 px (12 on mobile), 48 rows, 800 px wide. */
export const TERMINAL_FONT_SIZE = 13;
export const TERMINAL_FONT_SIZE_MOBILE = 12;
export const TERMINAL_ROWS = 48;
export const TERMINAL_WIDTH_PX = 800;
/** Columns a fresh shell opens with before the browser's fit (80 is every terminal's default). */
export const TERMINAL_DEFAULT_COLS = 80;

/** Sizes are clamped to these bounds (a bigger or smaller resize is not refused, it is clamped). */
export const TERMINAL_COLS_MIN = 10;
export const TERMINAL_COLS_MAX = 500;
export const TERMINAL_ROWS_MIN = 2;
export const TERMINAL_ROWS_MAX = 200;
/** One `write` carries at most this many characters (a paste); a longer one is refused. */
export const TERMINAL_WRITE_MAX = 65_536;
/** One mass terminal line: at most this many characters, one line (no newline inside). */
export const MASS_LINE_MAX = 4096;
/** Shells one mass write may address at once. */
export const MASS_KEYS_MAX = 100;

/** The grid's Rows option (000 §2): a factor of the 48-row height, or auto (fit the window). */
export const GRID_ROWS_OPTIONS = ['auto', '0.25', '0.5', 'x2', 'x3'] as const;
export type GridRowsOption = (typeof GRID_ROWS_OPTIONS)[number];
/** The grid's Cols option (000 §2): terminals side by side, or auto (as many 800 px columns as fit). */
export const GRID_COLS_OPTIONS = ['auto', '1', '2', '3', '4', '5'] as const;
export type GridColsOption = (typeof GRID_COLS_OPTIONS)[number];
/** Rows of one terminal for a Rows option (auto: 48, the page then fits to the window). */
export const gridRows = (o: GridRowsOption): number =>
  o === '0.25' ? TERMINAL_ROWS / 4 : o === '0.5' ? TERMINAL_ROWS / 2 : o === 'x2' ? TERMINAL_ROWS * 2 : o === 'x3' ? TERMINAL_ROWS * 3 : TERMINAL_ROWS;

/** Mass terminal's server type filter when nothing is chosen (000 §2: defaults to none, -1). */
export const MASS_TYPE_NONE = -1;

// ---------------------------------------------------------------------------------------------
// Socket messages (client -> server)

const key = id('key');
const clampInt = (lo: number, hi: number, label: string) => int(1, INT_MAX, label).transform((n) => Math.min(hi, Math.max(lo, n)));
const cols = clampInt(TERMINAL_COLS_MIN, TERMINAL_COLS_MAX, 'cols');
const rows = clampInt(TERMINAL_ROWS_MIN, TERMINAL_ROWS_MAX, 'rows');

export const TerminalConnectArgs = z.object({ Id: id('Id'), cols: cols.optional(), rows: rows.optional() });
export type TerminalConnectArgs = z.output<typeof TerminalConnectArgs>;

export const TerminalWriteArgs = z.object({
  key,
  str: z.string({ error: 'str must be text' }).max(TERMINAL_WRITE_MAX, `str is at most ${TERMINAL_WRITE_MAX} characters`),
});
export type TerminalWriteArgs = z.output<typeof TerminalWriteArgs>;

export const TerminalResizeArgs = z.object({ key, cols, rows });
export type TerminalResizeArgs = z.output<typeof TerminalResizeArgs>;

export const TerminalKeyArgs = z.preprocess((v) => (typeof v === 'number' || typeof v === 'string' ? { key: v } : v), z.object({ key }));
export type TerminalKeyArgs = z.output<typeof TerminalKeyArgs>;

export const MassWriteArgs = z.object({
  keys: oneOrMany(id('keys'), 'keys', MASS_KEYS_MAX).transform((v) => (Array.isArray(v) ? v : [v])),
  line: z
    .string({ error: 'line must be text' })
    .max(MASS_LINE_MAX, `line is at most ${MASS_LINE_MAX} characters`)
    .refine((s) => !/[\r\n]/.test(s), 'line must be one line'),
});
export type MassWriteArgs = z.output<typeof MassWriteArgs>;

// ---------------------------------------------------------------------------------------------
// Socket events (server -> client) and answers

/** A shell's connection status, live per node (000 §4). */
export type TerminalState = 'connecting' | 'open' | 'closed' | 'error';

export interface TerminalStatus {
  key: number;
  name: string;
  status: TerminalState;
  /** Why it closed or failed ('Idle time-out', 'Connection refused by ...'); empty while fine. */
  message: string;
  /** The recording of this session (its Id), once the shell is open. */
  recording: number | null;
  cols: number;
  rows: number;
}

/** `node_control.data`: output of the shell `key`, as text (UTF-8 decoded across chunk boundaries). */
export interface TerminalDataEvent {
  key: number;
  data: string;
}

/** Answer of `node_control.mass_write`: the shells written to, and the keys refused (not opened by this socket, or closed). */
export interface MassWriteResult {
  written: number[];
  refused: Array<{ key: number; message: string }>;
}

export const TERMINAL_MSG = {
  notOpened: (k: number) => `Terminal ${k} is not open on this connection`,
  perUser: (n: number) => `Too many terminals: at most ${n} per user are open at once (close one first)`,
  total: (n: number) => `Too many terminals: at most ${n} are open on this console at once (try again later)`,
  idle: (ms: number) => `Closed after ${ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`} without input`,
  ended: 'Connection closed',
  sessionEnded: 'Session ended',
  closedByUser: 'Closed',
} as const;

// ---------------------------------------------------------------------------------------------
// Recordings (asciicast v2 files under DATA_DIR/recordings; docs/terminals.md "Recording")

export interface RecordingRow {
  Id: number;
  server_id: number;
  server_name: string;
  uid: number | null;
  login: string;
  started_at: string;
  ended_at: string | null;
  /** Bytes of the cast file. */
  bytes: number;
  /** Why the session ended ('Closed', 'Idle time-out', 'Session ended', ...); null while open. */
  end_reason: string | null;
  /** True when output was cut at TERMINAL_RECORDING_MAX_MB. */
  truncated: number;
}

export const RECORDINGS_PAGE_SIZE = 50;

export const RecordingListArgs = z
  .object({
    server_id: id('server_id').optional(),
    uid: id('uid').optional(),
    page: int(1, INT_MAX, 'page').default(1),
    limit: int(1, 500, 'limit').default(RECORDINGS_PAGE_SIZE),
  })
  .default({ page: 1, limit: RECORDINGS_PAGE_SIZE });
export type RecordingListArgs = z.output<typeof RecordingListArgs>;

export const RecordingIdArgs = z.preprocess((v) => (typeof v === 'number' || typeof v === 'string' ? { Id: v } : v), z.object({ Id: id('Id') }));

/** Playback speeds of the replay page. */
export const REPLAY_SPEEDS = [0.5, 1, 2, 4, 8] as const;
/** The replay skips pauses longer than this (seconds), as asciinema's idle_time_limit does. */
export const REPLAY_IDLE_LIMIT_S = 2;
