import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { MONEY_MSG, MONEY_TYPE_LABELS, MoneySetTransaction, type MoneyTransaction, type MoneyType } from '../../../contracts/money.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { DateInput, isDayText, SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { fmtMoney, localDay, TagInput } from './parts.js';
import './api.js';

interface Values { type: '' | '0' | '1'; val: string; tags: string; time_set: string; description: string }

const valuesOf = (t: MoneyTransaction, day?: string): Values => ({
  type: String(t.type) as '0' | '1', val: t.val, tags: t.tags.split(',').filter(Boolean).join(', '), time_set: day ?? t.time_set, description: t.description,
});

/**
 * /money/box/{bid}/add_transaction, /edit_transaction/{trid} and /clone_transaction/{clonetrid}
 * (001 §2, §3 Transaction, §5): type (required: 'Не указан тип записи'), val (exact: "12.50", at
 * most 2 decimals), tags comma separated with suggestions, time_set (yyyy-MM-dd), description. A clone
 * starts from the copied transaction dated today and saves as a new one; Delete (edit) asks first and
 * says that deletion is irreversible.
 */
export default function TransactionEditPage() {
  const params = useParams();
  const bid = Number(params.bid);
  const trid = params.trid && /^\d+$/.test(params.trid) ? Number(params.trid) : undefined;
  const clone = params.clonetrid && /^\d+$/.test(params.clonetrid) ? Number(params.clonetrid) : undefined;
  const source = trid ?? clone;
  const navigate = useNavigate();
  const box = useRpc('money.getBox', { bid }, { enabled: bid > 0 });
  const src = useRpc('money.getTransaction', { trid: source ?? 0 }, { enabled: source !== undefined });
  const fresh: Values = { type: '', val: '', tags: '', time_set: localDay(), description: '' };
  const [v, setV] = useState<Values>(fresh);
  const [base, setBase] = useState<Values>(fresh);
  const unsaved = useUnsavedPrompt(JSON.stringify(v) !== JSON.stringify(base));
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const back = `/money/box/${bid}`;

  useEffect(() => {
    if (!src.data) return;
    const x = valuesOf(src.data, clone ? localDay() : undefined);
    setV(x);
    setBase(x);
  }, [src.data, clone]);

  const set = <K extends keyof Values>(k: K, value: Values[K]) => {
    setV((o) => ({ ...o, [k]: value }));
    errs.clear(k);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      bid, ...(trid ? { trid } : {}), ...(v.type !== '' ? { type: Number(v.type) as MoneyType } : {}),
      val: v.val, tags: v.tags, time_set: v.time_set, description: v.description,
    };
    const bad = validate(MoneySetTransaction, body);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('money.setTransaction', body), (x) => x.message, (err) => errs.take(err));
    if (!r) return;
    unsaved.allowNext();
    navigate(back);
  };

  const remove = async () => {
    if (!trid) return;
    const r = await run(() => rpc('money.deleteTransaction', { trid }), MONEY_MSG.deleteOk);
    if (!r) return;
    unsaved.allowNext();
    navigate(back);
  };

  if (!(bid > 0) || box.error) return <><PageTitle title="Transaction" /><ErrorAlert error={box.error ?? new Error(MONEY_MSG.boxNotFound)} /><Link to="/money">Box list</Link></>;
  if (src.error) return <><PageTitle title="Transaction" /><ErrorAlert error={src.error} /><Link to={back}>Back to the box</Link></>;
  if (!box.data || (source !== undefined && !src.data)) return <Loading />;
  if (src.data && src.data.bid !== bid) return <><PageTitle title="Transaction" /><EmptyState text={MONEY_MSG.transactionNotFound} /><Link to={back}>Back to the box</Link></>;
  const title = trid ? `Edit transaction ${trid}` : clone ? `Clone transaction ${clone}` : 'Add transaction';

  return (
    <div style={{ maxWidth: 800 }}>
      <PageTitle title={title} actions={<Link className="btn btn-sm btn-outline-secondary" to={back}>Back to {box.data.title}</Link>} />
      <div className="small text-secondary mb-2">Box <strong>{box.data.title}</strong> · balance {fmtMoney(box.data.balance)}</div>
      <Form onSubmit={save} noValidate aria-label="Transaction">
        <Card className="mb-3">
          <Card.Body>
            <div className="d-flex gap-3 flex-wrap">
              <SelectField
                name="type" label="Type" value={v.type} onChange={(x) => set('type', x as Values['type'])} error={errs.of('type')}
                options={[{ value: '', label: '— choose —' }, { value: '0', label: MONEY_TYPE_LABELS[0] }, { value: '1', label: MONEY_TYPE_LABELS[1] }]}
              />
              <TextField name="val" label="Value" required value={v.val} onChange={(x) => set('val', x)} error={errs.of('val')} placeholder="0.00" help="Up to 2 decimals: 12.50" />
              <Form.Group className="mb-2" controlId="f-time_set">
                <Form.Label className="mb-1 small fw-semibold">Date<span className="text-danger ms-1">*</span></Form.Label>
                <DateInput id="f-time_set" value={v.time_set} onChange={(x) => set('time_set', x)} isInvalid={!!errs.of('time_set') || !isDayText(v.time_set)} aria-label="Date" />
                {errs.of('time_set') && <div className="text-danger small">{errs.of('time_set')}</div>}
              </Form.Group>
            </div>
            <TagInput name="tags" label="Tags (comma separated)" value={v.tags} onChange={(x) => set('tags', x)} bid={bid} error={errs.of('tags')} popular />
            <TextField name="description" label="Description" rows={2} value={v.description} onChange={(x) => set('description', x)} error={errs.of('description')} help={trid ? undefined : "The box's rules may add tags by the description"} />
          </Card.Body>
        </Card>
        <div className="d-flex gap-2">
          <Button type="submit" disabled={busy}>Save</Button>
          {trid && (
            <ConfirmButton label="Delete" title="Delete transaction" text={MONEY_MSG.deleteTransactionConfirm} confirmLabel="Delete irreversibly" onConfirm={remove} disabled={busy} className="ms-auto" />
          )}
        </div>
      </Form>
    </div>
  );
}
