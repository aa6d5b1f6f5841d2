/**
 * /invest/account/:id/model (broker ids, 'sample', 'local:N'): the coupon forecast (001 §5) with the
 * portfolio size input (default 30,000,000; empty = the quantities held; kept in `?size=`), the yearly
 * and monthly sums, the bonds with their marks, and the calendar month by month (a Highcharts column
 * chart of the month totals, the events of a month on demand) with the .ics export.
 */
import { Fragment, useCallback, useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { INVEST_FORECAST_DEFAULT_SIZE, INVEST_MSG, INVEST_ROUTES, InvestForecastArgs, localIdOf, type InvestCalendar, type InvestForecast } from '../../../contracts/invest.js';
import { useRpc } from '../../api/index.js';
import { ErrorAlert, Loading, PageTitle, TextField, useAction, validate } from '../../kit/index.js';
import { downloadIcs } from './api.js';
import CalendarChart from './CalendarChart.js';
import { fmtMoney, fmtPercent, fmtQty, NotConfiguredNote } from './parts.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The size of the URL: absent -> the default; `size=` (empty) -> the quantities held. */
function useSizeParam(): [string, (v: string) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get('size');
  const value = raw === null ? String(INVEST_FORECAST_DEFAULT_SIZE) : raw;
  const set = useCallback((v: string) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    if (v === String(INVEST_FORECAST_DEFAULT_SIZE)) next.delete('size');
    else next.set('size', v);
    return next;
  }), [setParams]);
  return [value, set];
}

function ForecastView({ f }: { f: InvestForecast }) {
  return (
    <>
      <div className="mb-2" data-testid="invest-forecast-total">
        Total: <b>{fmtMoney(f.total)} RUB</b> · portfolio value {fmtMoney(f.value_rub)} RUB{f.scale !== null ? ` · quantities x ${fmtQty(f.scale, 6)}` : ' · quantities held'} · from {f.from_year}
      </div>
      {f.notes.length > 0 && <ul className="small text-muted">{f.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>}
      <Row xs={1} md={2} xl={3} className="g-2 mb-3">
        {f.years.map((y) => (
          <Col key={y.year}>
            <Card data-year={y.year}>
              <Card.Header className="d-flex"><span className="me-auto fw-semibold">{y.year}</span><span data-testid="invest-year-sum">{fmtMoney(y.sum)} RUB</span></Card.Header>
              <Table size="sm" className="mb-0 small">
                <tbody>
                  {y.months.map((m) => (
                    <tr key={m.month} className={m.sum ? undefined : 'text-muted'}>
                      <td>{MONTHS[Number(m.month.slice(5)) - 1]}</td>
                      <td className="text-end" data-month={m.month}>{fmtMoney(m.sum)}</td>
                      <td className="text-end text-muted">{m.count ? `${m.count} ${m.count === 1 ? 'coupon' : 'coupons'}` : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card>
          </Col>
        ))}
      </Row>
      <h6>Bonds</h6>
      <Table size="sm" responsive className="small align-middle" data-testid="invest-forecast-bonds">
        <thead><tr><th>Bond</th><th>Coupon percent</th><th>Held</th><th>Counted</th><th>Sum, RUB</th><th>Included</th></tr></thead>
        <tbody>
          {f.bonds.map((b) => (
            <tr key={b.figi} className={b.included ? undefined : 'text-muted'}>
              <td>
                {b.name || b.ticker} <span className="text-muted">{b.ticker}</span>
                {b.floating && <Badge bg="info" className="ms-1" title={INVEST_MSG.floating}>floating</Badge>}
                {b.amortization && <Badge bg="secondary" className="ms-1" title={INVEST_MSG.amortising}>amortising</Badge>}
                {b.estimated && <Badge bg="light" text="dark" className="ms-1">estimated</Badge>}
              </td>
              <td>{fmtPercent(b.coupon_percent)}</td>
              <td>{fmtQty(b.held)}</td>
              <td>{fmtQty(b.quantity, 4)}</td>
              <td>{fmtMoney(b.sum)}</td>
              <td>{b.included ? 'yes' : 'no'}{b.reason && <div className="text-muted">{b.reason}</div>}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}

function CalendarView({ c }: { c: InvestCalendar }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = useCallback((m: string) => setOpen((s) => {
    const n = new Set(s);
    if (n.has(m)) n.delete(m); else n.add(m);
    return n;
  }), []);
  const months = c.months.filter((m) => m.events.length > 0);
  return (
    <>
      <div className="small mb-2">
        {c.from} – {c.to} · coupons {fmtMoney(c.totals.coupons)} RUB · maturities {fmtMoney(c.totals.maturities)} RUB · total {fmtMoney(c.totals.total)} RUB
      </div>
      {c.months.length > 0 && <CalendarChart months={c.months} onPick={toggle} />}
      <Table size="sm" responsive className="small mt-2" data-testid="invest-calendar">
        <thead><tr><th>Month</th><th className="text-end">Coupons</th><th className="text-end">Maturities</th><th className="text-end">Total</th><th>Events</th></tr></thead>
        <tbody>
          {months.map((m) => (
            <Fragment key={m.month}>
              <tr data-cal-month={m.month}>
                <td>{m.month}</td>
                <td className="text-end">{fmtMoney(m.coupons)}</td>
                <td className="text-end">{fmtMoney(m.maturities)}</td>
                <td className="text-end fw-semibold">{fmtMoney(m.total)}</td>
                <td>
                  <Button size="sm" variant="link" className="p-0" aria-expanded={open.has(m.month)} onClick={() => toggle(m.month)}>
                    {m.events.length} {m.events.length === 1 ? 'event' : 'events'} {open.has(m.month) ? '▲' : '▼'}
                  </Button>
                </td>
              </tr>
              {open.has(m.month) && (
                <tr>
                  <td colSpan={5} className="bg-body-tertiary">
                    <Table size="sm" className="mb-0 small">
                      <tbody>
                        {m.events.map((e, i) => (
                          <tr key={i}>
                            <td>{e.date}</td>
                            <td>{e.kind}{e.number !== null ? ` #${e.number}` : ''}{e.estimated ? ' (estimated)' : ''}</td>
                            <td>{e.name || e.ticker} <span className="text-muted">{e.ticker}</span></td>
                            <td className="text-end">{fmtQty(e.quantity, 4)} x {fmtMoney(e.per_bond)} {e.currency.toUpperCase()}</td>
                            <td className="text-end">{e.amount_rub === null ? '-' : `${fmtMoney(e.amount_rub)} RUB`}</td>
                          </tr>
                        ))}
                      </tbody>
                    </Table>
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </Table>
      {c.notes.length > 0 && <ul className="small text-muted">{c.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>}
    </>
  );
}

export default function ModelPage() {
  const accountId = useParams().id ?? '';
  const [sizeText, setSize] = useSizeParam();
  const [input, setInput] = useState(sizeText);
  useEffect(() => setInput(sizeText), [sizeText]);
  const [error, setError] = useState<string | undefined>();
  const size = sizeText.trim() === '' ? undefined : Number(sizeText.replace(/[\s,]/g, ''));
  const sizeOk = size === undefined || (Number.isInteger(size) && size >= 1);
  const args = { accountId, ...(size !== undefined && sizeOk ? { size } : {}) };
  const forecast = useRpc('invest.Item.getForecast', args, { enabled: sizeOk });
  const calendar = useRpc('invest.Item.getCalendar', args, { enabled: sizeOk });
  const { run, busy } = useAction();

  const apply = () => {
    const v = input.replace(/[\s,]/g, '');
    const bad = v === '' ? null : validate(InvestForecastArgs, { accountId, size: v });
    if (bad?.size) return setError(bad.size);
    setError(undefined);
    setSize(v);
  };
  const back = localIdOf(accountId) ? INVEST_ROUTES.local(localIdOf(accountId)!) : INVEST_ROUTES.account(accountId);
  const name = forecast.data?.configured ? forecast.data.name : accountId;

  return (
    <>
      <div className="mb-2"><Link to={INVEST_ROUTES.index}>← All accounts</Link> · <Link to={back}>{name}</Link></div>
      <PageTitle
        title={`Coupon forecast: ${name}`}
        actions={<Button size="sm" variant="outline-primary" disabled={busy || !sizeOk} onClick={() => void run(() => downloadIcs(accountId, sizeOk ? size : undefined))}>Download .ics</Button>}
      />
      <form className="d-flex align-items-end gap-2 mb-3" onSubmit={(e) => { e.preventDefault(); apply(); }}>
        <TextField name="size" label="Portfolio size, RUB" value={input} onChange={(v) => { setError(undefined); setInput(v); }} error={error ?? (sizeOk ? undefined : 'size must be a whole number of rubles')}
          help="Empty: the quantities held" className="mb-0" />
        <Button type="submit" size="sm" className="mb-4">Apply</Button>
      </form>
      {forecast.error ? <ErrorAlert error={forecast.error} onRetry={forecast.reload} />
        : !sizeOk ? null
        : !forecast.data ? <Loading />
        : !forecast.data.configured ? <NotConfiguredNote />
        : <ForecastView f={forecast.data} />}
      <h5 className="mt-3">Calendar</h5>
      {calendar.error ? <ErrorAlert error={calendar.error} onRetry={calendar.reload} />
        : !sizeOk ? null
        : !calendar.data ? <Loading />
        : !calendar.data.configured ? null
        : <CalendarView c={calendar.data} />}
    </>
  );
}
