import { REPLAY_IDLE_LIMIT_S } from '../../../contracts/terminal.js';

export interface Cast {
  width: number;
  height: number;
  /** Events with pauses longer than the idle limit shortened; `t` in seconds from the start. */
  events: Array<{ t: number; code: string; data: string }>;
  duration: number;
}

/** Parses asciicast v2 (header line, then `[time, code, data]` lines); long pauses are cut to REPLAY_IDLE_LIMIT_S. */
export function parseCast(text: string): Cast {
  const lines = text.split('\n').filter((l) => l.trim());
  const header = JSON.parse(lines[0] ?? '{}') as { version?: number; width?: number; height?: number };
  if (header.version !== 2) throw new Error('Not an asciicast v2 recording');
  const events: Cast['events'] = [];
  let prev = 0;
  let shift = 0;
  for (const l of lines.slice(1)) {
    let e: unknown;
    try { e = JSON.parse(l); } catch { continue; } // a line cut by a crash
    if (!Array.isArray(e) || typeof e[0] !== 'number' || typeof e[2] !== 'string') continue;
    const gap = e[0] - prev;
    if (gap > REPLAY_IDLE_LIMIT_S) shift += gap - REPLAY_IDLE_LIMIT_S;
    prev = e[0];
    events.push({ t: e[0] - shift, code: String(e[1]), data: e[2] });
  }
  return { width: header.width ?? 80, height: header.height ?? 24, events, duration: events.at(-1)?.t ?? 0 };
}
