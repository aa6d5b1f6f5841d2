/**
 * A position source (docs/position.md "The source"): one search engine's adapter. The checker asks it
 * for a query's place of a domain down to a depth; it pages through the engine's results (one request
 * per page) and says how many requests it spent. A second engine (a Google SERP API, ...) is one more
 * class implementing this, listed in POSITION_SOURCES (position.module.ts) and in POSITION_ENGINES.
 */
import type { PositionEngine } from '../../../contracts/position.js';

export interface PositionSourceQuery {
  text: string;
  domain: string;
  region: number;
  depth: number;
}

export interface PositionFound {
  /** 1-based place, or null: not in the top `top`. */
  pos: number | null;
  top: number;
  url: string;
  requests: number;
}

export interface PositionSource {
  readonly engine: PositionEngine;
  readonly configured: boolean;
  /** The quotas the scheduler plans within. */
  readonly limits: { perSecond: number; perHour: number };
  readonly pageSize: number;
  find(q: PositionSourceQuery, opts?: { signal?: AbortSignal; patient?: boolean }): Promise<PositionFound>;
}

/** The injection token of the sources (an array). */
export const POSITION_SOURCES = Symbol('POSITION_SOURCES');
