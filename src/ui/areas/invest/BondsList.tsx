/**
 * The screener (/invest/bounds_screener) and the closing bonds (/invest/bound_close): filters in the URL
 * (sort, order, riskLevel, currency, `p_`; `days` for the closing bonds), 15 a page (001 §9), the bond
 * table plus ytm (and the close date and kind), the catalogue's freshness, prices followed live.
 */
import { useCallback, useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router-dom';
import {
  INVEST_CURRENCY_FILTERS, INVEST_CURRENCY_LABELS, INVEST_DEFAULT_SORT, INVEST_NEXT_CLOSE_DAYS, INVEST_ROUTES, INVEST_SCREENER_PAGE, INVEST_SORT_LABELS,
  INVEST_SORT_ORDER, INVEST_SORTS, InvestNextCloseArgs, RISK_LEVEL_LABELS, RISK_LEVEL_NAMES, RISK_LEVELS, type InvestSort, type InvestUpdateEvent,
} from '../../../contracts/invest.js';
import { useRpc } from '../../api/index.js';
import { ErrorAlert, fmtDateTime, Loading, PageTitle, Pager, SelectField, TextField, usePageParam, useQueryParam, validate } from '../../kit/index.js';
import { applyPrices, useInvestLive } from './api.js';
import { BondTable, NotConfiguredNote, ytmColumn, type ExtraColumn } from './parts.js';

const closeColumn: ExtraColumn = {
  key: 'close', title: 'close date',
  render: (b) => (b.close_date ? <><div>{b.close_date}</div><div className="small text-muted">{b.close_kind}</div></> : '-'),
};

export function BondsList({ mode }: { mode: 'screener' | 'close' }) {
  const close = mode === 'close';
  const defaultSort: InvestSort = close ? 'close_date' : INVEST_DEFAULT_SORT;
  const [sort, setSort] = useQueryParam('sort', defaultSort);
  const [order, setOrder] = useQueryParam('order', '');
  const [riskLevel, setRisk] = useQueryParam('riskLevel', 'all');
  const [currency, setCurrency] = useQueryParam('currency', 'all');
  const [daysText, setDays] = useQueryParam('days', String(INVEST_NEXT_CLOSE_DAYS));
  const [daysInput, setDaysInput] = useState(daysText);
  useEffect(() => setDaysInput(daysText), [daysText]);
  const [daysError, setDaysError] = useState<string | undefined>();
  const [page, setPage] = usePageParam();

  const validSort = (INVEST_SORTS as readonly string[]).includes(sort) ? (sort as InvestSort) : defaultSort;
  const base = {
    sort: validSort, ...(order === 'asc' || order === 'desc' ? { order: order as 'asc' | 'desc' } : {}),
    riskLevel, currency, p_: page, limit: INVEST_SCREENER_PAGE,
  };
  const screener = useRpc('invest.Item.getBondsFilter', base, { enabled: !close });
  const closing = useRpc('invest.Item.getBondsNextClose', { ...base, days: Number(daysText) || INVEST_NEXT_CLOSE_DAYS }, { enabled: close });
  const q = close ? closing : screener;
  const data = q.data && q.data.configured ? q.data : undefined;
  const { setData } = q;
  const onUpdate = useCallback((e: InvestUpdateEvent) => {
    setData((prev) => (prev && prev.configured ? { ...prev, list: applyPrices(prev.list, e) } : prev));
  }, [setData]);
  useInvestLive(data ? data.list.map((b) => b.figi) : [], onUpdate);

  const applyDays = () => {
    const bad = validate(InvestNextCloseArgs, { days: daysInput.trim() });
    if (bad?.days) return setDaysError(bad.days);
    setDaysError(undefined);
    setDays(daysInput.trim());
  };

  return (
    <>
      <div className="mb-2"><Link to={INVEST_ROUTES.index}>← All accounts</Link></div>
      <PageTitle
        title={close ? 'Bonds closing soon' : 'Bonds screener'}
        actions={<Link className="btn btn-sm btn-outline-primary" to={close ? INVEST_ROUTES.screener : INVEST_ROUTES.close}>{close ? 'Bonds screener' : 'Bonds closing soon'}</Link>}
      />
      <Row className="g-2 align-items-end mb-2">
        <Col xs={6} md="auto">
          <SelectField name="sort" label="Sort" value={validSort} onChange={(v) => setSort(v)}
            options={INVEST_SORTS.map((s) => ({ value: s, label: INVEST_SORT_LABELS[s] }))} />
        </Col>
        <Col xs={6} md="auto">
          <SelectField name="order" label="Order" value={order} onChange={(v) => setOrder(v)}
            options={[{ value: '', label: `Natural (${INVEST_SORT_ORDER[validSort]})` }, { value: 'asc', label: 'Ascending' }, { value: 'desc', label: 'Descending' }]} />
        </Col>
        <Col xs={6} md="auto">
          <SelectField name="riskLevel" label="Risk level" value={riskLevel} onChange={(v) => setRisk(v)}
            options={[{ value: 'all', label: 'All' }, ...RISK_LEVELS.map((r) => ({ value: String(r), label: `${RISK_LEVEL_LABELS[r]} (${RISK_LEVEL_NAMES[r]})` }))]} />
        </Col>
        <Col xs={6} md="auto">
          <SelectField name="currency" label="Currency" value={currency} onChange={(v) => setCurrency(v)}
            options={INVEST_CURRENCY_FILTERS.map((c) => ({ value: c, label: INVEST_CURRENCY_LABELS[c] }))} />
        </Col>
        {close && (
          <Col xs={12} md="auto">
            <form className="d-flex align-items-end gap-2" onSubmit={(e) => { e.preventDefault(); applyDays(); }}>
              <TextField name="days" label="Within days" value={daysInput} onChange={(v) => { setDaysError(undefined); setDaysInput(v); }} error={daysError} />
              <Button type="submit" size="sm" className="mb-2">Apply</Button>
            </form>
          </Col>
        )}
      </Row>
      {q.error ? <ErrorAlert error={q.error} onRetry={q.reload} />
        : !q.data ? <Loading />
        : !q.data.configured ? <NotConfiguredNote />
        : (
          <>
            <div className="small text-muted mb-2" data-testid="invest-catalogue">
              Catalogue: {data!.ts_catalogue ? `refreshed ${fmtDateTime(data!.ts_catalogue)}` : 'not read yet (the refresh job fills it)'} · {data!.count} {data!.count === 1 ? 'bond' : 'bonds'}
              {close && ` whose maturity or offer falls within ${data!.days ?? INVEST_NEXT_CLOSE_DAYS} days`}
            </div>
            <BondTable bonds={data!.list} extra={close ? [ytmColumn, closeColumn] : [ytmColumn]} />
            <Pager page={page} count={data!.count} limit={INVEST_SCREENER_PAGE} onPage={setPage} loading={q.loading} />
          </>
        )}
    </>
  );
}
