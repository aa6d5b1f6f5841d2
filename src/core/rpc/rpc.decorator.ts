import { SetMetadata } from '@nestjs/common';
import type { ZodType } from 'zod';
import type { Actor } from '../auth/actor.js';

export const RPC_META = 'rpc:method';

export interface RpcOptions {
  /** Weakest role allowed (lower is stronger). Required: no method is open by accident. */
  role: number;
  /** State-changing: recorded in the audit log. */
  write?: boolean;
  /** Validates the method's argument; the handler receives the parsed value. */
  input?: ZodType;
  /** Other names the same method answers to (the spec lists some methods twice). */
  aliases?: string[];
  /** One line for docs/api.md. */
  summary?: string;
}

export interface RpcContext {
  actor: Actor;
  /** Aborted when the caller goes away or a cron run is killed. */
  signal?: AbortSignal;
}

/** Registers the decorated method in the one RPC registry under `name`. Signature: (args, ctx) => result. */
export const Rpc = (name: string, options: RpcOptions) => SetMetadata(RPC_META, { name, ...options });
