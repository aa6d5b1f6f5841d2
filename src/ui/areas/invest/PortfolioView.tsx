/**
 * One account's bonds (broker, local or the sample): the bond table with totals, notices, and live
 * prices: subscribed over the socket with the figis shown, prices applied in place, the portfolio read
 * again when an update names a shown bond's coupons (docs/invest.md "Live updates").
 */
import { useCallback, type ReactNode } from 'react';
import type { InvestBond, InvestUpdateEvent } from '../../../contracts/invest.js';
import { useRpc, useSocketResync } from '../../api/index.js';
import { ErrorAlert, fmtDateTime, Loading } from '../../kit/index.js';
import { applyPrices, useInvestLive } from './api.js';
import { BondTable, NotConfiguredNote, PortfolioNotices } from './parts.js';

export function usePortfolio(accountId: string) {
  const p = useRpc('invest.User.getPortfolio', { accountId });
  const data = p.data && p.data.configured ? p.data : undefined;
  const figis = data ? data.bonds.filter((b) => b.known).map((b) => b.figi) : [];
  const { setData, reload } = p;
  const onUpdate = useCallback((e: InvestUpdateEvent) => {
    if (e.coupons.length && data?.bonds.some((b) => e.coupons.includes(b.figi))) {
      void reload();
      return;
    }
    setData((prev) => (prev && prev.configured ? { ...prev, bonds: applyPrices(prev.bonds, e) } : prev));
  }, [data, reload, setData]);
  useInvestLive(figis, onUpdate);
  useSocketResync(() => void reload());
  return p;
}

export function PortfolioView({ accountId, rowAction, header }: { accountId: string; rowAction?: (b: InvestBond) => ReactNode; header?: (name: string) => ReactNode }) {
  const p = usePortfolio(accountId);
  if (p.error) return <ErrorAlert error={p.error} onRetry={p.reload} />;
  if (!p.data) return <Loading />;
  if (!p.data.configured) return <NotConfiguredNote />;
  const d = p.data;
  return (
    <>
      {header?.(d.name)}
      <PortfolioNotices fetched={d.fetched} stale={d.stale} error={d.error} notes={d.notes} />
      {d.fetched && !d.stale && <div className="small text-muted mb-2">Read from the broker at {fmtDateTime(d.fetched)}</div>}
      {d.other_positions && Object.keys(d.other_positions).length > 0 && (
        <div className="small text-muted mb-2">Other positions (not bonds): {Object.entries(d.other_positions).map(([k, n]) => `${k} ${n}`).join(', ')}</div>
      )}
      <BondTable bonds={d.bonds} totals={d.totals} rowAction={rowAction} />
    </>
  );
}
