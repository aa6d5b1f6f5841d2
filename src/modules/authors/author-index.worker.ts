/**
 * Worker thread of AuthorIndexService: holds the duplicate-candidate index (author-names.ts
 * CandidateIndex) off the main thread, so building it over a few hundred thousand names, the full pass
 * and its garbage never stall the API. Messages are handled in order: a build is `begin`, `add`...,
 * `finish` (which answers the ids with candidates and makes the new index the one queries use); until
 * it finishes, queries use the previous index.
 */
import { parentPort } from 'node:worker_threads';
import { CandidateIndex, type Candidate } from './author-names.js';

export type IndexRequest =
  | { id: number; op: 'begin' }
  | { id: number; op: 'add'; ids: number[]; names: string[] }
  | { id: number; op: 'finish' }
  | { id: number; op: 'candidates'; Id_author: number; skip: number[] }
  /** Of `items` ([id, skip]), the ids that still have a candidate once their skip ids are left out. */
  | { id: number; op: 'stillDouble'; items: Array<[number, number[]]> };

export type IndexReply =
  | { id: number; ok: true; doubles?: number[]; candidates?: Candidate[]; ids?: number[] }
  | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error('author-index.worker must run in a worker thread');

let current = new CandidateIndex([]);
let next: CandidateIndex | null = null;

function handle(m: IndexRequest): IndexReply {
  switch (m.op) {
    case 'begin':
      next = new CandidateIndex([]);
      return { id: m.id, ok: true };
    case 'add': {
      if (!next) throw new Error('add without begin');
      for (let i = 0; i < m.ids.length; i++) next.add({ Id_author: m.ids[i], a_fio: m.names[i] });
      return { id: m.id, ok: true };
    }
    case 'finish': {
      if (!next) throw new Error('finish without begin');
      current = next;
      next = null;
      return { id: m.id, ok: true, doubles: current.withCandidates() };
    }
    case 'candidates':
      return { id: m.id, ok: true, candidates: current.candidatesOf(m.Id_author, new Set(m.skip)) };
    case 'stillDouble':
      return { id: m.id, ok: true, ids: m.items.filter(([x, skip]) => current.candidatesOf(x, new Set(skip)).length > 0).map(([x]) => x) };
  }
}

port.on('message', (m: IndexRequest) => {
  let reply: IndexReply;
  try {
    reply = handle(m);
  } catch (err) {
    reply = { id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
