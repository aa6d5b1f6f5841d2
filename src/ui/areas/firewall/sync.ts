/**
 * The iptables sync from the UI (`srv/action.syncIptableRules`): one place that runs it and says how
 * it went with the messages of 000 §8 ('Iptables sync OK!!!' / 'Iptables sync ERROR!!!', the failing
 * nodes named). Used by the firewall screens' 'Sync now' and by the firewall toggle of the server map.
 */
import { FW_MESSAGES, type SyncResult } from '../../../contracts/firewall-rules.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { notify } from '../../kit/notify.js';
import { LONG_CALL_MS } from './api.js';

/** 'Iptables sync ERROR!!! proxy-2: connect ECONNREFUSED' for the failing nodes, or null when all went well. */
export function syncFailureText(r: SyncResult): string | null {
  const bad = r.nodes.filter((n) => !n.ok);
  if (!bad.length) return null;
  return `${FW_MESSAGES.syncError} ${bad.map((n) => `${n.name}: ${n.error ?? 'failed'}`).join('; ')}`;
}

/** Runs the sync and notifies; resolves the answer, or null when the call itself failed (also notified). */
export async function runSyncAndNotify(): Promise<SyncResult | null> {
  try {
    const r = await rpc('srv/action.syncIptableRules', {}, { timeoutMs: LONG_CALL_MS });
    const failed = syncFailureText(r);
    if (failed) notify.error(failed);
    else notify.success(FW_MESSAGES.syncOk);
    return r;
  } catch (e) {
    notify.error(`${FW_MESSAGES.syncError} ${errorText(e)}`);
    return null;
  }
}
