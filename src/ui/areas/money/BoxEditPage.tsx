import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { MONEY_MSG, MoneyBoxUpdate } from '../../../contracts/money.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { fmtMoney } from './parts.js';
import './api.js';

interface Values { title: string; description: string }
const EMPTY: Values = { title: '', description: '' };

/**
 * /money/add and /money/box/{bid}/edit (001 §2, §5 "Box edit: description required"): the box's title
 * and description; Delete asks first and says the deletion is irreversible (001 §5). Editing and
 * deleting the box itself is for its owner and admins.
 */
export default function BoxEditPage() {
  const { bid: bidParam } = useParams();
  const bid = bidParam && /^\d+$/.test(bidParam) ? Number(bidParam) : undefined;
  const editing = bidParam !== undefined;
  const navigate = useNavigate();
  const box = useRpc('money.getBox', { bid: bid ?? 0 }, { enabled: bid !== undefined });
  const [v, setV] = useState<Values>(EMPTY);
  const [base, setBase] = useState<Values>(EMPTY);
  const unsaved = useUnsavedPrompt(JSON.stringify(v) !== JSON.stringify(base));
  const errs = useFieldErrors();
  const { run, busy } = useAction();

  useEffect(() => {
    if (!box.data) return;
    const x = { title: box.data.title, description: box.data.description };
    setV(x);
    setBase(x);
  }, [box.data]);

  const set = (k: keyof Values, value: string) => {
    setV((o) => ({ ...o, [k]: value }));
    errs.clear(k);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = { ...(bid ? { bid } : {}), title: v.title, description: v.description };
    const bad = validate(MoneyBoxUpdate, body);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('money.boxUpdate', body), (x) => x.message, (err) => errs.take(err));
    if (!r) return;
    unsaved.allowNext();
    navigate(`/money/box/${r.bid}`);
  };

  const remove = async () => {
    if (!bid) return;
    const r = await run(() => rpc('money.boxDelete', { bid }), MONEY_MSG.deleteOk);
    if (!r) return;
    unsaved.allowNext();
    navigate('/money');
  };

  if (editing && bid === undefined) return <><PageTitle title="Box" /><EmptyState text={MONEY_MSG.boxNotFound} /><Link to="/money">Box list</Link></>;
  if (editing && box.error) return <><PageTitle title="Box" /><ErrorAlert error={box.error} onRetry={() => void box.reload()} /><Link to="/money">Box list</Link></>;
  if (editing && !box.data) return <Loading />;
  const b = box.data;
  const back = b ? `/money/box/${b.bid}` : '/money';

  return (
    <div style={{ maxWidth: 800 }}>
      <PageTitle title={b ? `Edit box: ${b.title}` : 'New box'} actions={<Link className="btn btn-sm btn-outline-secondary" to={back}>Back</Link>} />
      {b && b.can_manage === 0 && <EmptyState title="Read only" text="Only the owner of the box or an admin can change or delete it." />}
      <Form onSubmit={save} noValidate aria-label="Box">
        <Card className="mb-3">
          <Card.Body>
            <TextField name="title" label="Title" required value={v.title} onChange={(x) => set('title', x)} error={errs.of('title')} maxLength={190} disabled={b?.can_manage === 0} />
            <TextField name="description" label="Description" required rows={3} value={v.description} onChange={(x) => set('description', x)} error={errs.of('description')} disabled={b?.can_manage === 0} />
            {b && <div className="small text-secondary">Balance {fmtMoney(b.balance)} · owner {b.owner}</div>}
          </Card.Body>
        </Card>
        <div className="d-flex gap-2">
          {(!b || b.can_manage === 1) && <Button type="submit" disabled={busy}>Save</Button>}
          {b && b.can_manage === 1 && (
            <ConfirmButton
              label="Delete box" title="Delete box" text={MONEY_MSG.deleteBoxConfirm}
              confirmLabel="Delete irreversibly" onConfirm={remove} disabled={busy} className="ms-auto"
            />
          )}
        </div>
      </Form>
    </div>
  );
}
