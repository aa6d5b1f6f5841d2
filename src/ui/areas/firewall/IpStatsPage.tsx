import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { useSearchParams } from 'react-router-dom';
import { PAGE_PARAM } from '../../../contracts/constants.js';
import { IpStatsArgs, TRAFFIC_RANGE_LABELS, TRAFFIC_RANGES, UNIQUE_BOOKS_MIN, type IpStat } from '../../../contracts/firewall.js';
import { useRpc } from '../../api/hooks.js';
import { validate } from '../../kit/fields.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { WhoisModal, banQuestion, useIpRuleActions } from './shared.js';
import './firewall.css';

const PAGE = 50;
const FILTERS = ['host', 'range', 'min', 'like', 'books'] as const;
type Filter = (typeof FILTERS)[number];

/**
 * /firewall/processing_logs (000 §2 "IP statistics with filters", §3 IP stats, §5 unique books): hits
 * per address over the stored window, filtered by domain, range, minimum count and an address
 * substring, or only the readers of at least 5 different books. The filter is in the URL.
 */
export default function IpStatsPage() {
  const [params, setParams] = useSearchParams();
  const [page] = usePageParam();
  const value = (k: Filter) => params.get(k) ?? '';
  const [draft, setDraft] = useState<Record<Filter, string>>(() => Object.fromEntries(FILTERS.map((k) => [k, value(k)])) as Record<Filter, string>);
  const urlKey = FILTERS.map(value).join('\u0000');
  useEffect(() => setDraft(Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Record<Filter, string>), [urlKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const [error, setError] = useState<Record<string, string> | null>(null);

  const args = (f: Record<Filter, string>) => ({
    ...(f.host.trim() ? { host: f.host.trim().toLowerCase() } : {}),
    ...(f.range ? { range_minutes: Number(f.range) } : {}),
    ...(f.min.trim() ? { min_count: Number(f.min.trim()) } : {}),
    ...(f.like.trim() ? { like: f.like.trim() } : {}),
    ...(f.books === '1' ? { unique_books: true } : {}),
  });
  const current = Object.fromEntries(FILTERS.map((k) => [k, value(k)])) as Record<Filter, string>;
  const stats = useRpc('firewall.getIpStats', args(current));
  const hosts = useRpc('firewall.getFilter', undefined);
  const { ban, busy } = useIpRuleActions();
  const [whois, setWhois] = useState<string | null>(null);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const bad = validate(IpStatsArgs, args(draft));
    setError(bad);
    if (bad) return;
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const k of FILTERS) {
        const v = draft[k].trim();
        if (v) next.set(k, v);
        else next.delete(k);
      }
      next.delete(PAGE_PARAM);
      return next;
    });
  };
  const field = (k: Filter) => ({
    value: draft[k],
    onChange: (e: { currentTarget: { value: string } }) => {
      const v = e.currentTarget.value;
      setDraft((d) => ({ ...d, [k]: v }));
    },
  });

  const all = stats.data ?? [];
  const books = current.books === '1';
  const columns: Column<IpStat>[] = [
    { key: 'ip', title: 'IP', render: (r) => <span className="app-mono fw-semibold">{r.ip}</span> },
    { key: 'count', title: 'Count', className: 'text-end', render: (r) => fmtNumber(r.count) },
    ...(books ? [{ key: 'books', title: 'Books', className: 'text-end', render: (r: IpStat) => fmtNumber(r.books ?? 0) }] : []),
    {
      key: 'actions', title: '', className: 'text-end',
      render: (r) => (
        <div className="d-inline-flex gap-1">
          <Button size="sm" variant="outline-secondary" onClick={() => setWhois(r.ip)}>Whois</Button>
          <ConfirmButton label="Ban" title={`Ban ${r.ip}`} text={banQuestion(r.ip)} onConfirm={() => ban(r.ip)} disabled={busy} />
        </div>
      ),
    },
  ];

  return (
    <div className="app-fw">
      <PageTitle title="IP statistics" actions={<Button size="sm" variant="outline-primary" onClick={() => void stats.reload()} disabled={stats.loading}>Refresh</Button>} />
      <Form onSubmit={apply} className="app-card mb-3" aria-label="IP statistics filter" noValidate>
        <Row className="g-2 align-items-end">
          <Col xs={12} md={3}>
            <Form.Label htmlFor="st-host" className="small fw-semibold mb-1">Domain</Form.Label>
            <Form.Control id="st-host" size="sm" list="st-hosts" placeholder="all" autoComplete="off" {...field('host')} isInvalid={!!error?.host} />
            <datalist id="st-hosts">{hosts.data?.hosts.map((h) => <option key={h.host} value={h.host} />)}</datalist>
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="st-range" className="small fw-semibold mb-1">Range</Form.Label>
            <Form.Select id="st-range" size="sm" {...field('range')}>
              {TRAFFIC_RANGES.map((v) => <option key={v} value={v === 0 ? '' : String(v)}>{TRAFFIC_RANGE_LABELS[v]}</option>)}
            </Form.Select>
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="st-min" className="small fw-semibold mb-1">Min count</Form.Label>
            <Form.Control id="st-min" size="sm" type="number" min={0} {...field('min')} isInvalid={!!error?.min_count} />
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="st-like" className="small fw-semibold mb-1">IP like</Form.Label>
            <Form.Control id="st-like" size="sm" {...field('like')} isInvalid={!!error?.like} />
          </Col>
          <Col xs={6} md={2}>
            <Form.Check type="switch" id="st-books" label={`Unique books (≥ ${UNIQUE_BOOKS_MIN})`} checked={draft.books === '1'}
              onChange={(e) => { const on = e.currentTarget.checked; setDraft((d) => ({ ...d, books: on ? '1' : '' })); }} />
          </Col>
          <Col xs={12} md={1}>
            <Button type="submit" size="sm">Apply</Button>
          </Col>
        </Row>
        {error && <div className="text-danger small mt-1" role="alert">{Object.values(error).join('; ')}</div>}
      </Form>
      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={stats.data ? all.slice((page - 1) * PAGE, page * PAGE) : undefined}
          rowKey={(r) => r.ip}
          count={all.length}
          limit={PAGE}
          loading={stats.loading}
          error={stats.error}
          onRetry={() => void stats.reload()}
          empty={<div className="text-secondary small p-2">No addresses match.</div>}
        />
      </div>
      <WhoisModal ip={whois} onHide={() => setWhois(null)} />
    </div>
  );
}
