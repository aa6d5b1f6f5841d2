import { Body, Controller, HttpCode, Logger, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Envelope } from '../../contracts/envelope.js';
import { NoAudit } from '../auth/actor.js';
import type { AuthedRequest } from '../auth/auth.guard.js';
import { parseInput } from '../errors.js';
import { RawResponse } from '../http/raw.js';
import { RpcRegistry } from './rpc.registry.js';

const MAX_BATCH = 50;
const RpcBody = z.object({
  methods: z.array(z.string().min(1).max(190)).min(1, 'methods must list at least one method').max(MAX_BATCH, `at most ${MAX_BATCH} methods per call`),
  args: z.array(z.unknown()).max(MAX_BATCH).optional(),
  host: z.union([z.number(), z.string()]).optional(),
});

/**
 * The main style of 000 §7: POST /api {methods, args, host} answers one envelope per method, in
 * order, run one after another. One failing method does not fail the others. When every method of the batch was refused for
 * the role, the HTTP status is 403; when none succeeded and the database was unreachable, 503; otherwise 200 with the envelopes.
 */
@Controller()
export class RpcController {
  private readonly log = new Logger('Rpc');
  constructor(private readonly registry: RpcRegistry) {}

  @Post()
  @HttpCode(200)
  @NoAudit()
  @RawResponse()
  async batch(@Body() body: unknown, @Req() req: AuthedRequest, @Res() reply: FastifyReply) {
    const { methods, args = [] } = parseInput(RpcBody, body);
    const actor = req.actor!;
    const abort = new AbortController();
    reply.raw.on('close', () => { if (!reply.raw.writableEnded) abort.abort(); });
    const onUnexpected = (err: unknown) => this.log.error((err as Error)?.stack ?? String(err));
    // In order, one after another: a batch may write then read, and answers are read by index.
    const out: Envelope[] = [];
    for (const [i, name] of methods.entries()) out.push(await this.registry.call(name, args[i], { actor, signal: abort.signal }, onUnexpected));
    return reply.status(batchStatus(out)).send(out);
  }
}

/**
 * The batch's HTTP status: 403 when every method was refused for the role; 503 when no method
 * succeeded and one of them found the database unreachable (retry later); otherwise 200.
 */
export function batchStatus(out: Envelope[]): number {
  if (out.every((e) => e.status !== 'ok' && e.code === 403)) return 403;
  if (out.every((e) => e.status !== 'ok') && out.some((e) => e.status === 'db' && e.code === 503)) return 503;
  return 200;
}
