import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { CAT_EDITABLE, CAT_MSG, type CategoryView } from '../../../contracts/categories.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors } from '../../kit/fields.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import type { CatEditable } from './api.js';

type Draft = Record<(typeof CAT_EDITABLE)[number], string>;
const empty = (): Draft => Object.fromEntries(CAT_EDITABLE.map((f) => [f, ''])) as Draft;
const draftOf = (c: CategoryView | undefined): Draft => (c ? (Object.fromEntries(CAT_EDITABLE.map((f) => [f, c[f] ?? ''])) as Draft) : empty());
/** Multi-line fields get a textarea of this many rows. */
const ROWS: Partial<Record<keyof Draft, number>> = { cat_description: 3, cat_body: 8, meta_description: 3, codeShow: 3, codeClick: 3 };

/** /book/categories/edit/{Id_edit} (001 §2, §3 Category): every field; counters, times and SI read-only; 'new' creates. */
export default function CategoryEditPage() {
  const { Id_edit = 'new' } = useParams();
  const isNew = !/^\d+$/.test(Id_edit) || Number(Id_edit) === 0;
  const Id_cat = isNew ? undefined : Number(Id_edit);
  const navigate = useNavigate();
  const { data, error, loading, reload } = useAsync(async () => (Id_cat ? ((await rpc('cat.get', { Id_cat })) as CategoryView) : undefined), `cat:${Id_edit}`);
  const [d, setD] = useState<Draft>(empty);
  const initial = useMemo(() => JSON.stringify(draftOf(data)), [data]);
  useEffect(() => setD(draftOf(data)), [data]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const dirty = JSON.stringify(d) !== initial;
  const unsaved = useUnsavedPrompt(dirty);

  const save = async () => {
    const patch: CatEditable = {};
    for (const f of CAT_EDITABLE) if (isNew || d[f] !== draftOf(data)[f]) patch[f] = d[f];
    const r = await run(() => rpc('cat.update', { ...patch, ...(Id_cat ? { Id_cat } : {}) }), (x) => x.message, (e) => errs.take(e));
    if (!r) return;
    if (isNew) {
      unsaved.allowNext();
      navigate(`/book/categories/edit/${r.Id_cat}`, { replace: true });
    } else await reload();
  };

  if (loading && !data) return <Loading />;
  if (error) return <><PageTitle title="Category" /><ErrorAlert error={error} onRetry={reload} /><Link to="/book/categories">Back to categories</Link></>;
  const field = (f: keyof Draft) => (
    <TextField key={f} name={f} label={f} value={d[f]} rows={ROWS[f]} required={f === 'cat_title'} error={errs.of(f)} onChange={(v) => { setD((p) => ({ ...p, [f]: v })); errs.clear(f); }} />
  );
  return (
    <>
      <PageTitle
        title={isNew ? 'New category' : `Category ${Id_cat}: ${data?.cat_title ?? ''}`}
        actions={<>
          <Link className="btn btn-sm btn-outline-secondary" to="/book/categories">Back</Link>
          {Id_cat && <Link className="btn btn-sm btn-outline-secondary" to={`/book_cat/${Id_cat}`}>Books</Link>}
          <Button size="sm" disabled={busy || (!dirty && !isNew)} onClick={save}>{busy && <Spinner size="sm" className="me-1" />}Save</Button>
        </>}
      />
      <Row>
        <Col lg={8}>
          <Card body className="mb-3">
            {(['cat_title', 'cat_short_title', 'cat_h1', 'cat_description', 'cat_body'] as const).map(field)}
          </Card>
          <Card body className="mb-3">
            {(['meta_title', 'meta_h1', 'meta_description', 'codeShow', 'codeClick'] as const).map(field)}
          </Card>
        </Col>
        <Col lg={4}>
          {data && (
            <Card body>
              <Table size="sm" className="mb-0 app-cat-facts">
                <tbody>
                  <tr><th>Id_cat</th><td>{data.Id_cat}</td></tr>
                  <tr><th>count_books</th><td>{fmtNumber(data.count_books)}</td></tr>
                  <tr><th>cat_views</th><td>{fmtNumber(data.cat_views)}</td></tr>
                  <tr><th>rating_day</th><td>{fmtNumber(data.rating_day)}</td></tr>
                  <tr><th>time_update</th><td>{data.time_update ? fmtDateTime(data.time_update) : '—'}</td></tr>
                  <tr><th>cron_time</th><td>{data.cron_time ? fmtDateTime(data.cron_time) : '—'}</td></tr>
                  <tr><th>SI items</th><td className="text-break small">{data.SI ? JSON.stringify(data.SI.items) : '—'}</td></tr>
                  <tr><th>SI time_update</th><td>{data.SI ? String(data.SI.time_update ?? '—') : '—'}</td></tr>
                </tbody>
              </Table>
            </Card>
          )}
          {isNew && <p className="text-secondary small">{CAT_MSG.saveOk} is shown once the category is saved.</p>}
        </Col>
      </Row>
    </>
  );
}
