import { actionArgument, actionName, CRON_OUTPUT_TAIL, type CronCmd } from '../../contracts/cron.js';
import type { Actor } from '../../core/auth/actor.js';
import type { RpcRegistry } from '../../core/rpc/rpc.registry.js';
import { toFailure } from '../../core/errors.js';
import { httpPlanOf, INTERRUPTED, KILLED, RunAbort, runHttp, type RunOutcome } from './http/cron-http.js';

export { httpPlanOf, KILLED, RunAbort, runHttp, SHUTDOWN, type HttpPlan, type RunOutcome } from './http/cron-http.js';

const tail = (s: string) => (s.length > CRON_OUTPUT_TAIL ? '…' + s.slice(-CRON_OUTPUT_TAIL) : s);

/**
 * Runs one task's command. Nothing goes through a shell and no executable is started:
 * - `curl=`: runHttp (http/cron-http.ts: undici's dispatcher on the shared agent), in-process (the engine's
 *   runs go through the cron HTTP thread instead, http/cron-http.thread.ts, with the same code), with the task's method and parameters,
 *   aborted by a kill or after CRON_HTTP_TIMEOUT_MS; `cmd` is the one with the task's secrets filled in
 *   (cron-secret.ts); the URL's user part is never sent in the URL: it goes as `Authorization: Basic`;
 * - `path=` + `method=`: the RPC method `{path}.{method}` through the registry (role check, input
 *   validation, audit) with the actor of the admin who saved the task and the run's abort signal.
 * Never throws: the outcome says ok, error or killed.
 */
export async function runCronCmd(
  cmd: CronCmd,
  abort: AbortController | RunAbort,
  deps: { registry: RpcRegistry; actor: () => Promise<Actor>; timeoutMs?: number },
): Promise<RunOutcome> {
  if (cmd.kind === 'http') {
    let plan;
    try {
      plan = httpPlanOf(cmd);
    } catch (err) {
      return { status: 'error', message: (err as Error).message, output: null };
    }
    return runHttp(plan, abort instanceof RunAbort ? abort : RunAbort.from(abort.signal), deps.timeoutMs);
  }
  const signal = abort.signal;
  const killed = () => signal.aborted && signal.reason === KILLED;
  try {
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
