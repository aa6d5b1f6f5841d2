import { lazy, Suspense, useCallback, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { Link, useParams } from 'react-router-dom';
import { MONEY_MSG, MONEY_PAGE, MONEY_REPORT_DAYS, splitTags, type MoneyGroup, type MoneyReport, type MoneyType } from '../../../contracts/money.js';
import { useRpc } from '../../api/hooks.js';
import { DateInput, isDayText, SelectField } from '../../kit/fields.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, useQueryParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import type { TxQuery } from './api.js';
import { daysAgo, fmtMoney, localDay, signed, TagInput, Tags, TypeBadge } from './parts.js';

const ReportChart = lazy(() => import('./ReportChart.js'));

/** What the list under the chart shows: a bar (period and type) or a tag row. */
interface Pick { label: string; query: TxQuery }

/** The transactions behind a bar or a tag of the report. */
function Behind({ bid, pick }: { bid: number; pick: Pick }) {
  const [page, setPage] = useState(1);
  const txs = useRpc('money.getTransactions', { bid, p_: page, limit: MONEY_PAGE, ...pick.query });
  return (
    <Card className="mb-3" data-testid="money-behind">
      <Card.Header className="fw-semibold">Transactions: {pick.label}{txs.data ? ` · ${plural(txs.data.count, 'transaction')}` : ''}</Card.Header>
      <Card.Body className="p-2">
        <ErrorAlert error={txs.error} onRetry={() => void txs.reload()} />
        {txs.loading && !txs.data && <Loading />}
        {txs.data && (
          <>
            <Table size="sm" responsive className="mb-2 align-middle">
              <tbody>
                {txs.data.list.map((x) => (
                  <tr key={x.trid} data-trid={x.trid}>
                    <td style={{ width: 100 }}>{x.time_set}</td>
                    <td style={{ width: 90 }}><TypeBadge type={x.type} /></td>
                    <td className={`app-money-amount ${x.type === 1 ? 'income' : 'expense'}`} style={{ width: 140 }}>{signed(x.type, x.val)}</td>
                    <td><Tags tags={x.tags} /></td>
                    <td className="app-money-desc small">{x.description}</td>
                    <td className="text-end"><Link className="btn btn-sm btn-outline-secondary" to={`/money/box/${bid}/edit_transaction/${x.trid}`}>Edit</Link></td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <Pager page={page} count={txs.data.count} limit={MONEY_PAGE} onPage={setPage} loading={txs.loading} />
          </>
        )}
      </Card.Body>
    </Card>
  );
}

/**
 * /money/report/{bid} (001 §2 "tags filter, date filter, total"; §9 the start defaults to 30 days ago;
 * issue 21 "Report"): income, expense and total for the range per day or month (a Highcharts column
 * chart with the box's balance line) and per tag (each tag's share of the income and the expense; the
 * shares overlap since a transaction with several tags counts under each, and once in the total).
 * Clicking a bar or a tag lists the transactions behind it. Filters live in the URL.
 */
export default function ReportPage() {
  const bid = Number(useParams().bid);
  const [from, setFrom] = useQueryParam('from', daysAgo(MONEY_REPORT_DAYS));
  const [to, setTo] = useQueryParam('to', localDay());
  const [tagsParam, setTags] = useQueryParam('tags');
  const [groupParam, setGroup] = useQueryParam('group');
  const [fromDraft, setFromDraft] = useState(from);
  const [toDraft, setToDraft] = useState(to);
  const [tagDraft, setTagDraft] = useState(tagsParam.split(',').filter(Boolean).join(', '));
  const [pick, setPick] = useState<Pick | null>(null);
  const tags = splitTags(tagsParam);
  const group = groupParam === 'day' || groupParam === 'month' ? (groupParam as MoneyGroup) : undefined;
  const box = useRpc('money.getBox', { bid }, { enabled: bid > 0 });
  const rep = useRpc('money.getReport', { bid, from, to, ...(tags.length ? { tags } : {}), ...(group ? { group } : {}) }, { enabled: bid > 0 && isDayText(from) && isDayText(to) });
  const r: MoneyReport | undefined = rep.data;
  const tagFilter = tags.length ? { tags } : {};

  const onPick = useCallback((i: number, type: MoneyType) => {
    const p = r?.periods[i];
    if (!p) return;
    setPick({ label: `${type === 1 ? 'income' : 'expense'} ${p.from === p.to ? p.from : `${p.from} – ${p.to}`}`, query: { from: p.from, to: p.to, type, ...tagFilter } });
  }, [r, tagsParam]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = () => {
    if (!isDayText(fromDraft) || !isDayText(toDraft) || !fromDraft || !toDraft) return;
    setFrom(fromDraft);
    setTo(toDraft);
    setTags(splitTags(tagDraft).join(','));
    setPick(null);
  };

  if (!(bid > 0)) return <><PageTitle title="Report" /><EmptyState text={MONEY_MSG.boxNotFound} /></>;
  if (box.error) return <><PageTitle title="Report" /><ErrorAlert error={box.error} /><Link to="/money">Box list</Link></>;

  return (
    <>
      <PageTitle
        title={`Report${box.data ? `: ${box.data.title}` : ''}`}
        actions={<div className="d-flex gap-1"><Link className="btn btn-sm btn-outline-secondary" to="/money">Box list</Link><Link className="btn btn-sm btn-outline-primary" to={`/money/box/${bid}`}>Box</Link></div>}
      />
      <Form className="d-flex flex-wrap gap-2 align-items-end mb-3" onSubmit={(e) => { e.preventDefault(); apply(); }} aria-label="Report filter">
        <Form.Group className="mb-2" controlId="f-from"><Form.Label className="mb-1 small fw-semibold">From</Form.Label><DateInput id="f-from" size="sm" value={fromDraft} onChange={setFromDraft} aria-label="From" /></Form.Group>
        <Form.Group className="mb-2" controlId="f-to"><Form.Label className="mb-1 small fw-semibold">To</Form.Label><DateInput id="f-to" size="sm" value={toDraft} onChange={setToDraft} aria-label="To" /></Form.Group>
        <div style={{ minWidth: 240 }}><TagInput name="report_tags" label="Tags (any of)" size="sm" value={tagDraft} onChange={setTagDraft} bid={bid} placeholder="all transactions" /></div>
        <SelectField name="group" size="sm" label="Per" value={groupParam} onChange={(x) => { setGroup(x); setPick(null); }} options={[{ value: '', label: 'auto' }, { value: 'day', label: 'day' }, { value: 'month', label: 'month' }]} />
        <Button type="submit" size="sm" className="mb-2">Show</Button>
      </Form>
      <ErrorAlert error={rep.error} onRetry={() => void rep.reload()} />
      {rep.loading && !r && <Loading />}
      {r && (
        <>
          <div className="d-flex flex-wrap gap-3 mb-3 app-money-totals" data-testid="money-totals">
            <div><div className="small text-secondary">Income</div><div className="value text-success">{fmtMoney(r.totals.income)}</div></div>
            <div><div className="small text-secondary">Expense</div><div className="value text-danger">{fmtMoney(r.totals.expense)}</div></div>
            <div><div className="small text-secondary">Total</div><div className="value">{fmtMoney(r.totals.total)}</div></div>
            <div><div className="small text-secondary">Transactions</div><div className="value">{r.totals.count}</div></div>
            <div><div className="small text-secondary">Balance {r.from} → {r.to}</div><div className="value">{fmtMoney(r.balance_start)} → {fmtMoney(r.balance_end)}</div></div>
          </div>
          <Card className="mb-3">
            <Card.Body className="p-2">
              {r.totals.count === 0
                ? <EmptyState text="No transactions in this range" />
                : <Suspense fallback={<Loading text="Loading chart…" />}><ReportChart periods={r.periods} onPick={onPick} /></Suspense>}
              <div className="small text-secondary">Per {r.group}; click a column to list its transactions.</div>
            </Card.Body>
          </Card>
          {pick && <Behind key={JSON.stringify(pick.query)} bid={bid} pick={pick} />}
          <Card className="mb-3">
            <Card.Header className="fw-semibold">Tags</Card.Header>
            <Card.Body className="p-2">
              <div className="small text-secondary mb-2" data-testid="shares-note">{MONEY_MSG.sharesOverlap}</div>
              <Table size="sm" hover responsive className="app-money-tag-table mb-0" aria-label="Tags">
                <thead><tr><th>Tag</th><th className="text-end">Income</th><th className="text-end">Share</th><th className="text-end">Expense</th><th className="text-end">Share</th><th className="text-end">Total</th><th className="text-end">Transactions</th></tr></thead>
                <tbody>
                  {r.tag_rows.map((x) => {
                    const query: TxQuery = { from: r.from, to: r.to, ...tagFilter, ...(x.tag ? { tag: x.tag } : { untagged: 1 }) };
                    const label = x.tag ? `tag ${x.tag}` : 'without tags';
                    const active = pick?.label === label;
                    return (
                      <tr key={x.tag || '-'} role="button" tabIndex={0} className={active ? 'table-active' : ''} data-tag={x.tag}
                        onClick={() => setPick({ label, query })} onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); setPick({ label, query }); } }}>
                        <td>{x.tag || <span className="text-secondary">(no tags)</span>}</td>
                        <td className="app-money-amount">{fmtMoney(x.income)}</td>
                        <td className="text-end small">{x.share_income.toFixed(1)}%</td>
                        <td className="app-money-amount">{fmtMoney(x.expense)}</td>
                        <td className="text-end small">{x.share_expense.toFixed(1)}%</td>
                        <td className="app-money-amount">{fmtMoney(x.total)}</td>
                        <td className="text-end">{x.count}</td>
                      </tr>
                    );
                  })}
                  <tr className="fw-semibold border-top">
                    <td>Total (each transaction once)</td>
                    <td className="app-money-amount">{fmtMoney(r.totals.income)}</td><td />
                    <td className="app-money-amount">{fmtMoney(r.totals.expense)}</td><td />
                    <td className="app-money-amount">{fmtMoney(r.totals.total)}</td>
                    <td className="text-end">{r.totals.count}</td>
                  </tr>
                </tbody>
              </Table>
            </Card.Body>
          </Card>
        </>
      )}
    </>
  );
}
