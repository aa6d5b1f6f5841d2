import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useParams } from 'react-router-dom';
import { JOKE_EDITABLE, JokeUpdateArgs, type JokeCatView } from '../../../contracts/jokes.js';
import { useAsync } from '../../api/hooks.js';
import { rest } from '../../api/rest.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { RichText } from '../../kit/RichText.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';

type Draft = Record<(typeof JOKE_EDITABLE)[number], string>;
const draftOf = (c: JokeCatView | undefined): Draft => Object.fromEntries(JOKE_EDITABLE.map((f) => [f, c?.[f] ?? ''])) as Draft;

/**
 * /jokes/cat_edit/{id} (001 §2, §5): title, meta_title, meta_h1 (required), meta_description and
 * cat_body in the kit's rich-text editor. The server sanitises cat_body and answers what it stored,
 * which the form then shows. 'Update success'.
 */
export default function JokeCatEditPage() {
  const { id = '' } = useParams();
  const cid = /^\d+$/.test(id) ? Number(id) : 0;
  const { data, error, loading, reload, setData } = useAsync((signal) => rest.get<JokeCatView>(`/jokes/cat/get/${cid}`, undefined, { signal }), `joke:${cid}`);
  const [d, setD] = useState<Draft>(() => draftOf(undefined));
  const initial = useMemo(() => JSON.stringify(draftOf(data)), [data]);
  useEffect(() => setD(draftOf(data)), [data]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const dirty = JSON.stringify(d) !== initial;
  useUnsavedPrompt(dirty);

  const save = async () => {
    const v = { cid, ...d };
    const bad = validate(JokeUpdateArgs, v);
    if (bad) { errs.set(bad); return; }
    const r = await run(() => rest.post<{ cid: number; message: string; cat: JokeCatView }>(`/jokes/cat/update/${cid}`, v), (x) => x.message, (e) => errs.take(e));
    if (r) { errs.clear(); setData(r.cat); }
  };

  if (loading && !data) return <Loading />;
  if (error) return <><PageTitle title="Joke category" /><ErrorAlert error={error} onRetry={reload} /><Link to="/content/cat_jokes">Back to jokes categories</Link></>;
  const field = (f: Exclude<keyof Draft, 'cat_body'>, label: string, required = false, rows?: number) => (
    <TextField name={f} label={label} value={d[f]} rows={rows} required={required} error={errs.of(f)} onChange={(v) => { setD((p) => ({ ...p, [f]: v })); errs.clear(f); }} />
  );
  return (
    <>
      <PageTitle
        title={`Joke category ${cid}: ${data?.title ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/content/cat_jokes">Back</Link>
          <Button size="sm" disabled={busy || !dirty} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Card body className="mb-3">
        {field('title', 'Name (title)', true)}
        {field('meta_title', 'Meta title', true)}
        {field('meta_h1', 'H1 (meta_h1)', true)}
        {field('meta_description', 'Meta description', false, 3)}
        <RichText id="cat_body" label="cat_body" value={d.cat_body} error={errs.of('cat_body')} onChange={(v) => setD((p) => ({ ...p, cat_body: v }))} minHeight={240} />
      </Card>
    </>
  );
}
