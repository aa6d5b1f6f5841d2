import { useEffect, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import type { AuditRow } from '../../../contracts/auth.js';
import { AUDIT_PAGE_SIZE } from '../../../contracts/constants.js';
import { useRpc } from '../../api/hooks.js';
import type { RpcMethods } from '../../api/rpc.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';

const columns: Column<AuditRow>[] = [
  { key: 'ts', title: 'Time', render: (r) => <span className="text-nowrap">{fmtDateTime(r.ts)}</span> },
  { key: 'login', title: 'Login', render: (r) => r.login ?? <span className="text-secondary">—</span> },
  { key: 'method', title: 'Method', render: (r) => <span className="app-mono">{r.method}</span> },
  {
    key: 'args',
    title: 'Args',
    render: (r) => (
      <div className="app-mono app-cell-clip" title={r.args}>
        {r.args}
      </div>
    ),
  },
  {
    key: 'outcome',
    title: 'Outcome',
    render: (r) => <Badge bg={r.outcome === 'ok' ? 'success' : 'danger'}>{r.outcome}</Badge>,
  },
  {
    key: 'message',
    title: 'Message',
    render: (r) => (
      <div className="app-cell-clip" title={r.message ?? ''}>
        {r.message}
      </div>
    ),
  },
  { key: 'ip', title: 'IP', render: (r) => <span className="app-mono">{r.ip}</span> },
  { key: 'duration_ms', title: 'ms', className: 'text-end', render: (r) => r.duration_ms },
];

/** Audit log (admin): paged by p_, filtered by method substring, login and outcome (all kept in the URL). */
export default function AuditPage() {
  const [page] = usePageParam();
  const [method, setMethod] = useQueryParam('method');
  const [login, setLogin] = useQueryParam('login');
  const [outcome, setOutcome] = useQueryParam('outcome');
  const [draftMethod, setDraftMethod] = useState(method);
  const [draftLogin, setDraftLogin] = useState(login);
  useEffect(() => setDraftMethod(method), [method]);
  useEffect(() => setDraftLogin(login), [login]);

  const args: RpcMethods['audit.getList']['args'] = {
    page,
    limit: AUDIT_PAGE_SIZE,
    ...(method ? { method } : {}),
    ...(login ? { login } : {}),
    ...(outcome === 'ok' || outcome === 'error' ? { outcome } : {}),
  };
  const list = useRpc('audit.getList', args);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    // One URL update for both text filters (each setter also resets p_).
    if (draftMethod.trim() !== method) setMethod(draftMethod.trim());
    if (draftLogin.trim() !== login) setTimeout(() => setLogin(draftLogin.trim()));
  };
  const reset = () => {
    setDraftMethod('');
    setDraftLogin('');
    setMethod('');
    setTimeout(() => setLogin(''));
    setTimeout(() => setOutcome(''));
  };

  return (
    <>
      <PageTitle
        title="Audit"
        actions={
          <Button size="sm" variant="outline-primary" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </Button>
        }
      />
      <Form onSubmit={apply} className="app-card mb-3" aria-label="Audit filter">
        <Row className="g-2 align-items-end">
          <Col xs={12} md={4}>
            <Form.Label htmlFor="flt-method" className="small fw-semibold mb-1">
              Method contains
            </Form.Label>
            <Form.Control id="flt-method" size="sm" value={draftMethod} onChange={(e) => setDraftMethod(e.currentTarget.value)} placeholder="user.save, POST /api/…" />
          </Col>
          <Col xs={6} md={3}>
            <Form.Label htmlFor="flt-login" className="small fw-semibold mb-1">
              Login
            </Form.Label>
            <Form.Control id="flt-login" size="sm" value={draftLogin} onChange={(e) => setDraftLogin(e.currentTarget.value)} />
          </Col>
          <Col xs={6} md={2}>
            <Form.Label htmlFor="flt-outcome" className="small fw-semibold mb-1">
              Outcome
            </Form.Label>
            <Form.Select id="flt-outcome" size="sm" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
              <option value="">all</option>
              <option value="ok">ok</option>
              <option value="error">error</option>
            </Form.Select>
          </Col>
          <Col xs={12} md={3} className="d-flex gap-2">
            <Button type="submit" size="sm">
              Apply
            </Button>
            <Button type="button" size="sm" variant="outline-secondary" onClick={reset}>
              Reset
            </Button>
          </Col>
        </Row>
      </Form>
      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={list.data?.list}
          rowKey={(r) => r.Id}
          count={list.data?.count ?? 0}
          limit={AUDIT_PAGE_SIZE}
          loading={list.loading}
          error={list.error}
          onRetry={() => void list.reload()}
          rowClassName={(r) => (r.outcome === 'error' ? 'table-danger' : undefined)}
        />
      </div>
    </>
  );
}
