import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { TODO_MSG, TodoInsertArgs, TodoUpdateArgs, type TodoList, type TodoView } from '../../../contracts/todo.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { RichText } from '../../kit/RichText.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { AlertEditor, TYPE_OPTIONS } from './parts.js';
import './api.js';

interface Draft { title: string; text: string; type: number; alert_type: string; ts_alert: number }
const draftOf = (t?: TodoView): Draft => ({ title: t?.title ?? '', text: t?.text ?? '', type: t?.type ?? 0, alert_type: t?.alert_type ?? '', ts_alert: t?.ts_alert ?? 0 });

/**
 * /todo/create and /todo/edit/{Id} (001 §2, §3, §4): title, type (0 the placeholder), the text in the
 * shared rich-text editor (sanitised by the server), and the alert picker (5-minute steps, in the
 * console's time zone). Unsaved edits ask before they are left; a save opens the todo's page.
 */
export default function TodoEditPage() {
  const { Id: param } = useParams();
  const Id = param && /^\d+$/.test(param) && Number(param) > 0 ? Number(param) : undefined;
  const isNew = param === undefined;
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(async (signal) => {
    if (Id) {
      const t = (await rpc('todo.get', { Id }, { signal })) as TodoView;
      return { todo: t, tz: t.alerts.tz };
    }
    // A new todo: the console's time zone comes with the list.
    const l = (await rpc('todo.get', { limit: 1 }, { signal })) as TodoList;
    return { todo: undefined, tz: l.tz };
  }, `todo-edit:${param ?? 'new'}`);
  const [d, setD] = useState<Draft>(() => draftOf());
  const initial = useMemo(() => JSON.stringify(draftOf(data?.todo)), [data]);
  useEffect(() => setD(draftOf(data?.todo)), [data]);
  const dirty = JSON.stringify(d) !== initial;
  const unsaved = useUnsavedPrompt(dirty);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => { setD((p) => ({ ...p, [k]: v })); errs.clear(k); };

  const save = async () => {
    const bad = validate(Id ? TodoUpdateArgs : TodoInsertArgs, Id ? { Id, ...d } : d);
    if (bad) { errs.set(bad); return; }
    const r = Id
      ? await run(() => rpc('todo.update', { Id, ...d }), (x) => x.message, (e) => errs.take(e))
      : await run(() => rpc('todo.insert', d), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    unsaved.allowNext();
    navigate(`/todo/show/${r.Id}`);
  };

  if (!isNew && !Id) return <><PageTitle title="Todo" /><ErrorAlert error={TODO_MSG.notFound} /><Link to="/todo">Back to the list</Link></>;
  if (loading && !data) return <Loading text="Loading the todo…" />;
  if (error || !data) return <><PageTitle title="Todo" /><ErrorAlert error={error ?? TODO_MSG.notFound} onRetry={reload} /><Link to="/todo">Back to the list</Link></>;
  return (
    <>
      <PageTitle
        title={isNew ? 'New todo' : `Edit todo ${Id}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to={Id ? `/todo/show/${Id}` : '/todo'}>Back</Link>
          <Button size="sm" disabled={busy || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Card body className="mb-3">
        <TextField name="title" label="Title" required value={d.title} error={errs.of('title')} onChange={(v) => set('title', v)} maxLength={255} />
        <SelectField name="type" label="Type" value={d.type} options={TYPE_OPTIONS} error={errs.of('type')} onChange={(v) => set('type', Number(v))} />
        <RichText id="text" label="Text" value={d.text} onChange={(v) => set('text', v)} error={errs.of('text')} minHeight={200} />
      </Card>
      <Card body className="mb-3">
        <AlertEditor value={{ alert_type: d.alert_type, ts_alert: d.ts_alert }} tz={data.tz}
          error={errs.of('alert_type') ?? errs.of('ts_alert')}
          onChange={(v) => { setD((p) => ({ ...p, ...v })); errs.clear('alert_type'); errs.clear('ts_alert'); }} />
      </Card>
    </>
  );
}
