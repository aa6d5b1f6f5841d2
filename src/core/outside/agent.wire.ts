/**
 * The node agent's answers (docs/agent.md; src/agent is the other side): every answer is
 * `{host, srv?, r: {res, error?}}` plus fields of its own (`name`, `deleted`), checked for the host of
 * 000 §5; the follow stream is server-sent events whose first event (`open`) names the host.
 */
import { z } from 'zod';
import { LOG_MSG } from '../../contracts/logs.js';
import { AppError } from '../errors.js';

/** `{host, r: {res, error?}}` and whatever else the agent adds; `host` is checked by `checkHost`. */
export const AgentAnswerWire = z.looseObject({
  host: z.unknown().optional(),
  srv: z.unknown().optional(),
  r: z.looseObject({ res: z.unknown().optional(), error: z.unknown().optional() }),
});

/** 000 §5: the answering host must be the node asked for (its name, or its name's FQDN). */
export function checkHost(node: string, host: unknown): string {
  if (typeof host !== 'string' || !host.trim()) throw new AppError(502, LOG_MSG.notValidHost, 'http', { host: LOG_MSG.notValidHost });
  const h = host.trim().toLowerCase();
  const n = node.trim().toLowerCase();
  if (h !== n && !h.startsWith(`${n}.`)) throw new AppError(502, LOG_MSG.notConfirmHost(node), 'http', { host: host });
  return host;
}

export interface AgentEvent {
  event: string;
  data: unknown;
}

/**
 * Splits server-sent events off the front of `buf`: answers the complete events (JSON data; comment
 * lines such as the keep-alive and events without data are skipped) and what is left for the next chunk.
 */
export function takeEvents(buf: string): { events: AgentEvent[]; rest: string } {
  const events: AgentEvent[] = [];
  let i: number;
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i);
    buf = buf.slice(i + 2);
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (!data.length) continue;
    try {
      events.push({ event, data: JSON.parse(data.join('\n')) });
    } catch {
      // not JSON: not an agent event
    }
  }
  return { events, rest: buf };
}
