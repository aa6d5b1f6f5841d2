/**
 * The AI report service (000 §7 `POST /py/ai/report {domain, data}` -> `{res}`) on loopback, over
 * test/helpers/fake-http.ts: answers `{res: {text: 'report for <domain>', addresses: <how many were
 * sent>}}`; tests script failures with `fake.script(AI_ROUTE, {status: 500, body: '...'}, {hold: true})`.
 */
import { startFakeHttp, type FakeHttp } from '../fake-http.js';

export const AI_ROUTE = 'POST /py/ai/report';

export async function startFakeAiReport(): Promise<FakeHttp> {
  return startFakeHttp({
    [AI_ROUTE]: (req) => ({ body: { res: { text: `report for ${req.json?.domain}`, addresses: req.json?.data?.addresses?.length ?? 0 } } }),
  });
}
