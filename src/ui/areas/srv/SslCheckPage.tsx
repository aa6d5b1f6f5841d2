import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { MSG } from '../../../contracts/messages.js';
import { SSL_ALERT_DAYS, SSL_REASON_TEXT, SslUpdateArgs, sslAlertHosts, type SslHostView, type SslReason } from '../../../contracts/srv.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SwitchField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { notify } from '../../kit/notify.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';
import { useLiveReload } from './useServersMap.js';
import './srv.css';

const dayClass = (r: SslHostView) => (r.day_last === null ? 'text-secondary' : r.day_last < SSL_ALERT_DAYS ? 'text-danger fw-bold' : r.day_last < 15 ? 'text-warning fw-semibold' : '');

/** The alert banner of 000 §5: hosts with day_last below 5 and not_check 0. */
export function SslAlert({ rows }: { rows: SslHostView[] }) {
  const hot = sslAlertHosts(rows);
  if (!hot.length) return null;
  return (
    <Alert variant="danger" className="py-2 app-ssl-alert" role="alert">
      <strong>SSL certificates expire soon:</strong>{' '}
      {hot.map((r, i) => (
        <span key={r.Id}>
          {i > 0 && ', '}
          <span data-host={r.host}>{r.host}</span> ({r.day_last} {Math.abs(r.day_last ?? 0) === 1 ? 'day' : 'days'})
        </span>
      ))}
    </Alert>
  );
}

const days = (n: number) => `${n} ${Math.abs(n) === 1 ? 'day' : 'days'}`;

/** A failure as a sentence (the server's reason code), never the raw OpenSSL text. */
const reasonText = (reason: SslReason | null, raw: string | null) => (reason ? SSL_REASON_TEXT[reason] : raw ?? '');

/** The raw text of a failure behind a toggle, under its sentence. */
function RawDetails({ raw }: { raw: string | null }) {
  if (!raw) return null;
  return (
    <details className="app-ssl-raw" data-testid="ssl-raw">
      <summary className="text-secondary">details</summary>
      <code className="d-block text-break small">{raw}</code>
    </details>
  );
}

/** The notification of one check: the days left, or why it failed. */
export function checkResultText(r: SslHostView): string {
  if (r.error) return `${r.host}: check failed: ${reasonText(r.error_reason, r.error)}`;
  if (r.day_last === null) return `${r.host}: checked`;
  return r.day_last < 0 ? `${r.host}: expired ${days(-r.day_last)} ago` : `${r.host}: ${days(r.day_last)} left`;
}

/** The notification of 'Check all now': how many were checked, which failed, the soonest expiry. */
function notifyCheckAll(rows: SslHostView[]) {
  const checked = rows.filter((r) => r.not_check === 0);
  const failed = checked.filter((r) => r.error);
  const ok = checked.filter((r) => !r.error && r.day_last !== null).sort((a, b) => a.day_last! - b.day_last!);
  const head = `Checked ${checked.length} ${checked.length === 1 ? 'host' : 'hosts'}`;
  const soonest = ok.length ? `; soonest expiry: ${ok[0].host} (${days(ok[0].day_last!)} left)` : '';
  if (!checked.length) notify.info('No host to check (every host is set to not check)');
  else if (failed.length) notify.error(`${head}, ${failed.length} failed: ${failed.map((r) => `${r.host} (${reasonText(r.error_reason, r.error)})`).join(', ')}${soonest}`);
  else notify.success(`${head}${soonest}`);
}

/** /srv/ssl_check (000 §2): SSL hosts table with the alert banner, add/edit/delete, check now; live. */
export default function SslCheckPage() {
  const list = useRpc('srv.getSslHosts', undefined);
  // Another operator's add, edit, removal or check (ssl.changed) re-reads the list.
  const reloadSoon = useLiveReload(() => void list.reload());
  useSocketEvent('ssl.changed', () => reloadSoon());
  const { run, busy } = useAction();
  const [checking, setChecking] = useState<Set<number | 'all'>>(new Set());
  const [host, setHost] = useState('');
  const addErrs = useFieldErrors();
  const [edit, setEdit] = useState<SslHostView | null>(null);
  const [editHost, setEditHost] = useState('');
  const [editSkip, setEditSkip] = useState(false);
  const editErrs = useFieldErrors();

  const replace = (row: SslHostView) => list.setData((d) => d?.map((r) => (r.Id === row.Id ? row : r)));
  const mark = (k: number | 'all', on: boolean) => setChecking((s) => { const n = new Set(s); if (on) n.add(k); else n.delete(k); return n; });

  const checkOne = async (Id: number) => {
    mark(Id, true);
    const r = await run(() => rpc('srv.sslCheckHost', { Id }, { timeoutMs: 60_000 }));
    mark(Id, false);
    if (!r) return;
    replace(r);
    if (r.error) notify.error(checkResultText(r));
    else notify.success(checkResultText(r));
  };
  const checkAll = async () => {
    mark('all', true);
    const r = await run(() => rpc('srv.sslCheckAll', undefined, { timeoutMs: 120_000 }));
    mark('all', false);
    if (!r) return;
    list.setData(r);
    notifyCheckAll(r);
  };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const bad = validate(SslUpdateArgs, { host });
    if (bad) return addErrs.set(bad);
    const r = await run(() => rpc('srv.sslUpdateHost', { host }), MSG.saveOk, (err) => addErrs.take(err));
    if (!r) return;
    setHost('');
    await list.reload();
    void checkOne(r.Id);
  };

  const saveEdit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!edit) return;
    const args = { Id: edit.Id, host: editHost, not_check: editSkip ? 1 : 0 };
    const bad = validate(SslUpdateArgs, args);
    if (bad) return editErrs.set(bad);
    const r = await run(() => rpc('srv.sslUpdateHost', args), MSG.saveOk, (err) => editErrs.take(err));
    if (r) {
      setEdit(null);
      await list.reload();
    }
  };

  const setNotCheck = async (row: SslHostView, on: boolean) => {
    replace({ ...row, not_check: on ? 1 : 0 });
    const r = await run(() => rpc('srv.sslUpdateHost', { Id: row.Id, not_check: on ? 1 : 0 }), MSG.saveOk);
    if (!r) replace(row);
  };

  const remove = async (row: SslHostView) => {
    const r = await run(() => rpc('srv.sslDeleteById', { Id: row.Id }), MSG.deleteOk);
    if (r) list.setData((d) => d?.filter((x) => x.Id !== row.Id));
  };

  return (
    <div className="app-ssl">
      <PageTitle
        title="SSL check"
        actions={
          <Button size="sm" variant="outline-primary" onClick={() => void checkAll()} disabled={checking.has('all') || !list.data?.length}>
            {checking.has('all') && <Spinner animation="border" size="sm" className="me-1" />}Check all now
          </Button>
        }
      />
      {list.data && <SslAlert rows={list.data} />}
      <Form onSubmit={add} className="mb-3" aria-label="Add SSL host" noValidate>
        <InputGroup size="sm" style={{ maxWidth: 480 }} hasValidation>
          <Form.Control placeholder="example.com or example.com:8443" value={host} onChange={(e) => { setHost(e.currentTarget.value); addErrs.clear(); }} aria-label="Host" isInvalid={!!addErrs.of('host')} />
          <Button type="submit" variant="primary" disabled={busy}>Add</Button>
          {addErrs.of('host') && <Form.Control.Feedback type="invalid">{addErrs.of('host')}</Form.Control.Feedback>}
        </InputGroup>
      </Form>
      <ErrorAlert error={list.error} onRetry={() => void list.reload()} />
      {!list.data && list.loading && <Loading />}
      {list.data && list.data.length === 0 && <EmptyState text="No SSL hosts yet." />}
      {list.data && list.data.length > 0 && (
        <div className="table-responsive">
          <Table size="sm" hover className="align-middle app-ssl-table">
            <thead className="table-light">
              <tr><th>Host</th><th>Days left</th><th>Not check</th><th>Checked</th><th>Certificate</th><th style={{ width: 220 }} /></tr>
            </thead>
            <tbody>
              {list.data.map((r) => (
                <tr key={r.Id} data-host={r.host}>
                  <td className="fw-semibold">{r.host}</td>
                  <td className={dayClass(r)} data-testid="day_last">{r.day_last ?? '-'}</td>
                  <td>
                    <Form.Check type="switch" role="switch" id={`nc-${r.Id}`} checked={r.not_check === 1} aria-label={`Not check ${r.host}`} onChange={(e) => void setNotCheck(r, e.currentTarget.checked)} />
                  </td>
                  <td className="small text-nowrap">{r.ts_check ? fmtDateTime(r.ts_check) : <span className="text-secondary">never</span>}</td>
                  <td className="small">
                    {r.error ? (
                      <>
                        <span className="text-danger" data-testid="ssl-error" data-reason={r.error_reason ?? ''}>Check failed: {reasonText(r.error_reason, r.error)}</span>
                        <RawDetails raw={r.error} />
                      </>
                    ) : r.expires_at ? (
                      <>
                        until {fmtDateTime(r.expires_at)}{' '}
                        {r.chain_valid ? <Badge bg="success">valid chain</Badge> : (
                          <>
                            <Badge bg="warning" text="dark" data-testid="ssl-chain" data-reason={r.chain_reason ?? ''}>chain not valid</Badge>
                            <div className="text-warning-emphasis" data-testid="ssl-chain-reason">{reasonText(r.chain_reason, r.chain_error)}</div>
                            <RawDetails raw={r.chain_error} />
                          </>
                        )}
                      </>
                    ) : (
                      <span className="text-secondary">-</span>
                    )}
                  </td>
                  <td>
                    <div className="d-flex gap-1 justify-content-end">
                      <Button size="sm" variant="outline-success" aria-label={`Check ${r.host}`} disabled={checking.has(r.Id)} onClick={() => void checkOne(r.Id)}>
                        {checking.has(r.Id) ? <Spinner animation="border" size="sm" /> : 'Check now'}
                      </Button>
                      <Button size="sm" variant="outline-primary" aria-label={`Edit ${r.host}`} onClick={() => { setEdit(r); setEditHost(r.host); setEditSkip(r.not_check === 1); editErrs.clear(); }}>Edit</Button>
                      <ConfirmButton text={<>Delete SSL host <strong>{r.host}</strong>?</>} onConfirm={() => remove(r)} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
      <AppModal
        show={!!edit}
        onHide={() => setEdit(null)}
        title={edit ? `Edit ${edit.host}` : ''}
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={() => setEdit(null)}>Cencel</Button>
            <Button size="sm" variant="primary" type="submit" form="ssl-edit-form" disabled={busy}>Save</Button>
          </>
        }
      >
        <Form id="ssl-edit-form" onSubmit={saveEdit} noValidate>
          <TextField name="host" label="Host" value={editHost} onChange={(v) => { setEditHost(v); editErrs.clear('host'); }} error={editErrs.of('host')} help="host or host:port (443 when absent)" />
          <SwitchField name="not_check" label="Not check (no check and no alert)" checked={editSkip} onChange={setEditSkip} />
        </Form>
      </AppModal>
    </div>
  );
}
