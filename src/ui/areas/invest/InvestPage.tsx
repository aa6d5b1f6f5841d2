/**
 * /invest (001 §2 "Investments"): the broker's accounts, the fixed sample portfolio, local accounts
 * (create, rename, delete behind a confirmation), the screener and closing-bonds buttons, the status
 * line (configured, freshness, the refresh job) and, for admins, "Refresh now".
 */
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { INVEST_MSG, INVEST_ROUTES, INVEST_SAMPLE, INVEST_SAMPLE_ACCOUNT, INVEST_SAMPLE_NAME, InvestLocalSave, type InvestLocalAccount, type InvestStatus } from '../../../contracts/invest.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { rpc, useRpc, useSession } from '../../api/index.js';
import { AppModal, ConfirmButton, ErrorAlert, fmtDateTime, Loading, PageTitle, TextField, useAction, useFieldErrors, useUnsavedPrompt, validate } from '../../kit/index.js';
import { NotConfiguredNote } from './parts.js';

function StatusLine({ s }: { s: InvestStatus }) {
  const t = (v: number | null) => (v ? fmtDateTime(v) : 'never');
  return (
    <div className="small text-muted mb-3" data-testid="invest-status">
      Broker: {s.configured ? 'configured' : 'not configured'} ({s.api_url}, token {s.token}) · catalogue {s.catalogue.bonds} bonds, {t(s.catalogue.ts_update)} · coupons {s.coupons.bonds} bonds, {t(s.coupons.ts_update)} · prices {t(s.prices.ts_update)}
      {s.rates.length > 0 && <> · rates {s.rates.map((r) => `${r.currency.toUpperCase()} ${r.rate}`).join(', ')}</>}
      {' '}· refresh job: {s.job.last_run ? fmtDateTime(s.job.last_run) : 'never ran'}
      {s.job.last_error && <span className="text-danger"> ({s.job.last_error})</span>}
    </div>
  );
}

type Dialog = { Id?: number; name: string; initial: string } | null;

export default function InvestPage() {
  const session = useSession();
  const isAdmin = roleAllows(session?.role, Role.admin);
  const status = useRpc('invest.getStatus', {});
  const accounts = useRpc('invest.User.getAccounts', {});
  const locals = useRpc('invest.User.getLocalAccounts', {});
  const { run, busy } = useAction();
  const errs = useFieldErrors();
  const [dialog, setDialog] = useState<Dialog>(null);
  const unsaved = useUnsavedPrompt(!!dialog && dialog.name !== dialog.initial);
  const close = () => {
    if (!busy && unsaved.confirmLeave()) setDialog(null);
  };
  const open = (a?: InvestLocalAccount) => {
    errs.clear();
    setDialog(a ? { Id: a.Id, name: a.name, initial: a.name } : { name: '', initial: '' });
  };
  const save = async () => {
    if (!dialog) return;
    const args = { ...(dialog.Id ? { Id: dialog.Id } : {}), name: dialog.name.trim() };
    const bad = validate(InvestLocalSave, args);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('invest.User.saveLocalAccount', args), (x) => x.message, (e) => errs.take(e));
    if (r) {
      setDialog(null);
      void locals.reload();
    }
  };
  const remove = async (a: InvestLocalAccount) => {
    const r = await run(() => rpc('invest.User.deleteLocalAccount', { Id: a.Id }), (x) => x.message);
    if (r) void locals.reload();
  };
  const configured = status.data?.configured;

  return (
    <>
      <PageTitle
        title="Investments"
        actions={
          <>
            <Link className="btn btn-sm btn-outline-primary" to={INVEST_ROUTES.screener}>Bonds screener</Link>
            <Link className="btn btn-sm btn-outline-primary ms-2" to={INVEST_ROUTES.close}>Bonds closing soon</Link>
            {isAdmin && configured && (
              <Button size="sm" variant="outline-secondary" className="ms-2" disabled={busy}
                onClick={() => void run(() => rpc('invest.Item.refresh', {}), (x) => ('message' in x ? x.message : INVEST_MSG.notConfigured)).then(() => status.reload())}>
                Refresh now
              </Button>
            )}
          </>
        }
      />
      {status.error && <ErrorAlert error={status.error} onRetry={status.reload} />}
      {status.data && <StatusLine s={status.data} />}

      <Card className="mb-3">
        <Card.Header>Broker accounts</Card.Header>
        <Card.Body>
          {accounts.error ? <ErrorAlert error={accounts.error} onRetry={accounts.reload} />
            : !accounts.data ? <Loading />
            : !Array.isArray(accounts.data) ? <NotConfiguredNote />
            : accounts.data.length === 0 ? <div className="text-muted">The broker lists no accounts</div>
            : (
              <ul className="mb-0" data-testid="invest-accounts">
                {accounts.data.map((a) => (
                  <li key={a.id}>
                    <Link to={INVEST_ROUTES.account(a.id)}>{a.name}</Link> <span className="small text-muted">{a.id} · {a.type} · {a.status}{a.opened_date ? ` · opened ${a.opened_date.slice(0, 10)}` : ''}</span>
                    {' '}<Link className="small" to={INVEST_ROUTES.accountModel(a.id)}>forecast</Link>
                  </li>
                ))}
              </ul>
            )}
        </Card.Body>
      </Card>

      <Card className="mb-3">
        <Card.Header>Sample portfolio</Card.Header>
        <Card.Body>
          <Link to={INVEST_ROUTES.account(INVEST_SAMPLE_ACCOUNT)}>{INVEST_SAMPLE_NAME}</Link>{' '}
          <Link className="small" to={INVEST_ROUTES.accountModel(INVEST_SAMPLE_ACCOUNT)}>forecast</Link>
          <div className="small text-muted">{INVEST_SAMPLE.map((s) => s.note.split(',')[0]).join(', ')}</div>
        </Card.Body>
      </Card>

      <Card className="mb-3">
        <Card.Header className="d-flex align-items-center">
          <span className="me-auto">Local accounts</span>
          <Button size="sm" variant="primary" onClick={() => open()}>New local account</Button>
        </Card.Header>
        <Card.Body>
          {locals.error ? <ErrorAlert error={locals.error} onRetry={locals.reload} />
            : !locals.data ? <Loading />
            : locals.data.length === 0 ? <div className="text-muted">No local accounts yet</div>
            : (
              <Table size="sm" className="mb-0 align-middle" data-testid="invest-locals">
                <thead><tr><th>Name</th><th>Positions</th><th>Owner</th><th>Updated</th><th /></tr></thead>
                <tbody>
                  {locals.data.map((a) => (
                    <tr key={a.Id}>
                      <td><Link to={INVEST_ROUTES.local(a.Id)}>{a.name}</Link></td>
                      <td>{a.count}</td>
                      <td>{a.owner}</td>
                      <td className="small">{fmtDateTime(a.time_update)}</td>
                      <td className="text-end text-nowrap">
                        <Link className="btn btn-sm btn-link" to={INVEST_ROUTES.accountModel(a.accountId)}>forecast</Link>
                        <Button size="sm" variant="outline-secondary" className="me-1" onClick={() => open(a)}>Rename</Button>
                        <ConfirmButton label="Delete" text={INVEST_MSG.deleteAccountConfirm} onConfirm={() => remove(a)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
        </Card.Body>
      </Card>

      <AppModal
        show={!!dialog}
        onHide={close}
        title={dialog?.Id ? 'Rename local account' : 'New local account'}
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={close} disabled={busy}>Cencel</Button>
            <Button size="sm" variant="primary" onClick={() => void save()} disabled={busy}>Save</Button>
          </>
        }
      >
        {dialog && (
          <form onSubmit={(e) => { e.preventDefault(); void save(); }}>
            <TextField name="name" label="Name" required autoFocus value={dialog.name} error={errs.of('name')}
              onChange={(v) => { errs.clear('name'); setDialog({ ...dialog, name: v }); }} />
          </form>
        )}
      </AppModal>
    </>
  );
}
