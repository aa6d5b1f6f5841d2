import { useEffect, useMemo, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import {
  actionArgument, actionName, CRON_DEFAULTS, CRON_FIELD_HELP, CRON_FIELDS, CRON_LABELS, CRON_URL_MASK, cronFieldError, httpRequestOf, nextRunOf, parseCronCmd,
  splitUrlUserinfo, validateCronTask, type CronField, type CronTaskView,
} from '../../../contracts/cron.js';
import { useRest } from '../../api/hooks.js';
import { rest } from '../../api/rest.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SwitchField, TextField, useFieldErrors } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { cmdPlaceholder, CronActionPicker, useCronActions } from './CronActionPicker.js';
import './api.js';
import './cron.css';

type Values = Record<CronField, string> & { name: string; cmd: string; suspended: 0 | 1 };
const EMPTY: Values = { name: '', cmd: '', suspended: 0, ...CRON_DEFAULTS };
const LIST = '/cfg/app_cron';

/** What the cmd will do, or why it cannot (checked as the user types; the server checks again). */
function CmdPreview({ cmd }: { cmd: string }) {
  if (!cmd.trim()) return null;
  try {
    const c = parseCronCmd(cmd);
    if (c.kind === 'action') {
      const arg = actionArgument(c.args);
      return <span data-testid="cmd-preview">Action <code>{actionName(c)}</code>{arg !== undefined && <> with <code>{JSON.stringify(arg)}</code></>}</span>;
    }
    const r = httpRequestOf(c);
    return <span data-testid="cmd-preview">HTTP <code>{r.method} {r.url}</code>{r.body !== undefined && <> body <code>{r.body}</code></>}</span>;
  } catch (err) {
    return <span className="text-danger" data-testid="cmd-preview">{(err as Error).message}</span>;
  }
}

/** The cmd without the credentials of its curl= URL, or null when it has none. */
function withoutCredentials(cmd: string): string | null {
  try {
    const c = parseCronCmd(cmd);
    const u = c.kind === 'http' ? splitUrlUserinfo(c.url) : null;
    return u ? cmd.replace(c.kind === 'http' ? c.url : '', u.bare) : null;
  } catch {
    return null;
  }
}

/**
 * Credentials in a curl= URL (docs/cron.md): the server stores them encrypted and answers them masked
 * (user:***@); saving the mask back keeps them, typing new ones replaces them, removing them clears them.
 */
function UrlCredentials({ cmd, onRemove }: { cmd: string; onRemove: (cmd: string) => void }) {
  const bare = withoutCredentials(cmd);
  if (bare === null) return null;
  let masked = false;
  try {
    const c = parseCronCmd(cmd);
    masked = c.kind === 'http' && !!splitUrlUserinfo(c.url)?.isMask;
  } catch { /* withoutCredentials parsed it */ }
  return (
    <div className="small mb-2" data-testid="url-credentials">
      {masked
        ? <>The URL's credentials are stored encrypted and shown as <code>{CRON_URL_MASK}</code>: leave <code>{CRON_URL_MASK}</code> to keep them, type new ones to replace them.</>
        : <>The URL's credentials will be stored encrypted and shown as <code>{CRON_URL_MASK}</code>.</>}
      {' '}<Button variant="link" size="sm" className="p-0 align-baseline" onClick={() => onRemove(bare)}>Remove credentials</Button>
    </div>
  );
}

/** The next runs of a valid schedule. */
function NextRuns({ v }: { v: Values }) {
  const runs = useMemo(() => {
    const out: Date[] = [];
    let from = new Date();
    for (let i = 0; i < 3; i++) {
      const n = nextRunOf(v, from);
      if (!n) break;
      out.push(n);
      from = n;
    }
    return out;
  }, [v]);
  if (!runs.length) return null;
  return <div className="small text-secondary" data-testid="next-runs">Next runs: {runs.map((d) => fmtDateTime(d)).join(', ')}</div>;
}

/** /cfg/app_cron/add and /cfg/app_cron/edit/{Id} (000 §2): one screen; after save or delete, back to the list. */
export default function CronEditPage() {
  const { Id: idParam } = useParams();
  const Id = idParam ? Number(idParam) : undefined;
  const editing = Id !== undefined;
  const navigate = useNavigate();
  const loaded = useRest<CronTaskView>('/cfg/app_cron', { Id }, { enabled: editing });
  const [v, setV] = useState<Values>(EMPTY);
  // What was loaded (or the empty form): anything else is an unsaved edit, asked about before leaving.
  const [base, setBase] = useState<Values>(EMPTY);
  const unsaved = useUnsavedPrompt(JSON.stringify(v) !== JSON.stringify(base));
  const actions = useCronActions();
  const errs = useFieldErrors();
  const { run, busy } = useAction();

  useEffect(() => {
    const t = loaded.data;
    if (!t) return;
    const loadedValues: Values = { name: t.name, cmd: t.cmd, suspended: t.suspended, second: t.second, minute: t.minute, hour: t.hour, day: t.day, month: t.month, week: t.week };
    setV(loadedValues);
    setBase(loadedValues);
  }, [loaded.data]);

  const set = <K extends keyof Values>(k: K, value: Values[K]) => {
    setV((old) => ({ ...old, [k]: value }));
    errs.clear(k as string);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const bad = validateCronTask(v);
    if (bad) return errs.set(bad);
    const r = await run(() => rest.post<{ Id: number; message: string }>('/cfg/save_app_cron', { ...v, ...(editing ? { Id } : {}) }), CRON_LABELS.saveOk, (err) => errs.take(err));
    if (r) {
      unsaved.allowNext();
      navigate(LIST);
    }
  };

  const remove = async () => {
    const r = await run(() => rpc('cfg.appCronDelete', { Id: Id! }), CRON_LABELS.deleteOk);
    if (r) {
      unsaved.allowNext();
      navigate(LIST);
    }
  };

  if (editing && loaded.error) return <><PageTitle title="Cron task" /><ErrorAlert error={loaded.error} onRetry={() => void loaded.reload()} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && !loaded.data) return <Loading />;

  return (
    <div className="app-cron-edit" style={{ maxWidth: 900 }}>
      <PageTitle title={editing ? `Cron task: ${loaded.data?.name ?? ''}` : CRON_LABELS.addNew} />
      <Form onSubmit={save} noValidate aria-label="Cron task">
        <Card className="mb-3">
          <Card.Body>
            <TextField name="name" label="Name" required value={v.name} onChange={(x) => set('name', x)} error={errs.of('name')} autoFocus={!editing} />
            <div className="row g-2 app-cron-fields" role="group" aria-label="Schedule">
              {CRON_FIELDS.map((f) => (
                <div className="col-6 col-md-4 col-lg-2" key={f}>
                  <TextField name={f} label={f} value={v[f]} onChange={(x) => set(f, x)} error={errs.of(f) ?? cronFieldError(f, v[f]) ?? undefined} help={CRON_FIELD_HELP[f]} size="sm" />
                </div>
              ))}
            </div>
            <NextRuns v={v} />
            <CronActionPicker actions={actions.data} error={actions.error} cmd={v.cmd} onPick={(cmd) => set('cmd', cmd)} />
            <TextField
              name="cmd" label="Command" required rows={3} value={v.cmd} onChange={(x) => set('cmd', x)} error={errs.of('cmd')} className="mt-2 mb-1"
              placeholder={cmdPlaceholder(actions.data)}
              help={<>Action of the console: <code>path=…|method=…|arg=…</code>; HTTP request: <code>curl=URL|method=GET|arg=k=v&&k2=v2</code>. Arguments are split by <code>&&</code>.</>}
            />
            <div className="small mb-2"><CmdPreview cmd={v.cmd} /></div>
            <UrlCredentials cmd={v.cmd} onRemove={(cmd) => set('cmd', cmd)} />
            <SwitchField name="suspended" label="Paused (suspended)" checked={v.suspended === 1} onChange={(on) => set('suspended', on ? 1 : 0)} />
            {editing && loaded.data && (
              <div className="small text-secondary">Added {fmtDateTime(loaded.data.added)}{loaded.data.saved_by && <> · runs as {loaded.data.saved_by}</>}</div>
            )}
          </Card.Body>
        </Card>
        <div className="d-flex gap-2">
          <Button type="submit" variant="primary" disabled={busy}>Save</Button>
          <Link to={LIST} className="btn btn-outline-secondary">Back</Link>
          {editing && <ConfirmButton className="ms-auto" text={<>Delete cron task <strong>{v.name}</strong>?</>} onConfirm={remove} />}
        </div>
      </Form>
    </div>
  );
}
