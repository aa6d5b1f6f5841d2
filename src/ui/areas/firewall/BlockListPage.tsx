import { useEffect, useMemo, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { BlockRuleSaveArgs, blockPreview, cleanBlockValue, type BlockRuleView } from '../../../contracts/firewall-rules.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { pageAlerts } from '../../kit/alerts.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SwitchField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { FirewallControls } from './FirewallControls.js';
import { withCount } from './shared.js';
import './firewall.css';

interface Draft {
  value: string;
  comment: string;
  status: boolean;
}
const fromRule = (r: BlockRuleView | null): Draft => ({ value: r?.value ?? '', comment: r?.comment ?? '', status: (r?.status ?? 1) === 1 });

/**
 * Add and edit dialog (000 §5 block rules): one address or CIDR range a line; on leaving the field
 * and on save, empty lines are removed and the addresses sorted numerically; a bad line is named
 * ('Line 3: "x" is not an IP address or CIDR range') and nothing is saved. Unsaved edits ask before
 * they are lost. The save answer's `allowlisted` addresses (saved, but left out of the sync) are shown
 * as a warning.
 */
function BlockRuleDialog({ target, onClose, onSaved }: { target: { rule: BlockRuleView | null } | null; onClose: () => void; onSaved: (allowlisted: string[]) => void }) {
  const rule = target?.rule ?? null;
  const [d, setD] = useState<Draft>(() => fromRule(rule));
  const [lineErrors, setLineErrors] = useState<string[]>([]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const initial = useMemo(() => JSON.stringify(fromRule(target?.rule ?? null)), [target]);
  const unsaved = useUnsavedPrompt(!!target && JSON.stringify(d) !== initial);
  useEffect(() => {
    if (target) {
      setD(fromRule(target.rule));
      setLineErrors([]);
      errs.clear();
    }
  }, [target]); // eslint-disable-line react-hooks/exhaustive-deps

  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setD((p) => ({ ...p, [k]: v }));
    errs.clear(k);
    if (k === 'value') setLineErrors([]);
  };
  /** Cleans the value in the editor; answers the lines, or null (bad lines shown). */
  const clean = (): string[] | null => {
    const { lines, errors } = cleanBlockValue(d.value);
    setLineErrors(errors);
    if (errors.length) return null;
    const v = lines.join('\n');
    if (v !== d.value) setD((p) => ({ ...p, value: v }));
    return lines;
  };
  const requestClose = () => {
    if (!busy && unsaved.confirmLeave()) onClose();
  };
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    const lines = clean();
    if (!lines) return;
    if (!lines.length) return setLineErrors(['Value must hold at least one address or CIDR range']);
    const payload = { ...(rule ? { Id: rule.Id } : {}), value: lines.join('\n'), comment: d.comment.trim(), status: d.status ? 1 : 0 };
    const bad = validate(BlockRuleSaveArgs, payload);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('firewall.saveIptableBlockRules', payload), (x) => x.message, (err) => errs.take(err));
    if (r) {
      unsaved.allowNext();
      onSaved(r.allowlisted);
    }
  };
  const lineCount = d.value.split(/\r?\n/).filter((l) => l.trim()).length;
  return (
    <AppModal
      show={!!target}
      onHide={requestClose}
      staticBackdrop
      title={rule ? `Edit block rule #${rule.Id}` : 'New block rule'}
      footer={
        <>
          <Button size="sm" variant="secondary" onClick={requestClose} disabled={busy}>Cencel</Button>
          <Button size="sm" variant="primary" type="submit" form="fw-block-form" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-1" />}Save
          </Button>
        </>
      }
    >
      <Form id="fw-block-form" aria-label="Block rule" onSubmit={submit} noValidate>
        <TextField
          name="value" label={`Addresses (${plural(lineCount, 'line')})`} rows={10} value={d.value} onChange={(v) => set('value', v)}
          error={errs.of('value')} help="One IPv4 / IPv6 address or CIDR range a line. Empty lines are removed and the list sorted numerically by 'Clean and sort' and on save."
          placeholder={'203.0.113.0/24\n198.51.100.7\n2001:db8::/32'} className="mb-2 app-fw-block-value"
        />
        {lineErrors.length > 0 && (
          <div className="alert alert-danger py-2 small" role="alert" data-testid="line-errors">
            {lineErrors.slice(0, 10).map((m) => <div key={m}>{m}</div>)}
            {lineErrors.length > 10 && <div>and {plural(lineErrors.length - 10, 'more line')}</div>}
          </div>
        )}
        <div className="d-flex mb-2">
          <Button size="sm" variant="outline-secondary" onClick={() => void clean()}>Clean and sort</Button>
        </div>
        <TextField name="comment" label="Comment" value={d.comment} onChange={(v) => set('comment', v)} error={errs.of('comment')} maxLength={190} />
        <SwitchField name="status" label="On" checked={d.status} onChange={(v) => set('status', v)} />
        <button type="submit" hidden />
      </Form>
    </AppModal>
  );
}

/** /firewall/iptables_block_list (000 §2, §3 IP block rule, §4 block rule switch, §5): block rules with a status switch, add and edit. */
export default function BlockListPage() {
  const list = useRpc('firewall.getIptableBlockRules', undefined);
  const { run, busy } = useAction();
  const [target, setTarget] = useState<{ rule: BlockRuleView | null } | null>(null);

  const onSaved = (allowlisted: string[]) => {
    setTarget(null);
    void list.reload();
    if (allowlisted.length) {
      pageAlerts.show({
        variant: 'warning',
        key: 'fw-allowlisted',
        text: `Saved, but these addresses are allowlisted and left out of the sync: ${allowlisted.join('; ')}`,
      });
    }
  };
  const toggle = async (r: BlockRuleView, on: boolean) => {
    list.setData((l) => l?.map((x) => (x.Id === r.Id ? { ...x, status: on ? 1 : 0 } : x)));
    const ok = await run(() => rpc('firewall.switchIptableBlockRule', { Id: r.Id, status: on ? 1 : 0 }), withCount);
    if (!ok) void list.reload();
  };
  const remove = async (r: BlockRuleView) => {
    if (await run(() => rpc('firewall.deleteIptableBlockRule', { Id: r.Id }), withCount)) await list.reload();
  };
  const rows = list.data;

  return (
    <div className="app-fw">
      <PageTitle title="Block list" actions={<Button size="sm" variant="primary" onClick={() => setTarget({ rule: null })}>Add</Button>} />
      <FirewallControls />
      <ErrorAlert error={list.error} onRetry={() => void list.reload()} />
      {!rows && list.loading && <Loading />}
      {rows && rows.length === 0 && <EmptyState text="No block rules yet." />}
      {rows && rows.length > 0 && (
        <div className="app-card table-responsive">
          <Table size="sm" hover className="align-middle mb-0" data-testid="block-rules">
            <thead className="table-light">
              <tr><th style={{ width: 56 }}>Id</th><th>Value</th><th>Comment</th><th style={{ width: 64 }}>On</th><th /></tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.Id} data-rule={r.Id}>
                  <td>{r.Id}</td>
                  <td className="app-mono small" data-testid="preview" title={r.value}>{blockPreview(r.value)}</td>
                  <td className="small">{r.comment}</td>
                  <td>
                    <Form.Check type="switch" id={`block-${r.Id}`} aria-label={`On ${r.Id}`} checked={r.status === 1} disabled={busy} onChange={(e) => void toggle(r, e.currentTarget.checked)} />
                  </td>
                  <td className="text-end text-nowrap">
                    <Button size="sm" variant="outline-primary" className="me-1" onClick={() => setTarget({ rule: r })} aria-label={`Edit ${r.Id}`}>Edit</Button>
                    <ConfirmButton title={`Delete block rule #${r.Id}`} text={<>Delete block rule #{r.Id} ({blockPreview(r.value)})?</>} onConfirm={() => remove(r)} disabled={busy} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
      <BlockRuleDialog target={target} onClose={() => setTarget(null)} onSaved={onSaved} />
    </div>
  );
}
