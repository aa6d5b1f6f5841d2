/**
 * /invest/account_local/:Id: a local account (001 §2 "Local accounts"): its bonds in the same table,
 * and the positions as entered (ticker or figi, quantity, price as % of nominal) with add / edit /
 * delete; positions the catalogue does not hold are shown with INVEST_MSG.notInCatalogue.
 */
import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Table from 'react-bootstrap/Table';
import { Link, useParams } from 'react-router-dom';
import { INVEST_MSG, INVEST_ROUTES, InvestPositionSave, localAccountId, type InvestLocalPosition } from '../../../contracts/invest.js';
import { rpc, useRpc } from '../../api/index.js';
import { AppModal, ConfirmButton, ErrorAlert, fmtDateTime, Loading, PageTitle, TextField, useAction, useFieldErrors, useUnsavedPrompt, validate } from '../../kit/index.js';
import { fmtQty } from './parts.js';
import { PortfolioView } from './PortfolioView.js';

interface Form { Id?: number; ticker: string; figi: string; quantity: string; price: string }
const EMPTY: Form = { ticker: '', figi: '', quantity: '', price: '' };
const formOf = (p: InvestLocalPosition): Form => ({ Id: p.Id, ticker: p.ticker, figi: p.figi, quantity: String(p.quantity), price: p.price === null ? '' : String(p.price) });

export default function LocalAccountPage() {
  const Id = Number(useParams().Id);
  const account = useRpc('invest.User.getLocalAccount', { Id }, { enabled: Number.isInteger(Id) && Id > 0 });
  const [version, setVersion] = useState(0);
  const { run, busy } = useAction();
  const errs = useFieldErrors();
  const [form, setForm] = useState<{ value: Form; initial: Form } | null>(null);
  const dirty = !!form && JSON.stringify(form.value) !== JSON.stringify(form.initial);
  const unsaved = useUnsavedPrompt(dirty);
  const close = () => {
    if (!busy && unsaved.confirmLeave()) setForm(null);
  };
  const open = (p?: InvestLocalPosition) => {
    errs.clear();
    const v = p ? formOf(p) : EMPTY;
    setForm({ value: v, initial: v });
  };
  const set = (k: keyof Form) => (v: string) => {
    errs.clear(k);
    if (k === 'ticker' || k === 'figi') errs.clear('ticker');
    setForm((f) => (f ? { ...f, value: { ...f.value, [k]: v } } : f));
  };
  const changed = () => {
    void account.reload();
    setVersion((v) => v + 1);
  };
  const save = async () => {
    if (!form) return;
    const f = form.value;
    const args = {
      ...(f.Id ? { Id: f.Id } : {}), Id_account: Id,
      ...(f.ticker.trim() ? { ticker: f.ticker.trim() } : {}), ...(f.figi.trim() ? { figi: f.figi.trim() } : {}),
      quantity: f.quantity.trim(), ...(f.price.trim() ? { price: f.price.trim() } : {}),
    };
    const bad = validate(InvestPositionSave, args);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('invest.User.savePosition', args), (x) => (x.resolved ? x.message : `${x.message} ${INVEST_MSG.notInCatalogue}`), (e) => errs.take(e));
    if (r) {
      setForm(null);
      changed();
    }
  };
  const remove = async (p: InvestLocalPosition) => {
    if (await run(() => rpc('invest.User.deletePosition', { Id: p.Id }), (x) => x.message)) changed();
  };

  if (account.error) return <><div className="mb-2"><Link to={INVEST_ROUTES.index}>← All accounts</Link></div><ErrorAlert error={account.error} onRetry={account.reload} /></>;
  if (!account.data) return <Loading />;
  const a = account.data;
  return (
    <>
      <div className="mb-2"><Link to={INVEST_ROUTES.index}>← All accounts</Link></div>
      <PageTitle title={a.name} actions={<Link className="btn btn-sm btn-outline-primary" to={INVEST_ROUTES.accountModel(a.accountId)}>Coupon forecast</Link>} />
      <PortfolioView key={version} accountId={localAccountId(Id)} />

      <Card className="mt-3">
        <Card.Header className="d-flex align-items-center">
          <span className="me-auto">Positions</span>
          <Button size="sm" onClick={() => open()}>Add position</Button>
        </Card.Header>
        <Card.Body>
          {a.positions.length === 0 ? <div className="text-muted">No positions yet</div> : (
            <Table size="sm" className="mb-0 align-middle small" data-testid="invest-positions">
              <thead><tr><th>Ticker</th><th>Figi</th><th>Name</th><th>Quantity</th><th>Price, % of nominal</th><th>Updated</th><th /></tr></thead>
              <tbody>
                {a.positions.map((p) => (
                  <tr key={p.Id} data-position={p.Id} className={p.resolved ? undefined : 'table-warning'}>
                    <td>{p.ticker}</td>
                    <td>{p.figi}</td>
                    <td>{p.name}{!p.resolved && <div><Badge bg="warning" text="dark">{INVEST_MSG.notInCatalogue}</Badge></div>}</td>
                    <td>{fmtQty(p.quantity)}</td>
                    <td>{p.price === null ? '-' : fmtQty(p.price)}</td>
                    <td>{fmtDateTime(p.time_update)}</td>
                    <td className="text-end text-nowrap">
                      <Button size="sm" variant="outline-secondary" className="me-1" onClick={() => open(p)}>Edit</Button>
                      <ConfirmButton label="Delete" text={`Delete the position ${p.ticker || p.figi}?`} onConfirm={() => remove(p)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card.Body>
      </Card>

      <AppModal
        show={!!form}
        onHide={close}
        title={form?.value.Id ? 'Edit position' : 'Add position'}
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={close} disabled={busy}>Cencel</Button>
            <Button size="sm" variant="primary" onClick={() => void save()} disabled={busy}>Save</Button>
          </>
        }
      >
        {form && (
          <form onSubmit={(e) => { e.preventDefault(); void save(); }}>
            <TextField name="ticker" label="Ticker" value={form.value.ticker} onChange={set('ticker')} error={errs.of('ticker')} help="Ticker or figi" autoFocus />
            <TextField name="figi" label="Figi" value={form.value.figi} onChange={set('figi')} error={errs.of('figi')} />
            <TextField name="quantity" label="Quantity" required value={form.value.quantity} onChange={set('quantity')} error={errs.of('quantity')} />
            <TextField name="price" label="Price, % of nominal" value={form.value.price} onChange={set('price')} error={errs.of('price')} help="Optional" />
            <button type="submit" hidden />
          </form>
        )}
      </AppModal>
    </>
  );
}
