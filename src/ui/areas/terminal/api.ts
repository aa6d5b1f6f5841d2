/** Typed RPC methods and socket calls of the terminals area (docs/terminals.md). */
import type { Paged } from '../../../contracts/auth.js';
import type { MassWriteResult, RecordingRow, TerminalStatus } from '../../../contracts/terminal.js';
import { ApiError } from '../../api/http.js';
import { getHash } from '../../api/session.js';
import { request } from '../../api/socket.js';
import type { Result } from '../../api/http.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'terminal.recordings': { args: { server_id?: number; uid?: number; page?: number; limit?: number }; result: Paged<RecordingRow> };
    'terminal.recording': { args: { Id: number }; result: RecordingRow };
  }
}

/** A socket call answered with an envelope: its result, or ApiError. */
async function ask<T>(event: string, body?: unknown, timeoutMs?: number): Promise<T> {
  const env = await request<Result<T>>(event, body, timeoutMs);
  if (env.status === 'ok') return env.result;
  throw new ApiError(env);
}

export const terminalApi = {
  connect: (Id: number, cols: number, rows: number) => ask<TerminalStatus>('node_control.connect', { Id, cols, rows }, 60_000),
  write: (key: number, str: string) => ask<{ key: number }>('node_control.write', { key, str }),
  resize: (key: number, cols: number, rows: number) => ask<TerminalStatus>('node_control.resize', { key, cols, rows }),
  unsubscribe: (key: number) => ask<{ key: number; closed: boolean }>('node_control.unsubscribe', { key }),
  status: () => ask<TerminalStatus[]>('node_control.get_status'),
  massWrite: (keys: number[], line: string) => ask<MassWriteResult>('node_control.mass_write', { keys, line }),
};

/** The asciicast v2 text of a recording (GET /api/terminal/recordings/:Id/cast, with the session header). */
export async function fetchCast(Id: number, signal?: AbortSignal): Promise<string> {
  const hash = getHash();
  const res = await fetch(`/api/terminal/recordings/${Id}/cast`, { headers: hash ? { User: hash } : {}, signal });
  const text = await res.text();
  if (!res.ok) {
    let message = `HTTP ${res.status}`;
    try { message = (JSON.parse(text) as { message?: string }).message ?? message; } catch { /* not an envelope */ }
    throw new ApiError({ status: 'error', message, code: res.status });
  }
  return text;
}
