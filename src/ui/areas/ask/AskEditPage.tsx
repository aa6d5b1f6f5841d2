import { useEffect, useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { AskSetArgs, type AskSetInput, type AskView } from '../../../contracts/ask.js';
import { useAsync } from '../../api/hooks.js';
import { rest } from '../../api/rest.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './ask.css';

interface AnswerDraft { key: string; Id?: number; answer: string; del: boolean }
interface Draft { question: string; answers: AnswerDraft[] }
let seq = 0;
const draftOf = (a: AskView | undefined): Draft => ({
  question: a?.question ?? '',
  answers: (a?.answer ?? []).map((x) => ({ key: `a${x.Id}`, Id: x.Id, answer: x.answer, del: false })),
});
/** What counts for "unsaved": the question, and each answer's id, text and delete mark (a new row deleted again is nothing). */
const signature = (d: Draft) => JSON.stringify([d.question, d.answers.filter((x) => x.Id || !x.del).map((x) => [x.Id ?? 0, x.answer, x.del])]);

/**
 * /ask/add and /ask/edit/{id} (001 §2, §4 Ask editor, §5): the question (multi-line, required) and its
 * answers (each required). An answer can be marked deleted and recovered before Save; Save shows only
 * with unsaved changes, and leaving with unsaved changes asks first. One POST /ask/set saves it all.
 */
export default function AskEditPage() {
  const { id } = useParams();
  const Id = id && /^\d+$/.test(id) && Number(id) > 0 ? Number(id) : undefined;
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(
    async (signal) => (Id ? await rest.get<AskView>(`/ask/get/${Id}`, { joinAnswer: 1 }, { signal }) : undefined), `ask:${Id ?? 'new'}`,
  );
  const [d, setD] = useState<Draft>(() => draftOf(undefined));
  const initial = useMemo(() => signature(draftOf(data)), [data]);
  useEffect(() => setD(draftOf(data)), [data]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const dirty = signature(d) !== initial;
  const unsaved = useUnsavedPrompt(dirty);

  const setAnswer = (key: string, patch: Partial<AnswerDraft>) => setD((p) => ({ ...p, answers: p.answers.map((x) => (x.key === key ? { ...x, ...patch } : x)) }));
  const body = (): AskSetInput => ({
    ask: { question: d.question, ...(Id ? { Id } : {}) },
    answer: d.answers.map((x) => ({ ...(x.Id ? { Id: x.Id } : {}), answer: x.answer, ...(x.del ? { del: 1 } : {}) })),
    del_list: d.answers.filter((x) => x.del && x.Id).map((x) => x.Id!),
  });
  const save = async () => {
    const v = body();
    const bad = validate(AskSetArgs, v);
    if (bad) { errs.set(bad); return; }
    const r = await run(() => rest.post<{ Id: number; message: string }>('/ask/set', v), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    errs.clear();
    if (!Id) {
      unsaved.allowNext();
      navigate(`/ask/edit/${r.Id}`, { replace: true });
    } else await reload();
  };

  if (loading && !data) return <Loading />;
  if (error) return <><PageTitle title="Ask" /><ErrorAlert error={error} onRetry={reload} /><Link to="/content/ask">Back to Ask</Link></>;
  const live = d.answers.filter((x) => !x.del).length;
  return (
    <>
      <PageTitle
        title={Id ? `Ask ${Id}` : 'New ask'}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/content/ask">Back</Link>
          {dirty && <Button size="sm" disabled={busy} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>}
        </>}
      />
      {dirty && <p className="small text-warning-emphasis mb-2" role="status">Unsaved changes</p>}
      <Card body className="mb-3">
        <TextField name="question" label="question" rows={4} required value={d.question} error={errs.of('ask.question')}
          onChange={(v) => { setD((p) => ({ ...p, question: v })); errs.clear('ask.question'); }} />
      </Card>
      <div className="d-flex align-items-center gap-2 mb-2">
        <h2 className="h6 mb-0 me-auto">Answers <Badge bg="secondary">{live}</Badge></h2>
        <Button size="sm" variant="outline-primary" onClick={() => setD((p) => ({ ...p, answers: [...p.answers, { key: `n${++seq}`, answer: '', del: false }] }))}>Add answer</Button>
      </div>
      {d.answers.length === 0 && <p className="text-secondary small">No answers yet.</p>}
      {d.answers.map((x, i) => {
        const err = errs.of(`answer.${i}.answer`);
        return (
          <Card key={x.key} body className={`mb-2 app-ask-answer${x.del ? ' app-ask-answer-deleted' : ''}`} data-testid="ask-answer">
            <div className="d-flex gap-2 align-items-start">
              <div className="flex-grow-1">
                <Form.Label htmlFor={`answer-${x.key}`} className="mb-1 small fw-semibold">
                  answer {i + 1}{x.Id ? <span className="text-secondary fw-normal"> (Id {x.Id})</span> : <span className="text-secondary fw-normal"> (new)</span>}
                  {x.del && <Badge bg="danger" className="ms-2">deleted</Badge>}
                </Form.Label>
                <Form.Control id={`answer-${x.key}`} as="textarea" rows={2} name={`answer-${i}`} aria-label={`answer ${i + 1}`} value={x.answer} disabled={x.del} isInvalid={!!err}
                  onChange={(e) => { setAnswer(x.key, { answer: e.currentTarget.value }); errs.clear(`answer.${i}.answer`); }} />
                {err && <div className="invalid-feedback d-block">{err}</div>}
              </div>
              {x.del
                ? <Button size="sm" variant="outline-success" aria-label={`Recover answer ${i + 1}`} onClick={() => setAnswer(x.key, { del: false })}>Recover</Button>
                : <Button size="sm" variant="outline-danger" aria-label={`Delete answer ${i + 1}`} onClick={() => { setAnswer(x.key, { del: true }); errs.clear(`answer.${i}.answer`); }}>Delete</Button>}
            </div>
          </Card>
        );
      })}
      {d.answers.some((x) => x.del) && <p className="small text-secondary mt-2">Answers marked deleted are removed on Save; Recover keeps them.</p>}
    </>
  );
}
