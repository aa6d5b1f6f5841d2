import { Fragment, useEffect, useRef, useState, type ChangeEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { Link, useParams } from 'react-router-dom';
import { MONEY_MSG, MONEY_PAGE, MONEY_TYPE_LABELS, splitTags, type MoneyBoxDetail, type MoneyType } from '../../../contracts/money.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { ApiError, errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { DateInput, isDayText, SelectField } from '../../kit/fields.js';
import { plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { Pager, usePageParam, useQueryParam } from '../../kit/pagination.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { downloadCsv, type TxQuery } from './api.js';
import { fmtMoney, signed, TagInput, Tags, TypeBadge } from './parts.js';

interface RuleRow { contains: string; tags: string }

/** The box's rules "description contains X -> tags" (applied to new transactions and imports). */
function RulesEditor({ bid, rows, setRows, saved, onSaved }: { bid: number; rows: RuleRow[]; setRows: (r: RuleRow[]) => void; saved: boolean; onSaved: (r: RuleRow[]) => void }) {
  const { run, busy } = useAction();
  const [err, setErr] = useState<string | null>(null);
  const edit = (i: number, k: keyof RuleRow, value: string) => setRows(rows.map((r, j) => (j === i ? { ...r, [k]: value } : r)));
  const save = async () => {
    setErr(null);
    const r = await run(() => rpc('money.setRules', { bid, rules: rows }), MONEY_MSG.saveOk, (e) => setErr(errorText(e)));
    if (r) onSaved(r.map((x) => ({ contains: x.contains, tags: x.tags.split(',').join(', ') })));
  };
  return (
    <Card className="mb-3" data-testid="money-rules">
      <Card.Header className="d-flex align-items-center">
        <span className="fw-semibold">Rules</span>
        <span className="small text-secondary ms-2">a new transaction whose description contains the text (any case) gets the tags; on insert and CSV import</span>
      </Card.Header>
      <Card.Body>
        {rows.length === 0 && <div className="small text-secondary mb-2">No rules.</div>}
        {rows.map((r, i) => (
          <div className="d-flex gap-2 mb-2 align-items-start flex-wrap" key={i}>
            <Form.Control size="sm" style={{ maxWidth: 260 }} aria-label={`rule ${i + 1} contains`} name={`rules.${i}.contains`} placeholder="Description contains" value={r.contains} onChange={(e) => edit(i, 'contains', e.currentTarget.value)} />
            <span className="pt-1">→</span>
            <div style={{ minWidth: 240, flex: 1 }}>
              <TagInput name={`rules.${i}.tags`} size="sm" value={r.tags} onChange={(x) => edit(i, 'tags', x)} bid={bid} placeholder="tags" />
            </div>
            <Button size="sm" variant="outline-secondary" aria-label={`remove rule ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</Button>
          </div>
        ))}
        <div className="d-flex gap-2 align-items-center">
          <Button size="sm" variant="outline-primary" onClick={() => setRows([...rows, { contains: '', tags: '' }])}>Add rule</Button>
          <Button size="sm" disabled={busy || saved} onClick={() => void save()}>Save rules</Button>
          {!saved && <span className="small text-warning">unsaved</span>}
        </div>
        {err && <Alert variant="danger" className="mt-2 mb-0 py-1 small">{err}</Alert>}
      </Card.Body>
    </Card>
  );
}

/** Admins give a user the box (they then see and change its transactions and rules) or take it back. */
function SharesCard({ box, onChange }: { box: MoneyBoxDetail; onChange: () => void }) {
  const users = useRpc('user.getList', { page: 1, limit: 500 });
  const [uid, setUid] = useState('');
  const { run, busy } = useAction();
  const taken = new Set([box.uid, ...box.shares.map((s) => s.uid)]);
  const candidates = (users.data?.list ?? []).filter((u) => !taken.has(u.uid) && u.active);
  const share = async (who: number, on: 0 | 1) => {
    const r = await run(() => rpc('money.shareBox', { bid: box.bid, uid: who, share: on }), MONEY_MSG.saveOk);
    if (r) { setUid(''); onChange(); }
  };
  return (
    <Card className="mb-3" data-testid="money-shares">
      <Card.Header className="fw-semibold">Shared with</Card.Header>
      <Card.Body>
        {box.shares.length === 0 && <div className="small text-secondary mb-2">Nobody: only the owner ({box.owner}) and admins see this box.</div>}
        {box.shares.map((s) => (
          <div key={s.uid} className="d-flex align-items-center gap-2 mb-1">
            <span>{s.name} <span className="text-secondary small">({s.login})</span></span>
            <Button size="sm" variant="outline-secondary" disabled={busy} onClick={() => void share(s.uid, 0)}>Take back</Button>
          </div>
        ))}
        <div className="d-flex gap-2 mt-2">
          <Form.Select size="sm" style={{ maxWidth: 280 }} value={uid} onChange={(e) => setUid(e.currentTarget.value)} aria-label="User to share with">
            <option value="">— user —</option>
            {candidates.map((u) => <option key={u.uid} value={u.uid}>{u.name} ({u.login})</option>)}
          </Form.Select>
          <Button size="sm" disabled={!uid || busy} onClick={() => void share(Number(uid), 1)}>Share</Button>
        </div>
      </Card.Body>
    </Card>
  );
}

/**
 * /money/box/{bid} (001 §2): the box's balance, its transactions grouped by day (newest first, 20 per
 * page on `p_`, filters in the URL), Box list, Add transaction, Edit box and Report; each transaction
 * has Edit, Clone and Delete (irreversible, asked first). CSV export (the filter applied) and import
 * (nothing imported when a row is refused: the refused lines are listed), the rules editor, and for
 * admins the users the box is shared with.
 */
export default function BoxPage() {
  const bid = Number(useParams().bid);
  const session = useSession();
  const isAdmin = roleAllows(session?.role, Role.admin);
  const [page, setPage] = usePageParam();
  const [type, setType] = useQueryParam('type');
  const [tagsParam, setTagsParam] = useQueryParam('tags');
  const [from, setFrom] = useQueryParam('from');
  const [to, setTo] = useQueryParam('to');
  const [tagDraft, setTagDraft] = useState(tagsParam.split(',').join(', '));
  const [fromDraft, setFromDraft] = useState(from);
  const [toDraft, setToDraft] = useState(to);
  const filter: TxQuery = {
    ...(type === '0' || type === '1' ? { type: Number(type) as MoneyType } : {}),
    ...(tagsParam ? { tags: splitTags(tagsParam) } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
  const box = useRpc('money.getBox', { bid }, { enabled: bid > 0 });
  const txs = useRpc('money.getTransactions', { bid, p_: page, limit: MONEY_PAGE, ...filter }, { enabled: bid > 0 });
  const rules = useRpc('money.getRules', { bid }, { enabled: bid > 0 });
  const [ruleRows, setRuleRows] = useState<RuleRow[]>([]);
  const [ruleBase, setRuleBase] = useState<RuleRow[]>([]);
  const rulesDirty = JSON.stringify(ruleRows) !== JSON.stringify(ruleBase);
  useUnsavedPrompt(rulesDirty);
  const { run } = useAction();
  const file = useRef<HTMLInputElement>(null);
  const [refused, setRefused] = useState<{ message: string; lines: [string, string][] } | null>(null);

  useEffect(() => {
    if (!rules.data) return;
    const r = rules.data.map((x) => ({ contains: x.contains, tags: x.tags.split(',').join(', ') }));
    setRuleRows(r);
    setRuleBase(r);
  }, [rules.data]);

  const reloadAll = async () => { await Promise.all([box.reload(), txs.reload()]); };
  const applyFilter = () => {
    if (!isDayText(fromDraft) || !isDayText(toDraft)) return;
    setTagsParam(splitTags(tagDraft).join(','));
    setFrom(fromDraft);
    setTo(toDraft);
  };
  const clearFilter = () => {
    setTagDraft(''); setFromDraft(''); setToDraft('');
    setTagsParam(''); setFrom(''); setTo(''); setType('');
  };
  const remove = async (trid: number) => {
    const r = await run(() => rpc('money.deleteTransaction', { trid }), MONEY_MSG.deleteOk);
    if (r) await reloadAll();
  };
  const pickFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!f) return;
    setRefused(null);
    const csv = await f.text();
    try {
      const r = await rpc('money.importCsv', { bid, csv });
      notify.success(`Imported ${plural(r.imported, 'transaction')}; balance ${fmtMoney(r.balance)}`);
      await reloadAll();
    } catch (err) {
      if (err instanceof ApiError && err.fields && Object.keys(err.fields).some((k) => k.startsWith('line '))) {
        setRefused({ message: err.message.split(' (line ')[0], lines: Object.entries(err.fields) });
      } else notify.error(errorText(err));
    }
  };

  if (!(bid > 0)) return <><PageTitle title="Box" /><EmptyState text={MONEY_MSG.boxNotFound} /><Link to="/money">Box list</Link></>;
  if (box.error) return <><PageTitle title="Box" /><ErrorAlert error={box.error} onRetry={() => void box.reload()} /><Link to="/money">Box list</Link></>;
  if (!box.data) return <Loading />;
  const b = box.data;
  const list = txs.data?.list ?? [];
  const daySums = new Map((txs.data?.days ?? []).map((d) => [d.day, d]));
  const filtered = Object.keys(filter).length > 0;

  return (
    <>
      <PageTitle
        title={b.title}
        actions={
          <div className="d-flex gap-1 flex-wrap">
            <Link className="btn btn-sm btn-outline-secondary" to="/money">Box list</Link>
            <Link className="btn btn-sm btn-primary" to={`/money/box/${bid}/add_transaction`}>Add transaction</Link>
            {b.can_manage === 1 && <Link className="btn btn-sm btn-outline-primary" to={`/money/box/${bid}/edit`}>Edit box</Link>}
            <Link className="btn btn-sm btn-outline-primary" to={`/money/report/${bid}`}>Report</Link>
          </div>
        }
      />
      <Card className="mb-3">
        <Card.Body className="d-flex flex-wrap gap-4 align-items-center">
          <div>
            <div className="small text-secondary">Balance</div>
            <div className={`app-money-balance ${b.balance.startsWith('-') ? 'text-danger' : ''}`} data-testid="money-balance">{fmtMoney(txs.data?.balance ?? b.balance)}</div>
          </div>
          <div className="flex-grow-1" style={{ minWidth: 200 }}>
            <div style={{ whiteSpace: 'pre-wrap' }}>{b.description}</div>
            <div className="small text-secondary">{plural(b.count, 'transaction')} · owner {b.owner}{b.shared ? ' · shared with you' : ''}</div>
          </div>
          <div className="d-flex gap-1 flex-wrap">
            <Button size="sm" variant="outline-secondary" onClick={() => void run(() => downloadCsv(bid, filter))}>Export CSV</Button>
            <Button size="sm" variant="outline-secondary" onClick={() => file.current?.click()}>Import CSV</Button>
            <input ref={file} type="file" accept=".csv,text/csv,text/plain" className="d-none" aria-label="CSV file to import" onChange={(e) => void pickFile(e)} />
          </div>
        </Card.Body>
      </Card>
      {refused && (
        <Alert variant="danger" dismissible onClose={() => setRefused(null)} data-testid="import-refused">
          <div className="fw-semibold">{refused.message}</div>
          <ul className="mb-0 small">{refused.lines.map(([k, v]) => <li key={k}>{k}: {v}</li>)}</ul>
        </Alert>
      )}

      <Form className="d-flex flex-wrap gap-2 align-items-end mb-2" onSubmit={(e) => { e.preventDefault(); applyFilter(); }} aria-label="Filter">
        <SelectField name="type" className="mb-0" label="Type" size="sm" value={type} onChange={(x) => setType(x)} options={[{ value: '', label: 'All' }, { value: '0', label: MONEY_TYPE_LABELS[0] }, { value: '1', label: MONEY_TYPE_LABELS[1] }]} />
        <div style={{ minWidth: 220 }}><TagInput name="filter_tags" label="Tags (any of)" size="sm" value={tagDraft} onChange={setTagDraft} bid={bid} placeholder="tags" /></div>
        <Form.Group className="mb-2" controlId="f-from"><Form.Label className="mb-1 small fw-semibold">From</Form.Label><DateInput id="f-from" size="sm" value={fromDraft} onChange={setFromDraft} aria-label="From" /></Form.Group>
        <Form.Group className="mb-2" controlId="f-to"><Form.Label className="mb-1 small fw-semibold">To</Form.Label><DateInput id="f-to" size="sm" value={toDraft} onChange={setToDraft} aria-label="To" /></Form.Group>
        <Button type="submit" size="sm" className="mb-2">Apply</Button>
        {filtered && <Button size="sm" variant="outline-secondary" className="mb-2" onClick={clearFilter}>Clear</Button>}
      </Form>

      <ErrorAlert error={txs.error} onRetry={() => void txs.reload()} />
      {txs.loading && !txs.data && <Loading />}
      {txs.data && !list.length && (txs.data.count > 0
        ? <EmptyState text={`Page ${page} is past the end.`}><Button size="sm" variant="link" onClick={() => setPage(Math.max(1, Math.ceil(txs.data!.count / MONEY_PAGE)))}>Last page</Button></EmptyState>
        : <EmptyState title={filtered ? 'Nothing matches the filter' : 'No transactions yet'} />)}
      {list.length > 0 && (
        <Table size="sm" responsive className="align-middle mb-2" aria-label="Transactions">
          <tbody>
            {list.map((x, i) => {
              const day = x.time_set;
              const head = i === 0 || list[i - 1].time_set !== day;
              const sums = daySums.get(day);
              return (
                <Fragment key={x.trid}>
                  {head && (
                    <tr className="app-money-day" data-day={day}>
                      <td colSpan={3}>{day}</td>
                      <td colSpan={2} className="text-end small">
                        {sums && <>{sums.income !== '0.00' && <span className="text-success me-2">+{fmtMoney(sums.income)}</span>}{sums.expense !== '0.00' && <span className="text-danger">−{fmtMoney(sums.expense)}</span>}</>}
                      </td>
                    </tr>
                  )}
                  <tr data-trid={x.trid}>
                    <td style={{ width: 90 }}><TypeBadge type={x.type} /></td>
                    <td className={`app-money-amount ${x.type === 1 ? 'income' : 'expense'}`} style={{ width: 140 }}>{signed(x.type, x.val)}</td>
                    <td><Tags tags={x.tags} onTag={(t) => { setTagDraft(t); setTagsParam(t); }} /></td>
                    <td className="app-money-desc small">{x.description}</td>
                    <td className="text-end text-nowrap">
                      <Link className="btn btn-sm btn-outline-secondary me-1" to={`/money/box/${bid}/edit_transaction/${x.trid}`}>Edit</Link>
                      <Link className="btn btn-sm btn-outline-secondary me-1" to={`/money/box/${bid}/clone_transaction/${x.trid}`}>Clone</Link>
                      <ConfirmButton title="Delete transaction" text={MONEY_MSG.deleteTransactionConfirm} confirmLabel="Delete irreversibly" onConfirm={() => remove(x.trid)} />
                    </td>
                  </tr>
                </Fragment>
              );
            })}
          </tbody>
        </Table>
      )}
      {txs.data && <Pager page={page} count={txs.data.count} limit={MONEY_PAGE} onPage={setPage} loading={txs.loading} className="mb-3" />}

      <RulesEditor bid={bid} rows={ruleRows} setRows={setRuleRows} saved={!rulesDirty} onSaved={(r) => { setRuleRows(r); setRuleBase(r); }} />
      {isAdmin && <SharesCard box={b} onChange={() => void box.reload()} />}
    </>
  );
}
