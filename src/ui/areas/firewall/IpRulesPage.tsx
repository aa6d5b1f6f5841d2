import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Nav from 'react-bootstrap/Nav';
import Row from 'react-bootstrap/Row';
import { useSearchParams } from 'react-router-dom';
import { PAGE_PARAM } from '../../../contracts/constants.js';
import {
  IP_RULE_ALLOWED, IP_RULE_STATUS_IDS, IP_RULES_PAGE_SIZE, IpArgs, ipRuleStatusName, isDenyingStatus, type IpRuleView,
} from '../../../contracts/firewall-rules.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { validate } from '../../kit/fields.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { AutoBans } from './AutoBans.js';
import { FirewallControls } from './FirewallControls.js';
import { RuleBadge, WhoisModal, banQuestion, withCount } from './shared.js';
import './firewall.css';

const STATUS_OPTIONS = IP_RULE_STATUS_IDS.map((s) => ({ value: String(s), label: `${s} · ${ipRuleStatusName(s)}` }));

/**
 * /firewall/iptables_rules (000 §2, §3 IP rule, §4): the IP rules, filtered by status (with its name)
 * and a like filter, 50 a page by `p_`; all three in the URL. Ban, allow and delete one rule; remove
 * the selected rules or every rule of a status, after a confirm; every action says how many rows it
 * touched (000 §8). The second tab (`tab=auto`) lists the neural score's automatic bans with Undo.
 */
export default function IpRulesPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'auto' ? 'auto' : 'rules';
  return (
    <div className="app-fw">
      <PageTitle title={tab === 'auto' ? 'Auto-bans' : 'IP rules'} />
      <FirewallControls />
      <Nav variant="tabs" role="tablist" className="mb-3" activeKey={tab} onSelect={(k) => setParams(k === 'auto' ? { tab: 'auto' } : {})}>
        <Nav.Item><Nav.Link eventKey="rules">Rules</Nav.Link></Nav.Item>
        <Nav.Item><Nav.Link eventKey="auto">Auto-bans</Nav.Link></Nav.Item>
      </Nav>
      {tab === 'auto' ? <AutoBans /> : <IpRules />}
    </div>
  );
}

function IpRules() {
  const [params, setParams] = useSearchParams();
  const [page] = usePageParam();
  const statusParam = params.get('status') ?? '';
  const status = /^-?\d+$/.test(statusParam) && IP_RULE_STATUS_IDS.includes(Number(statusParam)) ? Number(statusParam) : undefined;
  const like = params.get('like') ?? '';
  const list = useRpc('firewall.getIpRules', { ...(status !== undefined ? { status } : {}), ...(like ? { like } : {}), p_: page });
  const { run, busy } = useAction();
  const [likeDraft, setLikeDraft] = useState(like);
  useEffect(() => setLikeDraft(like), [like]);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [bulkStatus, setBulkStatus] = useState(String(status ?? 1));
  useEffect(() => { if (status !== undefined) setBulkStatus(String(status)); }, [status]);
  const [newIp, setNewIp] = useState('');
  const [newIpError, setNewIpError] = useState('');
  // An address typed into 'New rule' and not yet banned or allowed asks before it is left (the filters
  // and the tab live in the query string: only a new path counts).
  useUnsavedPrompt(newIp.trim() !== '', { isLeaving: (from, to) => from.pathname !== to.pathname });
  const [whois, setWhois] = useState<string | null>(null);

  const setFilter = (patch: Record<string, string>) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(patch)) {
        if (v.trim()) next.set(k, v.trim());
        else next.delete(k);
      }
      next.delete(PAGE_PARAM);
      return next;
    });
  const applyLike = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ like: likeDraft });
  };

  const after = async <T,>(r: T | undefined, clear?: string[]) => {
    if (r === undefined) return;
    if (clear) setSelected((s) => { const n = new Set(s); clear.forEach((ip) => n.delete(ip)); return n; });
    await list.reload();
  };
  const ban = async (ip: string) => after(await run(() => rpc('firewall.setIpBan', { ip }), withCount));
  const allow = async (ip: string) => after(await run(() => rpc('firewall.allowIpRules', { ip }), withCount));
  const remove = async (ips: string[]) => after(await run(() => rpc('firewall.deleteIpRules', { ip: ips.length === 1 ? ips[0] : ips }), withCount), ips);
  const removeByStatus = async (s: number) => after(await run(() => rpc('firewall.deleteIpRulesByFilter', { status: s }), withCount), [...selected]);

  const addRule = async (kind: 'ban' | 'allow') => {
    const bad = validate(IpArgs, { ip: newIp.trim() });
    if (bad) return setNewIpError(bad.ip ?? Object.values(bad)[0]);
    setNewIpError('');
    const r = await run(
      () => (kind === 'ban' ? rpc('firewall.setIpBan', { ip: newIp.trim() }) : rpc('firewall.allowIpRules', { ip: newIp.trim() })),
      withCount,
      (err) => setNewIpError(err instanceof Error ? err.message : String(err)),
    );
    if (r) {
      setNewIp('');
      await list.reload();
    }
  };

  const rows = list.data?.list;
  const allOnPage = !!rows?.length && rows.every((r) => selected.has(r.ip));
  const toggle = (ip: string, on: boolean) => setSelected((s) => { const n = new Set(s); if (on) n.add(ip); else n.delete(ip); return n; });
  const toggleAll = (on: boolean) => setSelected((s) => { const n = new Set(s); rows?.forEach((r) => (on ? n.add(r.ip) : n.delete(r.ip))); return n; });

  const columns: Column<IpRuleView>[] = [
    {
      key: 'sel', width: 32,
      title: <Form.Check aria-label="Select the page" checked={allOnPage} onChange={(e) => toggleAll(e.currentTarget.checked)} />,
      render: (r) => <Form.Check aria-label={`Select ${r.ip}`} checked={selected.has(r.ip)} onChange={(e) => toggle(r.ip, e.currentTarget.checked)} />,
    },
    { key: 'ip', title: 'IP', render: (r) => <span className="app-mono fw-semibold">{r.ip}</span> },
    { key: 'status', title: 'Status', render: (r) => <RuleBadge status={r.status} /> },
    { key: 'time', title: 'Time', render: (r) => <span className="text-nowrap small">{fmtDateTime(r.time)}</span> },
    {
      key: 'actions', title: '', className: 'text-end',
      render: (r) => (
        <div className="d-inline-flex flex-wrap gap-1 justify-content-end">
          {!isDenyingStatus(r.status) && (
            <ConfirmButton label="Ban" title={`Ban ${r.ip}`} text={banQuestion(r.ip)} variant="outline-danger" onConfirm={() => ban(r.ip)} disabled={busy} />
          )}
          {r.status !== IP_RULE_ALLOWED && <Button size="sm" variant="outline-success" onClick={() => void allow(r.ip)} disabled={busy}>Allowed</Button>}
          <Button size="sm" variant="outline-secondary" onClick={() => setWhois(r.ip)}>Whois</Button>
          <ConfirmButton label="Delete" title={`Delete the rule of ${r.ip}`} text={<>Delete the rule of <strong className="app-mono">{r.ip}</strong>?</>} onConfirm={() => remove([r.ip])} disabled={busy} />
        </div>
      ),
    },
  ];

  return (
    <>
      <div className="app-card mb-3">
        <Row className="g-2 align-items-end">
          <Col xs={6} md={3}>
            <Form.Label htmlFor="rules-status" className="small fw-semibold mb-1">Status</Form.Label>
            <Form.Select id="rules-status" size="sm" value={statusParam} onChange={(e) => setFilter({ status: e.currentTarget.value })}>
              <option value="">all</option>
              {STATUS_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
            </Form.Select>
          </Col>
          <Col xs={6} md={4}>
            <Form onSubmit={applyLike} aria-label="Like filter" className="d-flex gap-2 align-items-end">
              <div className="flex-grow-1">
                <Form.Label htmlFor="rules-like" className="small fw-semibold mb-1">IP like</Form.Label>
                <Form.Control id="rules-like" size="sm" value={likeDraft} placeholder="192.0.2." onChange={(e) => setLikeDraft(e.currentTarget.value)} />
              </div>
              <Button type="submit" size="sm">Apply</Button>
            </Form>
          </Col>
          <Col xs={12} md={5}>
            <Form onSubmit={(e) => { e.preventDefault(); void addRule('ban'); }} aria-label="New rule" noValidate>
              <Form.Label htmlFor="rules-new" className="small fw-semibold mb-1">New rule</Form.Label>
              <div className="d-flex gap-2">
                <Form.Control id="rules-new" size="sm" value={newIp} placeholder="203.0.113.7" isInvalid={!!newIpError}
                  onChange={(e) => { setNewIp(e.currentTarget.value); setNewIpError(''); }} />
                <Button type="submit" size="sm" variant="danger" disabled={busy || !newIp.trim()}>Ban</Button>
                <Button type="button" size="sm" variant="success" disabled={busy || !newIp.trim()} onClick={() => void addRule('allow')}>Allowed</Button>
              </div>
              {newIpError && <div className="text-danger small mt-1" role="alert">{newIpError}</div>}
            </Form>
          </Col>
        </Row>
      </div>

      <div className="app-card mb-3 d-flex flex-wrap align-items-center gap-2" data-testid="bulk">
        <span className="small fw-semibold">Bulk removal</span>
        <ConfirmButton
          label={`Delete selected (${selected.size})`}
          title="Delete the selected rules"
          text={<>Delete the rules of {plural(selected.size, 'address', 'addresses')}: <span className="app-mono">{[...selected].slice(0, 20).join(', ')}{selected.size > 20 ? '…' : ''}</span>?</>}
          disabled={!selected.size || busy}
          onConfirm={() => remove([...selected])}
        />
        <span className="small text-secondary ms-md-3">or every rule with status</span>
        <Form.Select size="sm" aria-label="Status to remove" value={bulkStatus} onChange={(e) => setBulkStatus(e.currentTarget.value)} style={{ width: 'auto' }}>
          {STATUS_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </Form.Select>
        <ConfirmButton
          label="Delete by status"
          title="Delete by status"
          text={<>Delete every rule with status <strong>{ipRuleStatusName(Number(bulkStatus))}</strong> ({bulkStatus})?</>}
          disabled={busy}
          onConfirm={() => removeByStatus(Number(bulkStatus))}
        />
      </div>

      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={rows}
          rowKey={(r) => r.ip}
          count={list.data?.count ?? 0}
          limit={IP_RULES_PAGE_SIZE}
          loading={list.loading}
          error={list.error}
          onRetry={() => void list.reload()}
          rowClassName={(r) => (selected.has(r.ip) ? 'table-active' : undefined)}
          className="app-fw-rules"
        />
      </div>
      <WhoisModal ip={whois} onHide={() => setWhois(null)} />
    </>
  );
}
