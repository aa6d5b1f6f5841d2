import { lazy, Suspense, useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { BANNER_CHART_DAYS, BANNER_DEFAULT_RATE, BANNER_LABELS, BANNER_STATUS_LABELS, BannerSave, type BannerDetail } from '../../../contracts/banners.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRest, useSession } from '../../api/hooks.js';
import { rest } from '../../api/rest.js';
import { SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { ctrText } from './parts.js';
import './banners.css';

const BannerChart = lazy(() => import('./BannerChart.js'));

interface Values { title: string; description: string; target: string; status: string; rate: string; img_data: string; img_remove: 0 | 1 }
const EMPTY: Values = { title: '', description: '', target: '', status: '0', rate: String(BANNER_DEFAULT_RATE), img_data: '', img_remove: 0 };
const LIST = '/abs/list';
/** Files the picker offers (the server checks the content again). */
const ACCEPT = 'image/jpeg,image/png,image/webp,image/gif';
const MAX_MB = 3;

const valuesOf = (b: BannerDetail): Values => ({ title: b.title, description: b.description, target: b.target, status: String(b.status), rate: String(b.rate), img_data: '', img_remove: 0 });

/** The banner's counters (001 §3: views, tviews, click, tclick, ctr). */
function Counters({ b }: { b: BannerDetail }) {
  const items: [string, string][] = [['Views', fmtNumber(b.views)], ['Views today', fmtNumber(b.tviews)], ['Clicks', fmtNumber(b.click)], ['Clicks today', fmtNumber(b.tclick)], ['CTR', ctrText(b.ctr)]];
  return (
    <div className="app-banner-counters" data-testid="banner-counters">
      {items.map(([k, v]) => <div key={k}><div className="small text-secondary">{k}</div><div className="value">{v}</div></div>)}
    </div>
  );
}

/** /abs/add and /abs/edit/{Idb} (001 §2 "Ad banners"): one form; the edit also shows the counters and the daily chart. */
export default function BannerEditPage() {
  const { Idb: idParam } = useParams();
  const Idb = idParam && /^\d+$/.test(idParam) ? Number(idParam) : undefined;
  const editing = idParam !== undefined;
  const navigate = useNavigate();
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const loaded = useRest<BannerDetail>('/abs/get', { Idb, joinStats: 1, days: BANNER_CHART_DAYS }, { enabled: Idb !== undefined });
  const [v, setV] = useState<Values>(EMPTY);
  const [base, setBase] = useState<Values>(EMPTY);
  const unsaved = useUnsavedPrompt(JSON.stringify(v) !== JSON.stringify(base));
  const errs = useFieldErrors();
  const { run, busy } = useAction();

  useEffect(() => {
    if (!loaded.data) return;
    setV(valuesOf(loaded.data));
    setBase(valuesOf(loaded.data));
  }, [loaded.data]);

  const set = <K extends keyof Values>(k: K, value: Values[K]) => {
    setV((old) => ({ ...old, [k]: value }));
    errs.clear(k);
  };

  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = '';
    if (!file) return;
    if (!ACCEPT.split(',').includes(file.type)) return errs.set({ img_data: 'JPEG, PNG, WebP or GIF only' });
    if (file.size > MAX_MB * 1024 * 1024) return errs.set({ img_data: `At most ${MAX_MB} MB` });
    const reader = new FileReader();
    reader.onload = () => { set('img_data', String(reader.result)); set('img_remove', 0); };
    reader.onerror = () => notify.error('The file cannot be read');
    reader.readAsDataURL(file);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = {
      ...(Idb !== undefined ? { Idb } : {}),
      title: v.title, description: v.description, target: v.target, status: v.status, rate: v.rate,
      ...(v.img_data ? { img_data: v.img_data } : {}), ...(v.img_remove ? { img_remove: 1 } : {}),
    };
    const bad = validate(BannerSave, body);
    if (bad) return errs.set(bad);
    const r = await run(() => rest.post<{ Idb: number }>('/abs/set_abs', body), BANNER_LABELS.saveOk, (err) => errs.take(err));
    if (!r) return;
    unsaved.allowNext();
    if (editing) await loaded.reload();
    else navigate(`/abs/edit/${r.Idb}`);
  };

  if (editing && Idb === undefined) return <><PageTitle title="Banner" /><EmptyState text="Banner not found" /><Link to={LIST}>Back to the list</Link></>;
  if (editing && loaded.error) return <><PageTitle title="Banner" /><ErrorAlert error={loaded.error} onRetry={() => void loaded.reload()} /><Link to={LIST}>Back to the list</Link></>;
  if (editing && !loaded.data) return <Loading />;
  const b = loaded.data;
  const shown = v.img_data || (!v.img_remove && b?.img) || '';

  return (
    <div style={{ maxWidth: 1000 }}>
      <PageTitle title={b ? `Banner ${b.Idb}: ${b.title}` : BANNER_LABELS.addNew} actions={<Link className="btn btn-sm btn-outline-secondary" to={LIST}>Back</Link>} />
      {b && (
        <Card className="mb-3">
          <Card.Body>
            <Counters b={b} />
            <div className="mt-2">
              {b.series && b.series.some((p) => p.views || p.click)
                ? <Suspense fallback={<Loading text="Loading chart…" />}><BannerChart series={b.series} /></Suspense>
                : <EmptyState text={`No views reported in the last ${BANNER_CHART_DAYS} days`} />}
            </div>
          </Card.Body>
        </Card>
      )}
      <Form onSubmit={save} noValidate aria-label="Banner">
        <Card className="mb-3">
          <Card.Body>
            <TextField name="title" label="Title" required value={v.title} onChange={(x) => set('title', x)} error={errs.of('title')} maxLength={190} disabled={!canEdit} />
            <TextField name="description" label="Description" rows={3} value={v.description} onChange={(x) => set('description', x)} error={errs.of('description')} disabled={!canEdit} />
            <TextField name="target" label="Target URL" required type="url" placeholder="https://" value={v.target} onChange={(x) => set('target', x)} error={errs.of('target')} disabled={!canEdit} />
            <div className="d-flex gap-3 flex-wrap">
              <SelectField name="status" label="Status" value={v.status} onChange={(x) => set('status', x)} options={[0, 1].map((s) => ({ value: s, label: `${s} ${BANNER_STATUS_LABELS[s]}` }))} error={errs.of('status')} disabled={!canEdit} />
              <TextField name="rate" label="Rate" type="number" min={0} value={v.rate} onChange={(x) => set('rate', x)} error={errs.of('rate')} help="Weight among the working banners" disabled={!canEdit} />
            </div>
            <Form.Group className="mb-2" controlId="f-img">
              <Form.Label className="mb-1 small fw-semibold">Image</Form.Label>
              {shown && <div className="mb-2"><img src={shown} alt="Banner" className="app-banner-preview" data-testid="banner-image" /></div>}
              {canEdit && (
                <div className="d-flex gap-2 align-items-center flex-wrap">
                  <Form.Control type="file" accept={ACCEPT} onChange={pick} isInvalid={!!errs.of('img_data')} style={{ maxWidth: 360 }} size="sm" name="img" />
                  {shown && <Button size="sm" variant="outline-secondary" onClick={() => { set('img_data', ''); set('img_remove', b?.img ? 1 : 0); }}>Remove image</Button>}
                  {errs.of('img_data') && <div className="text-danger small w-100">{errs.of('img_data')}</div>}
                </div>
              )}
              <Form.Text className="text-secondary d-block">JPEG, PNG, WebP or GIF up to {MAX_MB} MB; stored re-encoded, without metadata.</Form.Text>
            </Form.Group>
            {b && <div className="small text-secondary">Updated {fmtDateTime(b.time_update)}</div>}
          </Card.Body>
        </Card>
        {canEdit && <Button type="submit" disabled={busy}>Save</Button>}
      </Form>
    </div>
  );
}
