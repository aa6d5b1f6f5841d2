/** Typed calls of the investments area (001 §7 invest.*; docs/invest.md): RPC methods, the .ics download, the live channel. */
import { useEffect, useRef } from 'react';
import type {
  InvestAccount, InvestBondsPage, InvestCalendar, InvestForecast, InvestLocalAccount, InvestLocalAccountDetail, InvestPortfolio, InvestSort,
  InvestStatus, InvestSubscribeAnswer, InvestUpdateEvent,
} from '../../../contracts/invest.js';
import type { NotConfigured } from '../../../contracts/outside.js';
import { type Result } from '../../api/http.js';
import { downloadFile } from '../../api/rest.js';
import { emit, request, useSocketEvent, useSocketStatus } from '../../api/socket.js';

export interface ScreenerArgs {
  sort?: InvestSort;
  order?: 'asc' | 'desc';
  riskLevel?: string;
  currency?: string;
  p_?: number;
  limit?: number;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'invest.getStatus': { args: Record<string, never>; result: InvestStatus };
    'invest.User.getAccounts': { args: Record<string, never>; result: InvestAccount[] | NotConfigured };
    'invest.User.getPortfolio': { args: { accountId: string; joinCoupon?: 0 | 1 }; result: InvestPortfolio | NotConfigured };
    'invest.User.getLocalAccounts': { args: Record<string, never>; result: InvestLocalAccount[] };
    'invest.User.getLocalAccount': { args: { Id: number }; result: InvestLocalAccountDetail };
    'invest.User.saveLocalAccount': { args: { Id?: number; name: string }; result: { Id: number; accountId: string; message: string } };
    'invest.User.deleteLocalAccount': { args: { Id: number }; result: { Id: number; removed: number; message: string } };
    'invest.User.savePosition': {
      args: { Id?: number; Id_account: number; ticker?: string; figi?: string; quantity: string; price?: string };
      result: { Id: number; resolved: boolean; figi: string; ticker: string; message: string };
    };
    'invest.User.deletePosition': { args: { Id: number }; result: { Id: number; message: string } };
    'invest.Item.getForecast': { args: { accountId: string; size?: number }; result: InvestForecast | NotConfigured };
    'invest.Item.getCalendar': { args: { accountId: string; size?: number; from?: string; to?: string }; result: InvestCalendar | NotConfigured };
    'invest.Item.getBondsFilter': { args: ScreenerArgs; result: InvestBondsPage | NotConfigured };
    'invest.Item.getBondsNextClose': { args: ScreenerArgs & { days?: number }; result: InvestBondsPage | NotConfigured };
    'invest.Item.refresh': { args: Record<string, never>; result: { started: boolean; message: string } | NotConfigured };
  }
}

/** GET /api/invest/calendar.ics as a file the browser saves. */
export async function downloadIcs(accountId: string, size: number | undefined): Promise<void> {
  await downloadFile('/invest/calendar.ics', { accountId, size }, {
    fallbackName: 'invest-calendar.ics',
    type: 'text/calendar',
    messageOf: (env) => ((env.result as { configured?: boolean } | undefined)?.configured === false ? 'The broker is not configured' : undefined),
  });
}

/**
 * The investment pattern channel (docs/invest.md "Live updates"): subscribes with the bonds a page shows
 * while it is open (again after a reconnect: the server forgets a socket's subscriptions when it goes
 * away) and hands each `invest.update` of that subscription to `onUpdate`; unsubscribes on leave.
 */
export function useInvestLive(figis: string[], onUpdate: (e: InvestUpdateEvent) => void): void {
  const key = [...new Set(figis)].sort().join(',');
  const sidRef = useRef<string | null>(null);
  const status = useSocketStatus();
  useEffect(() => {
    if (!key || status !== 'connected') return;
    let closed = false;
    let sid: string | null = null;
    request<Result<InvestSubscribeAnswer>>('invest.subscribe', { figis: key.split(',') })
      .then((env) => {
        if (env.status !== 'ok') return;
        sid = env.result.sid;
        if (closed) emit('invest.unsubscribe', { sid });
        else sidRef.current = sid;
      })
      .catch(() => undefined);
    return () => {
      closed = true;
      sidRef.current = null;
      if (sid) emit('invest.unsubscribe', { sid });
    };
  }, [key, status]);
  useSocketEvent('invest.update', (e) => {
    if (e.sid && e.sid === sidRef.current) onUpdate(e);
  });
}

/** Applies the prices of an `invest.update` to the bonds shown (in place: same order, other fields kept). */
export function applyPrices<B extends { figi: string }>(bonds: B[], e: InvestUpdateEvent): B[] {
  if (!e.prices.length) return bonds;
  const by = new Map(e.prices.map((p) => [p.figi, p]));
  return bonds.map((b) => {
    const p = by.get(b.figi);
    if (!p) return b;
    const { figi: _f, ...rest } = p;
    return { ...b, ...rest };
  });
}
