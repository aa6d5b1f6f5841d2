/**
 * Worker thread of LogParsePool: parses one chunk per message, off the main event loop. The chunk
 * arrives transferred; the batch's typed arrays and bytes go back transferred (no copy either way).
 */
import { parentPort } from 'node:worker_threads';
import { finishChunk, parseChunk, type LogBatchData, type LogParseOptions, type LogParseState } from './log-parser.js';

export interface LogParseRequest {
  id: number;
  op: 'parse' | 'finish';
  chunk: Uint8Array | null;
  state: LogParseState | null;
  opts: LogParseOptions;
}

export type LogParseReply =
  | { id: number; ok: true; data: LogBatchData; state: LogParseState }
  | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error('log-parse.worker must run in a worker thread');

port.on('message', (m: LogParseRequest) => {
  let reply: LogParseReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const r = m.op === 'finish' ? finishChunk(m.state ?? { offset: 0, carry: null, skipped: 0 }, m.opts) : parseChunk(m.chunk ?? new Uint8Array(0), m.state, m.opts);
    reply = { id: m.id, ok: true, data: r.batch.data, state: r.state };
    transfer = r.batch.transferList();
  } catch (e) {
    reply = { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply, transfer);
});
