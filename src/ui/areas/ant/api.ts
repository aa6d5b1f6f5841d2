/** The operator's ant messages (001 §7 "Realtime (ant)") over the session socket: each answers the session envelope. */
import type { AntOperatorMessage, AntOperatorMessages } from '../../../contracts/ant.js';
import type { Envelope } from '../../../contracts/envelope.js';
import { ApiError, errorText } from '../../api/http.js';
import { request } from '../../api/socket.js';
import { notify } from '../../kit/notify.js';
import { commandOutcome } from './model.js';

type Args<M extends AntOperatorMessage> = AntOperatorMessages[M]['args'];
type Res<M extends AntOperatorMessage> = AntOperatorMessages[M]['result'];

/** Sends one operator message and waits for its acknowledgement: the result, or ApiError (the envelope's message, or 'Time wait end'). */
export async function antAsk<M extends AntOperatorMessage>(message: M, payload?: Args<M>, timeoutMs?: number): Promise<Res<M>> {
  const env = await request<Envelope<Res<M>>>(message, payload ?? {}, timeoutMs);
  if (!env || typeof env !== 'object') throw new ApiError({ status: 'error', message: `${message}: no answer` });
  if (env.status === 'ok') return env.result;
  throw new ApiError(env);
}

/**
 * Runs one command and shows its answer (a notification: the ant's message, or `describe` of the
 * result) or its error/time-out. Resolves the result when it succeeded (every ant answered ok), else undefined.
 */
export async function antCommand<M extends AntOperatorMessage>(
  message: M, payload: Args<M>, label: string, describe?: (r: Res<M>) => string,
): Promise<Res<M> | undefined> {
  try {
    const r = await antAsk(message, payload);
    const o = commandOutcome(r);
    const text = describe ? describe(r) : o.text;
    if (o.ok) notify.success(`${label}: ${text}`);
    else notify.error(`${label}: ${text}`);
    return o.ok ? r : undefined;
  } catch (e) {
    notify.error(`${label}: ${errorText(e)}`);
    return undefined;
  }
}
