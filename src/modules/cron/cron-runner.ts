import { actionArgument, actionName, CRON_HTTP_TIMEOUT_MS, CRON_OUTPUT_TAIL, httpRequestOf, type CronCmd, type CronRunStatus } from '../../contracts/cron.js';
import { TIMEOUT_MESSAGE } from '../../contracts/constants.js';
import type { Actor } from '../../core/auth/actor.js';
import type { RpcRegistry } from '../../core/rpc/rpc.registry.js';
import { toFailure } from '../../core/errors.js';
import { basicAuthorization } from './cron-secret.js';

export interface RunOutcome {
  status: Exclude<CronRunStatus, 'skipped'>;
  message: string;
  output: string | null;
}

/** The reason a run's AbortController is aborted with when an operator kills it. */
export const KILLED = 'killed';
/** ... and when the console shuts down. */
export const SHUTDOWN = 'shutdown';
const INTERRUPTED = 'Interrupted: the console stopped';
const TIMED_OUT = 'timeout';

const tail = (s: string) => (s.length > CRON_OUTPUT_TAIL ? '…' + s.slice(-CRON_OUTPUT_TAIL) : s);

/** Reads a response body keeping only its last CRON_OUTPUT_TAIL characters' worth of bytes (memory stays bounded). */
async function readTail(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const keep = CRON_OUTPUT_TAIL * 4;
  let chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > keep * 2) {
      const all = Buffer.concat(chunks);
      chunks = [all.subarray(all.length - keep)];
      size = keep;
      cut = true;
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  return cut ? '…' + text.slice(-CRON_OUTPUT_TAIL) : tail(text);
}

/**
 * Runs one task's command. Nothing goes through a shell and no executable is started:
 * - `curl=`: fetch with the task's method and parameters, aborted by a kill or after CRON_HTTP_TIMEOUT_MS;
 *   `cmd` is the one with the task's secrets filled in (cron-secret.ts); the URL's user part is never
 *   sent in the URL (fetch refuses it): it goes as `Authorization: Basic`;
 * - `path=` + `method=`: the RPC method `{path}.{method}` through the registry (role check, input
 *   validation, audit) with the actor of the admin who saved the task and the run's abort signal.
 * Never throws: the outcome says ok, error or killed.
 */
export async function runCronCmd(
  cmd: CronCmd,
  abort: AbortController,
  deps: { registry: RpcRegistry; actor: () => Promise<Actor>; timeoutMs?: number },
): Promise<RunOutcome> {
  const signal = abort.signal;
  const killed = () => signal.aborted && signal.reason === KILLED;
  try {
    if (cmd.kind === 'http') {
      const req = httpRequestOf(cmd);
      if (req.userinfo) req.headers.authorization = basicAuthorization(req.userinfo);
      // The run's own controller carries the time-out too (one timer; cheaper than AbortSignal.any/timeout per run).
      const timer = setTimeout(() => abort.abort(TIMED_OUT), deps.timeoutMs ?? CRON_HTTP_TIMEOUT_MS);
      try {
        const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal });
        const output = await readTail(res);
        return { status: res.ok ? 'ok' : 'error', message: `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`, output };
      } catch (err) {
        if (killed()) return { status: 'killed', message: 'Killed', output: null };
        if (signal.aborted && signal.reason === TIMED_OUT) return { status: 'error', message: TIMEOUT_MESSAGE, output: null };
        if (signal.aborted) return { status: 'error', message: INTERRUPTED, output: null };
        const e = err as Error & { cause?: { code?: string; message?: string } };
        const message = e.cause?.code ? `${e.cause.code}: ${e.cause.message ?? e.message}` : e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
        return { status: 'error', message, output: null };
      } finally {
        clearTimeout(timer);
      }
    }
    const actor = await deps.actor();
    const stop = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    const work = deps.registry.invoke(actionName(cmd), actionArgument(cmd.args), { actor, signal });
    work.catch(() => undefined); // a killed action may still settle later; its outcome is already recorded
    const result = await Promise.race([work, stop]);
    const message = result && typeof result === 'object' && typeof (result as { message?: unknown }).message === 'string' ? (result as { message: string }).message : 'ok';
    const json = result === undefined ? null : JSON.stringify(result);
    return { status: 'ok', message, output: json === null || json === undefined ? null : tail(json) };
  } catch (err) {
    if (killed()) return { status: 'killed', message: 'Killed', output: null };
    if (signal.aborted) return { status: 'error', message: INTERRUPTED, output: null };
    const f = toFailure(err);
    return { status: 'error', message: f.unexpected ? ((err as Error)?.message ?? String(err)) : f.envelope.message, output: null };
  }
}
