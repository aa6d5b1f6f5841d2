import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { useSearchParams } from 'react-router-dom';
import {
  ACCESS_LOG_TAGS, TOP_BUCKETS, TOP_IP_HEAD, TRAFFIC_CODE_FILTERS, TRAFFIC_DEFAULT_RANGE, TRAFFIC_RANGE_LABELS, TRAFFIC_RANGES,
  type AccessLogTag, type TrafficCodeFilter, type TrafficIp, type TrafficRow,
} from '../../../contracts/firewall.js';
import { PAGE_PARAM } from '../../../contracts/constants.js';
import type { NeyronScore, TrainMark } from '../../../contracts/firewall-train.js';
import { useAsync, useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, fmtNumber, plural } from '../../kit/format.js';
import { useIsMobile } from '../../kit/media.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import type { TrafficQuery } from './api.js';
import { AiReportPanel } from './AiReportPanel.js';
import { FirewallControls } from './FirewallControls.js';
import { ScoreCell, useNeyronScores } from './NeuralScore.js';
import { MarkBadge, TrainButtons, badQuestion, useTrainMarks } from './TrainMarks.js';
import { TrainPanel } from './TrainPanel.js';
import { RuleBadge, WhoisModal, banQuestion, groupOf, useIpRuleActions } from './shared.js';
import { ROWS_LIMIT, useTrafficRows } from './useTrafficRows.js';
import './firewall.css';

/** The IP list shows this many addresses a page (000 §2). */
export const IP_LIST_PAGE = 30;

const RANGE_OPTIONS = TRAFFIC_RANGES.map((v) => ({ value: v, label: TRAFFIC_RANGE_LABELS[v] }));
const TOP_OPTIONS = [...TOP_BUCKETS, TOP_IP_HEAD];

/** The filter as the URL holds it (deep links, reloads): host, range (minutes), code, top, ip, tag, group. */
function useTrafficUrl() {
  const [params, setParams] = useSearchParams();
  const host = (params.get('host') ?? '').trim().toLowerCase();
  const rangeRaw = Number(params.get('range'));
  const range = params.has('range') && (TRAFFIC_RANGES as readonly number[]).includes(rangeRaw) ? rangeRaw : TRAFFIC_DEFAULT_RANGE;
  const codeRaw = params.get('code') ?? 'all';
  const code: TrafficCodeFilter = (TRAFFIC_CODE_FILTERS as readonly string[]).includes(codeRaw) ? (codeRaw as TrafficCodeFilter) : 'all';
  const topRaw = Number(params.get('top'));
  const top = TOP_OPTIONS.includes(topRaw as never) ? topRaw : TOP_IP_HEAD;
  const ip = params.get('ip') ?? '';
  const tagRaw = params.get('tag') ?? '';
  const tag = (ACCESS_LOG_TAGS as readonly string[]).includes(tagRaw) ? (tagRaw as AccessLogTag) : null;
  const groupRaw = params.get('group');
  const group: 2 | 3 | null = groupRaw === '2' ? 2 : groupRaw === '3' ? 3 : null;

  /** Sets (or, for '' / the default, removes) parameters in one history entry. */
  const patch = useCallback(
    (p: Record<string, string | number | null>, opts: { resetPage?: boolean; replace?: boolean } = {}) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(p)) {
            if (v === null || v === '') next.delete(k);
            else next.set(k, String(v));
          }
          if (opts.resetPage) next.delete(PAGE_PARAM);
          return next;
        },
        { replace: opts.replace },
      ),
    [setParams],
  );
  return { host, range, code, top, ip, tag, group, patch };
}

const codeVariant = (c: string) => (c.startsWith('5') ? 'danger' : c.startsWith('4') ? 'warning' : c.startsWith('3') ? 'info' : 'success');

function Codes({ codes }: { codes: Record<string, number> }) {
  return (
    <span className="d-inline-flex flex-wrap gap-1">
      {Object.entries(codes).map(([c, n]) => (
        <Badge key={c} bg={codeVariant(c)} text={c.startsWith('4') ? 'dark' : undefined} className="fw-normal" data-code={c}>
          {c} · {fmtNumber(n)}
        </Badge>
      ))}
    </span>
  );
}

/** The neural score and training mark of an address, as the list and the detail show them. */
interface TrainProps {
  mark: TrainMark | undefined;
  score: NeyronScore | undefined;
  noModel: boolean;
  onMark: (bal: TrainMark) => Promise<unknown>;
  markBusy: boolean;
}

/**
 * One address of the IP list: count, first / last seen (from 1400 px), status codes, rule, neural score
 * (with its top effects); OK / BAD / Whois (rules) and 'Train: Ok Ne Bad' (marks, the current one
 * pressed). While an address is open the marks move to its detail and the row shows a Mark column.
 */
function IpRow({ r, selected, compact, newest, onOpen, onOk, onBad, onWhois, busy, train }: {
  r: TrafficIp; selected: boolean; compact: boolean; newest?: TrafficRow; onOpen: () => void; onOk: () => void; onBad: () => Promise<unknown>; onWhois: () => void; busy: boolean;
  train: TrainProps;
}) {
  return (
    <tr data-ip={r.ip} className={selected ? 'table-active' : undefined}>
      <td>
        <button type="button" className="btn btn-link btn-sm p-0 app-mono fw-semibold" onClick={onOpen} aria-label={`Open ${r.ip}`}>{r.ip}</button>
        {newest && <div className="small text-secondary text-truncate app-fw-newest" title={newest.url}>{newest.code} {newest.url}</div>}
      </td>
      <td className="text-end" data-label="Count">{fmtNumber(r.count)}</td>
      {!compact && <td className="small text-nowrap d-none d-xxl-table-cell">{fmtDateTime(r.first)}</td>}
      {!compact && <td className="small text-nowrap d-none d-xxl-table-cell">{fmtDateTime(r.last)}</td>}
      <td><Codes codes={r.codes} /></td>
      <td data-label="Rule"><RuleBadge status={r.rule} /></td>
      <td data-label="Score" className="app-fw-score-cell"><ScoreCell s={train.score} noModel={train.noModel} /></td>
      {compact && <td data-label="Mark"><MarkBadge bal={train.mark} /></td>}
      <td className="text-nowrap">
        <div className="d-flex gap-1 align-items-center">
          <Button size="sm" variant="outline-success" onClick={onOk} disabled={busy} aria-label={`OK ${r.ip}`}>OK</Button>
          <ConfirmButton label="BAD" title={`Ban ${r.ip}`} text={banQuestion(r.ip)} confirmLabel="Yes" variant="outline-danger" onConfirm={onBad} disabled={busy} />
          <Button size="sm" variant="outline-secondary" onClick={onWhois} aria-label={`Whois ${r.ip}`}>Whois</Button>
          {!compact && <span className="ms-2"><TrainButtons ip={r.ip} current={train.mark} onMark={train.onMark} busy={train.markBusy} /></span>}
        </div>
      </td>
    </tr>
  );
}

/** The log rows of the open address (000 §3 Traffic log row), tag buttons filter them. */
function IpDetail({ r, query, tag, preloaded, onTag, onBan, onAllow, onWhois, busy, train }: {
  r: TrafficIp; query: TrafficQuery; tag: AccessLogTag | null; preloaded?: TrafficRow[]; onTag: (t: AccessLogTag | null) => void;
  onBan: () => Promise<unknown>; onAllow: () => void; onWhois: () => void; busy: boolean; train: TrainProps;
}) {
  // With a tag the server filters (the newest rows of that tag); without one the preloaded rows are used.
  const own = useAsync(
    (signal) => rpc('firewall.getTrafficRows', { ...query, ip: r.ip, limit: ROWS_LIMIT, ...(tag ? { tag } : {}) }, { signal }),
    JSON.stringify([query, r.ip, tag]),
    { enabled: !!tag || !preloaded },
  );
  const rows = tag || !preloaded ? own.data : preloaded;
  const mobile = useIsMobile();
  const tagCounts = r.tags;
  return (
    <div className="app-card app-fw-detail" data-testid="ip-detail" data-ip={r.ip}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <h2 className="h6 mb-0 app-mono">{r.ip}</h2>
        <RuleBadge status={r.rule} />
        <span className="small text-secondary">{plural(r.count, 'request')} · {fmtDateTime(r.first)} – {fmtDateTime(r.last)}</span>
        <div className="ms-auto d-flex gap-1">
          <ConfirmButton label="Blok" title={`Ban ${r.ip}`} text={banQuestion(r.ip)} variant="danger" onConfirm={onBan} disabled={busy} />
          <Button size="sm" variant="success" onClick={onAllow} disabled={busy}>Allowed</Button>
          <Button size="sm" variant="outline-secondary" onClick={onWhois}>Whois</Button>
        </div>
      </div>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <span className="small">Score: <ScoreCell s={train.score} noModel={train.noModel} /></span>
        <span className="small">Mark: <MarkBadge bal={train.mark} /></span>
        {!mobile && <span className="ms-auto"><TrainButtons ip={r.ip} current={train.mark} onMark={train.onMark} busy={train.markBusy} /></span>}
      </div>
      <div className="d-flex flex-wrap gap-1 mb-2" role="group" aria-label="Tags">
        <Button size="sm" variant={tag === null ? 'dark' : 'outline-dark'} onClick={() => onTag(null)} aria-pressed={tag === null}>all</Button>
        {ACCESS_LOG_TAGS.map((t) => (
          <Button key={t} size="sm" variant={tag === t ? 'dark' : 'outline-dark'} onClick={() => onTag(t)} aria-pressed={tag === t} disabled={!tagCounts[t]} data-tag={t}>
            {t} {tagCounts[t] ? <span className="opacity-75">{fmtNumber(tagCounts[t])}</span> : null}
          </Button>
        ))}
      </div>
      {own.error && <ErrorAlert error={own.error} onRetry={() => void own.reload()} />}
      {!rows && !own.error && <Loading />}
      {rows && mobile && (
        <ul className="list-unstyled mb-0 small app-fw-rows-list" data-testid="log-rows">
          {rows.map((l, i) => (
            <li key={i} data-tag={l.tag} className="border-bottom py-1">
              <div className="d-flex gap-2 align-items-center">
                <Badge bg={codeVariant(String(l.code))} text={String(l.code).startsWith('4') ? 'dark' : undefined}>{l.code}</Badge>
                <span className="text-nowrap">{fmtDateTime(l.time)}</span>
                <span className="app-mono text-secondary ms-auto">{l.proxy_addr}</span>
              </div>
              <div className="text-break">{l.method && <span className="text-secondary">{l.method} </span>}{l.url}</div>
              {l.ref && <div className="text-break text-secondary">{l.ref}</div>}
            </li>
          ))}
          {!rows.length && <li className="text-secondary">No rows{tag ? ` tagged ${tag}` : ''}.</li>}
        </ul>
      )}
      {rows && !mobile && (
        <div className="table-responsive">
          <Table size="sm" striped className="mb-0 small app-fw-rows" data-testid="log-rows">
            <thead className="table-light">
              <tr><th>time</th><th>proxy_addr</th><th>url</th><th>ref</th><th style={{ width: 56 }}>code</th></tr>
            </thead>
            <tbody>
              {rows.map((l, i) => (
                <tr key={i} data-tag={l.tag}>
                  <td className="text-nowrap" title={fmtDateTime(l.time)}>{fmtDateTime(l.time).slice(5)}</td>
                  <td className="app-mono">{l.proxy_addr}</td>
                  <td className="app-fw-url" title={l.agent}>{l.method && <span className="text-secondary">{l.method} </span>}{l.url}</td>
                  <td className="app-fw-ref text-truncate" title={l.ref}>{l.ref}</td>
                  <td><Badge bg={codeVariant(String(l.code))} text={String(l.code).startsWith('4') ? 'dark' : undefined}>{l.code}</Badge></td>
                </tr>
              ))}
              {!rows.length && <tr><td colSpan={5} className="text-secondary">No rows{tag ? ` tagged ${tag}` : ''}.</td></tr>}
            </tbody>
          </Table>
          {rows.length >= ROWS_LIMIT && <div className="small text-secondary mt-1">The newest {ROWS_LIMIT} rows.</div>}
        </div>
      )}
    </div>
  );
}

interface ListItem {
  kind: 'group' | 'ip';
  key: string;
  ip?: TrafficIp;
  group?: { name: string; ips: number; count: number };
}

/** The IP list in order: by count, or grouped by the first 2 or 3 octets (groups by their total). */
function orderList(list: TrafficIp[], group: 2 | 3 | null): TrafficIp[] {
  if (!group) return list;
  const totals = new Map<string, number>();
  for (const r of list) totals.set(groupOf(r.ip, group), (totals.get(groupOf(r.ip, group)) ?? 0) + r.count);
  return [...list].sort((a, b) => {
    const ga = groupOf(a.ip, group);
    const gb = groupOf(b.ip, group);
    return ga === gb ? b.count - a.count : (totals.get(gb)! - totals.get(ga)!) || (ga < gb ? -1 : 1);
  });
}

/**
 * /firewall (000 §2 "Firewall and traffic"): the traffic screen. The filter (domain, range, code) and
 * what is open (address, tag, top bucket, grouping, page) live in the URL. The report lists the top
 * addresses; the IP list pages them 30 at a time and preloads their log rows 10 at a time; an address
 * opens its log rows with tag buttons, Blok / Allowed / Whois. Firewall II: each address shows its
 * neural score and training mark with 'Train: Ok Ne Bad'; the training and AI report panels of the host
 * sit above the list. At 992 px or less the open address gets the bottom bar (Ok, Ne, Bad: marks, then
 * on to the next address; Blok; Back). Decisions: docs/firewall.md "Screens".
 */
export default function TrafficPage() {
  const url = useTrafficUrl();
  const [page, setPage] = usePageParam();
  const mobile = useIsMobile();
  const filter = useRpc('firewall.getFilter', undefined);
  const [draft, setDraft] = useState({ host: url.host, range: String(url.range), code: url.code as string });
  // The URL is the truth: back/forward and reloads refill the form.
  useEffect(() => setDraft({ host: url.host, range: String(url.range), code: url.code }), [url.host, url.range, url.code]);

  const query: TrafficQuery | null = url.host ? { host: url.host, range_minutes: url.range, code: url.code } : null;
  const report = useRpc('firewall.getTraffic', { host: url.host, range_minutes: url.range, code: url.code, top: url.top }, { enabled: !!url.host });
  const [rules, setRules] = useState<Map<string, number>>(() => new Map());
  useEffect(() => setRules(new Map()), [report.data]);
  const onChanged = useCallback((ip: string, status: number) => setRules((m) => new Map(m).set(ip, status)), []);
  const actions = useIpRuleActions(onChanged);
  const [whois, setWhois] = useState<string | null>(null);

  const list = useMemo(
    () => orderList((report.data?.list ?? []).map((r) => (rules.has(r.ip) ? { ...r, rule: rules.get(r.ip)! } : r)), url.group),
    [report.data, rules, url.group],
  );
  const pages = Math.max(1, Math.ceil(list.length / IP_LIST_PAGE));
  const pageList = list.slice((page - 1) * IP_LIST_PAGE, page * IP_LIST_PAGE);
  const pageIps = useMemo(() => pageList.map((r) => r.ip), [pageList.map((r) => r.ip).join(',')]); // eslint-disable-line react-hooks/exhaustive-deps
  const preload = useTrafficRows(query, pageIps);
  const open = list.find((r) => r.ip === url.ip) ?? null;
  // Firewall II: marks (a mark of 1 bans on the server: the rule column follows), scores of the page's addresses (and of the open one).
  const marks = useTrainMarks(url.host, useCallback((ip: string) => onChanged(ip, 1), [onChanged]));
  const [modelVersion, setModelVersion] = useState(0);
  const scoreIps = useMemo(() => (open && !pageIps.includes(open.ip) ? [...pageIps, open.ip] : pageIps), [pageIps, open?.ip]); // eslint-disable-line react-hooks/exhaustive-deps
  const neyron = useNeyronScores(url.host, scoreIps, modelVersion);
  const trainOf = (ip: string): TrainProps => ({
    mark: marks.marks.get(ip), score: neyron.scores.get(ip), noModel: neyron.noModel, markBusy: marks.busy,
    onMark: (bal) => marks.setMark(ip, bal),
  });

  const items: ListItem[] = [];
  let lastGroup = '';
  for (const r of pageList) {
    if (url.group) {
      const g = groupOf(r.ip, url.group);
      if (g !== lastGroup) {
        const members = list.filter((x) => groupOf(x.ip, url.group!) === g);
        items.push({ kind: 'group', key: `g:${g}`, group: { name: g, ips: members.length, count: members.reduce((n, x) => n + x.count, 0) } });
        lastGroup = g;
      }
    }
    items.push({ kind: 'ip', key: r.ip, ip: r });
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const host = draft.host.trim().toLowerCase();
    if (!host) return; // 000 §5: submit does nothing while the domain is empty
    const range = Number(draft.range);
    url.patch({ host, range: range === TRAFFIC_DEFAULT_RANGE ? null : range, code: draft.code === 'all' ? null : draft.code, ip: null, tag: null }, { resetPage: true });
    if (host === url.host && range === url.range && draft.code === url.code) void report.reload();
  };
  const openIp = (ip: string | null) => url.patch({ ip, tag: null });
  /** The address after `ip` in the list (the mobile bar's Ok / Bad go on to it), or null at the end. */
  const nextAfter = (ip: string) => {
    const i = list.findIndex((r) => r.ip === ip);
    return i >= 0 && i + 1 < list.length ? list[i + 1].ip : null;
  };
  const goNext = (ip: string) => {
    const next = nextAfter(ip);
    const i = next ? list.findIndex((r) => r.ip === next) : -1;
    url.patch({ ip: next, tag: null, ...(i >= 0 ? { [PAGE_PARAM]: Math.floor(i / IP_LIST_PAGE) + 1 > 1 ? Math.floor(i / IP_LIST_PAGE) + 1 : null } : {}) });
  };

  /** The mobile bar's marks: set, then on to the next address. */
  const mark = async (ip: string, bal: TrainMark) => {
    if (await marks.setMark(ip, bal)) goNext(ip);
  };

  const detail = open && query && (
    <IpDetail
      r={open} query={query} tag={url.tag} preloaded={preload.rows.get(open.ip)}
      onTag={(t) => url.patch({ tag: t }, { replace: true })}
      onBan={() => actions.ban(open.ip)} onAllow={() => void actions.allow(open.ip)} onWhois={() => setWhois(open.ip)} busy={actions.busy}
      train={trainOf(open.ip)}
    />
  );
  const showList = !(mobile && open);

  return (
    <div className={`app-fw ${mobile && open ? 'app-fw-with-bar' : ''}`}>
      <PageTitle title="Traffic" />
      <FirewallControls />
      <Form onSubmit={submit} className="app-card mb-3" aria-label="Traffic filter" noValidate>
        <Row className="g-2 align-items-end">
          <Col xs={12} md={5}>
            <Form.Label htmlFor="fw-host" className="small fw-semibold mb-1">Domain</Form.Label>
            <Form.Control id="fw-host" size="sm" list="fw-hosts" value={draft.host} placeholder="example.com" autoComplete="off"
              onChange={(e) => { const v = e.currentTarget.value; setDraft((d) => ({ ...d, host: v })); }} />
            <datalist id="fw-hosts">{filter.data?.hosts.map((h) => <option key={h.host} value={h.host}>{`last ${fmtDateTime(h.last)}`}</option>)}</datalist>
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="fw-range" className="small fw-semibold mb-1">Range</Form.Label>
            <Form.Select id="fw-range" size="sm" value={draft.range} onChange={(e) => { const v = e.currentTarget.value; setDraft((d) => ({ ...d, range: v })); }}>
              {RANGE_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
            </Form.Select>
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="fw-code" className="small fw-semibold mb-1">Code</Form.Label>
            <Form.Select id="fw-code" size="sm" value={draft.code} onChange={(e) => { const v = e.currentTarget.value; setDraft((d) => ({ ...d, code: v })); }}>
              {TRAFFIC_CODE_FILTERS.map((c) => <option key={c} value={c}>{c}</option>)}
            </Form.Select>
          </Col>
          <Col xs={12} md={3} className="d-flex gap-2">
            <Button type="submit" size="sm">Show</Button>
            {url.host && <Button type="button" size="sm" variant="outline-secondary" onClick={() => void report.reload()} disabled={report.loading}>Refresh</Button>}
          </Col>
        </Row>
      </Form>

      {!url.host && <EmptyState title="Traffic" text="Enter a domain to see who requests it." />}
      {url.host && showList && (
        <>
          <TrainPanel host={url.host} onModel={(m) => setModelVersion(m.version)} />
          <AiReportPanel host={url.host} />
        </>
      )}
      {url.host && (
        <>
          <ErrorAlert error={report.error} onRetry={() => void report.reload()} />
          {!report.data && report.loading && <Loading />}
          {report.data && (
            <>
              <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
                <div className="small me-auto" data-testid="traffic-summary">
                  <strong>{report.data.host}</strong>: {plural(report.data.total, 'request')} from {plural(report.data.ips_total, 'address', 'addresses')} · {TRAFFIC_RANGE_LABELS[report.data.range_minutes] ?? `${report.data.range_minutes} min`} · code {report.data.code}
                </div>
                <ButtonGroup size="sm" aria-label="Top">
                  {TOP_OPTIONS.map((n) => (
                    <Button key={n} variant={url.top === n ? 'secondary' : 'outline-secondary'} aria-pressed={url.top === n} onClick={() => url.patch({ top: n === TOP_IP_HEAD ? null : n }, { resetPage: true })}>
                      Top {n}
                    </Button>
                  ))}
                </ButtonGroup>
                <ButtonGroup size="sm" aria-label="Grouping">
                  {([[null, 'No groups'], [2, '2 octets'], [3, '3 octets']] as const).map(([g, label]) => (
                    <Button key={label} variant={url.group === g ? 'secondary' : 'outline-secondary'} aria-pressed={url.group === g} onClick={() => url.patch({ group: g }, { resetPage: true })}>
                      {label}
                    </Button>
                  ))}
                </ButtonGroup>
              </div>
              {report.data.list.length === 0 ? (
                <EmptyState text="No requests match in this range." />
              ) : (
                <Row className="g-3">
                  {showList && (
                    <Col xs={12} xl={open ? 7 : 12}>
                      <div className="app-card">
                        <Pager page={page} count={list.length} limit={IP_LIST_PAGE} onPage={setPage} className="mb-2" />
                        <div className="table-responsive">
                          <Table size="sm" hover className={`align-middle mb-2 app-fw-ips ${open ? 'app-fw-ips-compact' : ''}`} data-testid="ip-list">
                            <thead className="table-light">
                              <tr>
                                <th>IP</th><th className="text-end">Count</th>
                                {!open && <><th className="d-none d-xxl-table-cell">First</th><th className="d-none d-xxl-table-cell">Last</th></>}
                                <th>Codes</th><th>Rule</th><th>Score</th>{open && <th>Mark</th>}<th />
                              </tr>
                            </thead>
                            <tbody>
                              {items.map((it) => it.kind === 'group' ? (
                                <tr key={it.key} className="table-secondary app-fw-group" data-group={it.group!.name}>
                                  <td colSpan={open ? 7 : 8} className="small fw-semibold">{it.group!.name} · {plural(it.group!.ips, 'address', 'addresses')} · {plural(it.group!.count, 'request')}</td>
                                </tr>
                              ) : (
                                <IpRow
                                  key={it.key} r={it.ip!} selected={it.ip!.ip === url.ip} compact={!!open} newest={preload.rows.get(it.ip!.ip)?.[0]} busy={actions.busy}
                                  onOpen={() => openIp(it.ip!.ip)} onOk={() => void actions.allow(it.ip!.ip)} onBad={() => actions.ban(it.ip!.ip)} onWhois={() => setWhois(it.ip!.ip)}
                                  train={trainOf(it.ip!.ip)}
                                />
                              ))}
                            </tbody>
                          </Table>
                        </div>
                        {pages > 1 && <Pager page={page} count={list.length} limit={IP_LIST_PAGE} onPage={setPage} />}
                      </div>
                    </Col>
                  )}
                  {open && <Col xs={12} xl={5}>{detail}</Col>}
                </Row>
              )}
              {url.ip && !open && report.data.list.length > 0 && (
                <div className="alert alert-info py-2 small mt-2">{url.ip} is not among the top addresses of this filter.</div>
              )}
            </>
          )}
        </>
      )}

      {mobile && open && (
        <nav className="app-fw-bottom-bar" aria-label="Review" data-testid="fw-bottom-bar">
          <Button variant="success" onClick={() => void mark(open.ip, 0)} disabled={marks.busy}>Ok</Button>
          <Button variant="secondary" onClick={() => void mark(open.ip, 0.5)} disabled={marks.busy}>Ne</Button>
          <ConfirmButton label="Bad" size="lg" title={`Mark ${open.ip} Bad`} text={badQuestion(open.ip)} variant="warning"
            onConfirm={() => mark(open.ip, 1)} disabled={marks.busy} />
          <ConfirmButton label="Blok" size="lg" title={`Ban ${open.ip}`} text={banQuestion(open.ip)} variant="danger" onConfirm={() => actions.ban(open.ip)} disabled={actions.busy} />
          <Button variant="outline-secondary" onClick={() => openIp(null)}>Back</Button>
        </nav>
      )}
      <WhoisModal ip={whois} onHide={() => setWhois(null)} />
    </div>
  );
}
