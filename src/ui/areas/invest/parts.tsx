/** Shared pieces of the investment screens: number formats, the bond table (001 §2 "Account screens"), notices. */
import type { ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Table from 'react-bootstrap/Table';
import {
  INVEST_BOND_COLUMNS, INVEST_MSG, nextCouponVariant, RISK_LEVEL_LABELS, RISK_LEVEL_NAMES, type InvestBond, type InvestTotals,
} from '../../../contracts/invest.js';
import { fmtDateTime } from '../../kit/index.js';

/** Money: 2 places, comma thousands separators; '-' for none. */
export function fmtMoney(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  return v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
/** A quantity or a percent: up to `max` places (no trailing zeros), comma thousands separators. */
export function fmtQty(v: number | null | undefined, max = 9): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  return v.toLocaleString('en-US', { maximumFractionDigits: max });
}
export const fmtPercent = (v: number | null | undefined, places = 2) => (v === null || v === undefined ? '-' : `${v.toLocaleString('en-US', { minimumFractionDigits: places, maximumFractionDigits: places })}\u00a0%`);
const cur = (c: string) => c.toUpperCase();
const days = (n: number) => `${n} ${Math.abs(n) === 1 ? 'day' : 'days'}`;

/** The plain "not configured" notice (docs/invest.md "Not configured"). */
export function NotConfiguredNote() {
  return <Alert variant="warning" data-testid="invest-not-configured">{INVEST_MSG.notConfigured}</Alert>;
}

/** Stale data (a failed refresh answered the last good read), the read time and the notes. */
export function PortfolioNotices({ fetched, stale, error, notes }: { fetched: string | null; stale: boolean; error?: string; notes: string[] }) {
  return (
    <>
      {(stale || error) && (
        <Alert variant="warning" data-testid="invest-stale">
          {stale ? 'Stale data: the broker could not be read again; shown as read' : 'The broker answered with an error'}
          {fetched ? ` at ${fmtDateTime(fetched)}` : ''}.{error ? ` ${error}` : ''}
        </Alert>
      )}
      {notes.length > 0 && (
        <Alert variant="info" className="small py-2" data-testid="invest-notes">
          <ul className="mb-0 ps-3">{notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
        </Alert>
      )}
    </>
  );
}

export function BondMarks({ b }: { b: InvestBond }) {
  return (
    <>
      {b.data.floatingCouponFlag && <Badge bg="info" className="ms-1" title={INVEST_MSG.floating}>floating</Badge>}
      {b.data.amortizationFlag && <Badge bg="secondary" className="ms-1" title={INVEST_MSG.amortising}>amortising</Badge>}
      {b.data.forQualInvestorFlag && <Badge bg="dark" className="ms-1" title="For qualified investors">qual</Badge>}
      {b.data.perpetualFlag && <Badge bg="dark" className="ms-1">perpetual</Badge>}
      {!b.known && <Badge bg="warning" text="dark" className="ms-1" title={INVEST_MSG.notInCatalogue}>not in catalogue</Badge>}
    </>
  );
}

export interface ExtraColumn {
  title: string;
  key: string;
  render: (b: InvestBond) => ReactNode;
}

/** The ytm column of the screener: '≈' when approximate (estimated coupons, amortising). */
export const ytmColumn: ExtraColumn = {
  key: 'ytm', title: 'ytm',
  render: (b) => (b.ytm === null ? '-' : <span className="text-nowrap" title={b.ytm_approx ? 'Approximate: estimated coupons or amortising' : undefined}>{b.ytm_approx ? '≈ ' : ''}{fmtPercent(b.ytm)}</span>),
};

/**
 * The bond table: INVEST_BOND_COLUMNS in order with their labels, then `extra` columns; the next-coupon
 * cell is coloured by nextCouponVariant (red under 10 days, green under 30) and carries `data-variant`.
 */
export function BondTable({ bonds, totals, extra = [], showQuantity = true, rowAction }: {
  bonds: InvestBond[];
  totals?: InvestTotals;
  extra?: ExtraColumn[];
  showQuantity?: boolean;
  rowAction?: (b: InvestBond) => ReactNode;
}) {
  const cols = INVEST_BOND_COLUMNS.filter((c) => showQuantity || c.key !== 'quantity');
  const cell = (b: InvestBond, key: (typeof INVEST_BOND_COLUMNS)[number]['key']): ReactNode => {
    switch (key) {
      case 'name':
        return (
          <>
            <div className="fw-semibold">{b.name || b.ticker}<BondMarks b={b} /></div>
            <div className="small text-muted">{b.ticker} · {b.figi}</div>
          </>
        );
      case 'riskLevel':
        return <span title={RISK_LEVEL_NAMES[b.riskLevel]}>{RISK_LEVEL_LABELS[b.riskLevel]}</span>;
      case 'year_payments':
        return b.year_payments.count ? (
          <>
            <div>{b.year_payments.count} · {fmtMoney(b.year_payments.per_bond)} per bond</div>
            <div className="small text-muted">{b.year_payments.total !== null ? `${fmtMoney(b.year_payments.total)} ${cur(b.currency)}` : ''}</div>
          </>
        ) : '-';
      case 'price':
        return (
          <>
            <div>{fmtMoney(b.nominal)} / {b.price === null ? INVEST_MSG.noPrice : fmtMoney(b.price)} {cur(b.currency)}</div>
            <div className="small"><span className="text-muted">{b.lastPrice === null ? '' : `${fmtQty(b.lastPrice)} % · `}</span>
              <span className={b.diff_percent === null ? '' : b.diff_percent < 0 ? 'text-danger' : 'text-success'}>{b.diff_percent === null ? '-' : `${b.diff_percent > 0 ? '+' : ''}${fmtQty(b.diff_percent, 3)} %`}</span>
            </div>
          </>
        );
      case 'coupon_percent':
        return fmtPercent(b.coupon_percent);
      case 'updated':
        return (
          <div className="small">
            <div title="info">{fmtDateTime(b.ts_update_info) || '-'}</div>
            <div title="coupons" className="text-muted">{fmtDateTime(b.ts_update_coupon) || '-'}</div>
          </div>
        );
      case 'maturity':
        return b.data.maturityDate ? (
          <>
            <div>{b.data.maturityDate}</div>
            {b.maturity_days !== null && <div className="small text-muted">{days(b.maturity_days)}</div>}
            {b.data.callDate && <div className="small text-muted">offer {b.data.callDate}</div>}
          </>
        ) : '-';
      case 'next_coupon':
        return b.next_coupon ? (
          <>
            <div>{b.next_coupon.date}</div>
            <div className="small">{fmtMoney(b.next_coupon.value)}{b.next_coupon.estimated ? ' (estimated)' : ''} · in {days(b.next_coupon.days)}</div>
          </>
        ) : '-';
      case 'last_coupon':
        return b.last_coupon ? (
          <>
            <div>{b.last_coupon.date}</div>
            <div className="small text-muted">{fmtMoney(b.last_coupon.value)}</div>
          </>
        ) : '-';
      case 'quantity':
        return b.position ? fmtQty(b.position.quantity) : '-';
    }
  };
  const span = cols.length + extra.length + (rowAction ? 1 : 0);
  return (
    <Table responsive size="sm" hover className="align-middle small" data-testid="invest-bonds">
      <thead>
        <tr>
          {cols.map((c) => <th key={c.key} data-col={c.key}>{c.label}</th>)}
          {extra.map((c) => <th key={c.key} data-col={c.key}>{c.title}</th>)}
          {rowAction && <th />}
        </tr>
      </thead>
      <tbody>
        {bonds.length === 0 && (
          <tr><td colSpan={span} className="text-center text-muted py-3">No bonds</td></tr>
        )}
        {bonds.map((b, i) => {
          const variant = nextCouponVariant(b.next_coupon?.days);
          return (
            <tr key={`${b.figi}-${i}`} data-figi={b.figi} data-ticker={b.ticker} className={b.known ? undefined : 'table-warning'}>
              {cols.map((c) => (
                <td key={c.key} data-col={c.key} {...(c.key === 'next_coupon' ? { 'data-variant': variant || 'none', className: variant ? `table-${variant}` : undefined } : {})}>
                  {cell(b, c.key)}
                </td>
              ))}
              {extra.map((c) => <td key={c.key} data-col={c.key}>{c.render(b)}</td>)}
              {rowAction && <td className="text-end text-nowrap">{rowAction(b)}</td>}
            </tr>
          );
        })}
      </tbody>
      {totals && (
        <tfoot>
          <tr className="fw-semibold" data-testid="invest-totals">
            {cols.map((c) => (
              <td key={c.key}>
                {c.key === 'name' && `Total: ${totals.bonds} ${totals.bonds === 1 ? 'bond' : 'bonds'}`}
                {c.key === 'year_payments' && `${fmtMoney(totals.year_payments_rub)} RUB`}
                {c.key === 'price' && <>{fmtMoney(totals.value_rub)} RUB{totals.missing > 0 && <div className="small text-muted fw-normal">{totals.missing} left out (no price or rate)</div>}</>}
                {c.key === 'quantity' && fmtQty(totals.quantity)}
              </td>
            ))}
            {extra.map((c) => <td key={c.key} />)}
            {rowAction && <td />}
          </tr>
        </tfoot>
      )}
    </Table>
  );
}
