/**
 * /wb (001 §2 "Reports and marketplace"; issue 23 "Marketplace"; docs/wb.md): every card of the seller
 * with the spec's columns (cards, orders and cancellations, sales, returns, before payout, sales sum,
 * returns sum, logistics, advertising) or the second variant's (ad spend, delivery cost, logistics,
 * storage, bought for amount, opened card, added to cart, ordered pieces, bought pieces, average orders
 * per day), for a range the operator picks (dateFrom, dateTo in the URL; the last 30 days by default),
 * with totals and sorting (sort, order in the URL). An empty list renders nothing. A row opens the
 * card's daily chart (orders, buyouts, ad spend) with its price forecast (`nm` in the URL). The page
 * reads the console's tables; admins start a sync of the range (wb.sync).
 */
import { lazy, memo, Suspense, useCallback, useMemo, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { useSearchParams } from 'react-router-dom';
import { Role, roleAllows } from '../../../contracts/roles.js';
import {
  WB_COLUMNS_MAIN, WB_COLUMNS_SECOND, WB_DEFAULT_DAYS, WB_MSG, wbAddDays, wbSortValue, wbToday,
  type WbBrain, type WbColumnKey, type WbItemChart, type WbReport, type WbReportItem, type WbTotals,
} from '../../../contracts/wb.js';
import { rpc } from '../../api/rpc.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { DateInput, isDayText } from '../../kit/fields.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { useQueryParam } from '../../kit/pagination.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { fmtCount, fmtRub } from './api.js';

const WbChart = lazy(() => import('./WbChart.js'));

type Row = WbReportItem | (WbTotals & { nmID?: undefined; title?: undefined; vendorCode?: undefined });

/** One cell of a column (the card column is drawn by the row). */
function cell(r: Row, key: WbColumnKey) {
  switch (key) {
    case 'orders': return <>{fmtCount(r.ordersCount)} <span className="text-secondary small">/ {fmtCount(r.cancelCount)}</span></>;
    case 'sales': return fmtCount(r.sell.count);
    case 'returns': return fmtCount(r.return.count);
    case 'ppvz_for_pay': return fmtRub(r.ppvz_for_pay);
    case 'sales_sum': return fmtRub(r.sell.retail_amount);
    case 'returns_sum': return fmtRub(r.return.retail_amount);
    case 'logistics': return fmtRub(r.delivery.amount);
    case 'ad': case 'ad_spend': return fmtRub(r.ad);
    case 'delivery_rub': return fmtRub(r.delivery_rub);
    case 'logistics_count': return <>{fmtCount(r.delivery.count_delivury)} <span className="text-secondary small">/ {fmtCount(r.delivery.count_return)} ({fmtCount(r.delivery.percent_return)}%)</span></>;
    case 'storage_fee': return fmtRub(r.storage_fee);
    case 'buyoutsSumRub': return fmtRub(r.buyoutsSumRub);
    case 'openCardCount': return fmtCount(r.openCardCount);
    case 'addToCartCount': return fmtCount(r.addToCartCount);
    case 'ordersCount': return fmtCount(r.ordersCount);
    case 'buyoutsCount': return fmtCount(r.buyoutsCount);
    case 'avgOrdersCountPerDay': return fmtCount(r.avgOrdersCountPerDay);
    case 'nmID': return null;
  }
}

const CardRow = memo(function CardRow({ r, columns, open, onOpen }: { r: WbReportItem; columns: typeof WB_COLUMNS_MAIN; open: boolean; onOpen: (nm: number) => void }) {
  return (
    <tr data-nm={r.nmID} role="button" tabIndex={0} className={open ? 'table-active' : ''} onClick={() => onOpen(r.nmID)}
      onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onOpen(r.nmID); } }}>
      {columns.map((c) => (c.key === 'nmID'
        ? <td key={c.key}><div className="fw-semibold">{r.nmID}</div><div className="small">{r.title}</div><div className="small text-secondary">{r.vendorCode}{r.stocks !== null ? ` · stock ${r.stocks}` : ''}</div></td>
        : <td key={c.key} className="text-end text-nowrap">{cell(r, c.key)}</td>))}
    </tr>
  );
});

/** The card's chart: the daily series of the range and the brain forecast (001 §7 item.getChartBrain). */
function CardChart({ nm, dateFrom, dateTo, onClose }: { nm: number; dateFrom: string; dateTo: string; onClose: () => void }) {
  const chart = useRpc('wb.Report.getItemChart', { nmID: nm, dateFrom, dateTo });
  const brain = useRpc('item.getChartBrain', { nmID: nm });
  const c = chart.data && chart.data.configured ? (chart.data as WbItemChart) : null;
  const b = brain.data && brain.data.configured ? (brain.data as WbBrain) : null;
  return (
    <Card className="mb-3" data-testid="wb-card-chart">
      <Card.Header className="d-flex align-items-center gap-2">
        <span className="fw-semibold">{nm}{c?.title ? `: ${c.title}` : ''}</span>
        <span className="small text-secondary">per day, {dateFrom} – {dateTo}</span>
        <Button size="sm" variant="outline-secondary" className="ms-auto" onClick={onClose}>Close</Button>
      </Card.Header>
      <Card.Body className="p-2">
        <ErrorAlert error={chart.error} onRetry={() => void chart.reload()} />
        {chart.loading && !c && <Loading text="Loading chart…" />}
        {c && <Suspense fallback={<Loading text="Loading chart…" />}><WbChart chart={c} brain={b} /></Suspense>}
        <div className="small text-secondary" data-testid="wb-brain-note">
          {brain.loading && !b && 'Training the price forecast…'}
          {brain.error && `Forecast: ${brain.error.message}`}
          {b && (b.model
            ? `Forecast of the paid price one day ahead from the ${b.step} days before (brain.js, ${b.model.samples} samples): on the ${b.model.held_out} held-out days it was off by ${fmtRub(b.model.mae)} ₽ on average (${fmtCount(b.model.mape)}%), against ${fmtRub(b.model.naive_mae)} ₽ for "same as yesterday".`
            : b.message)}
        </div>
      </Card.Body>
    </Card>
  );
}

export default function WbPage() {
  const today = wbToday();
  const defFrom = wbAddDays(today, -(WB_DEFAULT_DAYS - 1));
  const [dateFrom] = useQueryParam('dateFrom', defFrom);
  const [dateTo] = useQueryParam('dateTo', today);
  const [variant, setVariant] = useQueryParam('variant', '1');
  const [sortParam] = useQueryParam('sort', 'nmID');
  const [orderParam] = useQueryParam('order', 'asc');
  const [, setParams] = useSearchParams();
  const [nmParam, setNm] = useQueryParam('nm');
  const [fromDraft, setFromDraft] = useState(dateFrom);
  const [toDraft, setToDraft] = useState(dateTo);
  const session = useSession();
  const isAdmin = roleAllows(session?.role, Role.admin);
  const valid = isDayText(dateFrom) && isDayText(dateTo) && !!dateFrom && !!dateTo;
  const rep = useRpc('wb.Report.createReportItems', { dateFrom, dateTo }, { enabled: valid });
  const { run, busy } = useAction();
  const columns = variant === '2' ? WB_COLUMNS_SECOND : WB_COLUMNS_MAIN;
  const sortKey = (columns.some((c) => c.key === sortParam) ? sortParam : 'nmID') as WbColumnKey;
  const desc = orderParam === 'desc';
  const report = rep.data && rep.data.configured ? (rep.data as WbReport) : null;
  const notConfigured = rep.data && !rep.data.configured;
  const rows = useMemo(() => {
    if (!report) return [];
    const list = [...report.list];
    list.sort((a, b) => (wbSortValue(a, sortKey) - wbSortValue(b, sortKey)) * (desc ? -1 : 1) || a.nmID - b.nmID);
    return list;
  }, [report, sortKey, desc]);
  const nm = Number(nmParam) || 0;
  const onOpen = useCallback((n: number) => setNm(String(n), { keepPage: true }), [setNm]);

  const apply = () => {
    if (!isDayText(fromDraft) || !isDayText(toDraft) || !fromDraft || !toDraft) return;
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      next.set('dateFrom', fromDraft);
      next.set('dateTo', toDraft);
      return next;
    });
  };
  /** Sort and order change together in one URL update (two setters in a row would each start from the old URL). */
  const sortBy = (key: WbColumnKey) => {
    const order = key === sortKey ? (desc ? 'asc' : 'desc') : key === 'nmID' ? 'asc' : 'desc';
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      if (key === 'nmID') next.delete('sort'); else next.set('sort', key);
      if (order === 'asc') next.delete('order'); else next.set('order', order);
      return next;
    });
  };
  /** A sync waits for the finance report's pace (one call a minute past the first page): up to 15 minutes here. */
  const sync = () => run(() => rpc('wb.sync', { dateFrom, dateTo, force: 1 }, { timeoutMs: 15 * 60_000 }), WB_MSG.syncOk).then(() => rep.reload());

  return (
    <>
      <PageTitle
        title="Marketplace"
        actions={
          <div className="d-flex gap-2">
            <ButtonGroup size="sm" aria-label="Columns">
              <Button variant={variant === '2' ? 'outline-secondary' : 'secondary'} onClick={() => setVariant('1', { keepPage: true })}>Sales</Button>
              <Button variant={variant === '2' ? 'secondary' : 'outline-secondary'} onClick={() => setVariant('2', { keepPage: true })}>Funnel and costs</Button>
            </ButtonGroup>
            {isAdmin && <Button size="sm" variant="outline-primary" disabled={busy || !valid || !!notConfigured} onClick={() => void sync()}>{busy ? 'Syncing…' : 'Sync the range'}</Button>}
          </div>
        }
      />
      <Form className="d-flex flex-wrap gap-2 align-items-end mb-2" onSubmit={(e) => { e.preventDefault(); apply(); }} aria-label="Range">
        <Form.Group className="mb-2" controlId="wb-from"><Form.Label className="mb-1 small fw-semibold">From</Form.Label><DateInput id="wb-from" size="sm" value={fromDraft} onChange={setFromDraft} /></Form.Group>
        <Form.Group className="mb-2" controlId="wb-to"><Form.Label className="mb-1 small fw-semibold">To</Form.Label><DateInput id="wb-to" size="sm" value={toDraft} onChange={setToDraft} /></Form.Group>
        <Button type="submit" size="sm" className="mb-2">Show</Button>
      </Form>
      {notConfigured && <Alert variant="warning" data-testid="wb-not-configured">{WB_MSG.notConfigured}</Alert>}
      <ErrorAlert error={rep.error} onRetry={() => void rep.reload()} />
      {rep.loading && !rep.data && <Loading />}
      {report && (
        <div className="small mb-2" data-testid="wb-sync-state">
          {report.sync.synced
            ? <span className="text-secondary">Synced {fmtDateTime(report.sync.synced)} ({report.sync.dateFrom} – {report.sync.dateTo}){report.funnel_period ? `; funnel of ${report.funnel_period.dateFrom} – ${report.funnel_period.dateTo}` : '; no funnel for this range'}</span>
            : <span className="text-secondary">{WB_MSG.notSynced}</span>}
          {report.sync.stale && <Alert variant="warning" className="py-1 px-2 mt-1 mb-0" data-testid="wb-stale">The last sync failed: {report.sync.error}. The data shown is from {report.sync.synced ? fmtDateTime(report.sync.synced) : 'an earlier sync'}.</Alert>}
        </div>
      )}
      {report && nm > 0 && <CardChart key={`${nm}:${dateFrom}:${dateTo}`} nm={nm} dateFrom={dateFrom} dateTo={dateTo} onClose={() => setNm('', { keepPage: true })} />}
      {report && report.list.length > 0 && (
        <Card className="mb-3">
          <Card.Body className="p-0">
            <Table size="sm" hover responsive className="mb-0 align-middle app-wb-table" aria-label="Cards" data-testid="wb-table">
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th key={c.key} className={c.key === 'nmID' ? '' : 'text-end'} role="button" aria-sort={c.key === sortKey ? (desc ? 'descending' : 'ascending') : 'none'} onClick={() => sortBy(c.key)} data-col={c.key}>
                      {c.label}{c.key === sortKey ? (desc ? ' ▼' : ' ▲') : ''}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => <CardRow key={r.nmID} r={r} columns={columns} open={r.nmID === nm} onOpen={onOpen} />)}
              </tbody>
              <tfoot>
                <tr className="fw-semibold border-top" data-testid="wb-totals">
                  {columns.map((c) => (c.key === 'nmID'
                    ? <td key={c.key}>Total: {plural(report.totals.cards, 'card')}</td>
                    : <td key={c.key} className="text-end text-nowrap">{cell(report.totals, c.key)}</td>))}
                </tr>
              </tfoot>
            </Table>
          </Card.Body>
        </Card>
      )}
    </>
  );
}
