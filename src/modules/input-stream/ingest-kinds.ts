import type { ZodType, z } from 'zod';
import type { EntityManager } from 'typeorm';
import type { StreamSiteEntity } from './input-stream.entities.js';

/**
 * A kind of record a site may send in an ingestion batch besides the book `events`
 * (docs/input-stream.md "Record kinds"): banner views and clicks now, comments later. An area
 * registers its kind once, at start (`InputStreamService.registerKind` in its service's onModuleInit);
 * the ingestion endpoint then takes a list of such records under `key` in the same batch and counts
 * them in the batch's one transaction, so a batch sent again counts none of its records twice.
 *
 * The order of work for a batch: every list (events and each kind) is parsed with its schema, then
 * each kind's `check` runs (refusals name `<key>.<index>.<field>`), and only when nothing was refused
 * the batch row is written and each kind's `apply` runs inside that transaction.
 */
export interface IngestKind<S extends ZodType = ZodType> {
  /** The batch key the records travel under, e.g. 'banners' (not 'batch_id' or 'events'). */
  key: string;
  /** One record's schema (its contract, in src/contracts). */
  record: S;
  /** Records of this kind in one batch at most. */
  max: number;
  /**
   * Checks the parsed records against the console's state and clock (before anything is written):
   * answers refusals by record index and field (`{'3.Idb': 'unknown banner'}`), or nothing.
   */
  check?(records: z.output<S>[], now: number): Promise<Record<string, string> | void>;
  /** Counts the records: runs inside the batch's transaction (`m`), once per batch id and site. */
  apply(m: EntityManager, site: StreamSiteEntity, records: z.output<S>[], now: number): Promise<void>;
  /** Called by the input stream's hourly retention job: removes what the kind keeps past its use. Answers rows removed. */
  prune?(now: number): Promise<number>;
}

/** Records of the registered kinds found in one batch, parsed. */
export interface KindRecords {
  kind: IngestKind;
  records: unknown[];
}

/** Keys a kind cannot take: the batch's own. */
export const RESERVED_BATCH_KEYS = new Set(['batch_id', 'events']);
