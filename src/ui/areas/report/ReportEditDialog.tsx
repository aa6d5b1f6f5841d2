/**
 * The report edit dialog (001 §2 "/report/list", §3 Report chart, §4 Report form; docs/report.md
 * "Screen"): every field of the entity; the metrika section only for type -1, the drawing section only
 * for type 0 or more; changing count_day from 1 to more switches detail from hours to days and back
 * (detailAfterCountDay). A new report starts with the defaults.
 */
import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import {
  detailAfterCountDay, REPORT_CHART_TYPES, REPORT_COUNT_DAYS, REPORT_CUSTOM_MAX, REPORT_DEFAULTS, REPORT_QUALITY, REPORT_SOURCES, REPORT_STATUS, REPORT_TABS,
  REPORT_TYPE_CAPTIONS, REPORT_TYPE_METRIKA, type ReportChart, type ReportSource, type ReportTypeMetrics,
} from '../../../contracts/report.js';
import { rest } from '../../api/index.js';
import { AppModal, SelectField, TextField, useAction, useFieldErrors } from '../../kit/index.js';

type Form = Omit<ReportChart, 'Id' | 'data' | 'total' | 'marge' | 'data_range_end'> & { Id?: number };

const pairs = (o: Record<number, string>) => Object.entries(o).map(([value, label]) => ({ value: Number(value), label: `${value} ${label}` }));
const formOf = (r: ReportChart | null): Form => {
  const { data: _d, total: _t, marge: _m, data_range_end: _e, ...rest } = r ?? { ...REPORT_DEFAULTS, Id: 0 };
  return { ...rest, Id: r?.Id || undefined };
};

export function ReportEditDialog({ report, show, onHide, onSaved, meta, reports }: {
  report: ReportChart | null;
  show: boolean;
  onHide: () => void;
  onSaved: (Id: number) => void;
  meta: ReportTypeMetrics | undefined;
  reports: ReportChart[];
}) {
  const [f, setF] = useState<Form>(() => formOf(report));
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  useEffect(() => {
    if (show) {
      setF(formOf(report));
      errs.clear();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show, report]);

  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    errs.clear(k as string);
    setF((p) => ({ ...p, [k]: v }));
  };
  const setType = (type: number) =>
    setF((p) => {
      const wasMetrika = p.type === REPORT_TYPE_METRIKA;
      const isMetrika = type === REPORT_TYPE_METRIKA;
      if (wasMetrika === isMetrika) return { ...p, type };
      // the colums of the other kind mean nothing here: start with this kind's first ones
      return { ...p, type, colums: isMetrika ? 'ym:s:visits' : Object.keys(REPORT_SOURCES[(p.table as ReportSource) ?? 'stream'].columns).slice(0, 2).join(','), names: '' };
    });
  const setCountDay = (count_day: number) => setF((p) => ({ ...p, count_day, quality: detailAfterCountDay(p.count_day, count_day, p.quality) }));
  const setTable = (table: string) => setF((p) => ({ ...p, table, colums: Object.keys(REPORT_SOURCES[table as ReportSource].columns).slice(0, 2).join(','), names: '' }));

  const save = async () => {
    const { Id, ...body } = f;
    const r = await run(() => rest.post<{ Id: number; message: string }>('/report/save', Id ? { Id, ...body } : body), (x) => x.message, (e) => errs.take(e));
    if (r) onSaved(r.Id);
  };

  const metrika = f.type === REPORT_TYPE_METRIKA;
  const src = REPORT_SOURCES[(f.table as ReportSource)] ?? REPORT_SOURCES.stream;
  const num = (v: string) => (v === '' || v === '-' ? 0 : Number(v));
  const typeOptions = [{ value: -1, label: '-1 Yandex Metrika' }, ...pairs(REPORT_CHART_TYPES).map((o) => ({ ...o, label: `${o.label} (console statistics)` }))];

  return (
    <AppModal
      show={show}
      onHide={onHide}
      staticBackdrop
      title={f.Id ? `Report #${f.Id}` : 'New report'}
      footer={
        <>
          <Button variant="secondary" size="sm" onClick={onHide}>Cencel</Button>
          <Button variant="primary" size="sm" onClick={save} disabled={busy} data-testid="report-save">Save</Button>
        </>
      }
    >
      <div data-testid="report-dialog">
        <Row className="g-2">
          <Col md={8}><TextField name="title" label="title" required value={f.title} onChange={(v) => set('title', v)} error={errs.of('title')} maxLength={190} /></Col>
          <Col md={4}><SelectField name="status" label="status" value={f.status} onChange={(v) => set('status', num(v))} options={pairs(REPORT_STATUS)} error={errs.of('status')} /></Col>
          <Col md={4}><SelectField name="tab_number" label="tab_number" value={f.tab_number} onChange={(v) => set('tab_number', num(v))} options={pairs(REPORT_TABS)} error={errs.of('tab_number')} /></Col>
          <Col md={4}><TextField name="sort_number" label="sort_number" type="number" value={f.sort_number} onChange={(v) => set('sort_number', num(v))} error={errs.of('sort_number')} /></Col>
          <Col md={4}><SelectField name="type" label="type" value={f.type} onChange={(v) => setType(num(v))} options={typeOptions} error={errs.of('type')} /></Col>
          <Col md={4}>
            <SelectField name="count_day" label="count_day" value={f.count_day} onChange={(v) => setCountDay(num(v))} options={REPORT_COUNT_DAYS.map((d) => ({ value: d, label: String(d) }))} error={errs.of('count_day')} />
          </Col>
          <Col md={4}><SelectField name="quality" label="quality (detail)" value={f.quality} onChange={(v) => set('quality', num(v))} options={pairs(REPORT_QUALITY)} error={errs.of('quality')} /></Col>
          <Col md={4}><TextField name="offset" label="offset (days)" type="number" value={f.offset} onChange={(v) => set('offset', num(v))} min={0} error={errs.of('offset')} /></Col>
          <Col md={4}><TextField name="compare_offset" label="compare_offset (days, 0 none)" type="number" value={f.compare_offset} onChange={(v) => set('compare_offset', num(v))} min={0} error={errs.of('compare_offset')} /></Col>
          <Col md={4}><SelectField name="type_caption" label="type_caption" value={f.type_caption} onChange={(v) => set('type_caption', num(v))} options={pairs(REPORT_TYPE_CAPTIONS)} error={errs.of('type_caption')} /></Col>
          <Col md={4}><TextField name="val_round" label="val_round (decimals)" type="number" value={f.val_round} onChange={(v) => set('val_round', num(v))} min={0} max={6} error={errs.of('val_round')} /></Col>
          <Col md={4}>
            <SelectField name="custom" label="custom (colours)" value={f.custom} onChange={(v) => set('custom', num(v))} options={Array.from({ length: REPORT_CUSTOM_MAX + 1 }, (_, i) => ({ value: i, label: String(i) }))} error={errs.of('custom')} />
          </Col>
          <Col md={4}>
            <SelectField
              name="marge_to" label="marge_to (draw in)" value={f.marge_to} onChange={(v) => set('marge_to', num(v))} error={errs.of('marge_to')}
              options={[{ value: 0, label: '0 (own chart)' }, ...reports.filter((r) => r.Id !== f.Id).map((r) => ({ value: r.Id, label: `${r.Id} ${r.title}` }))]}
            />
          </Col>
        </Row>

        {metrika && (
          <fieldset className="border rounded p-2 mt-2" data-testid="report-section-metrika">
            <legend className="fs-6 fw-semibold w-auto px-1 mb-1">Metrika</legend>
            {meta && !meta.metrika.configured && <div className="alert alert-warning py-1 small mb-2">Yandex Metrika is not configured (METRIKA_TOKEN): this report cannot be drawn until it is.</div>}
            <Row className="g-2">
              <Col md={6}><TextField name="metrika_ids" label="metrika_ids (counter ids, comma list)" value={f.metrika_ids} onChange={(v) => set('metrika_ids', v)} error={errs.of('metrika_ids')} /></Col>
              <Col md={6}><SelectField name="metrika_chart_type" label="metrika_chart_type" value={f.metrika_chart_type} onChange={(v) => set('metrika_chart_type', num(v))} options={pairs(REPORT_CHART_TYPES)} error={errs.of('metrika_chart_type')} /></Col>
              <Col md={12}><TextField name="metrika_match_url" label="metrika_match_url (visits starting on a URL containing)" value={f.metrika_match_url} onChange={(v) => set('metrika_match_url', v)} error={errs.of('metrika_match_url')} /></Col>
              <Col md={6}>
                <TextField
                  name="colums" label="colums (metrics)" value={f.colums} onChange={(v) => set('colums', v)} error={errs.of('colums')}
                  help={(meta?.metrika.metrics ?? []).map((m) => m.name).join(', ')}
                />
              </Col>
              <Col md={6}><TextField name="names" label="names (captions, comma list)" value={f.names} onChange={(v) => set('names', v)} error={errs.of('names')} /></Col>
            </Row>
          </fieldset>
        )}

        {!metrika && (
          <fieldset className="border rounded p-2 mt-2" data-testid="report-section-drawing">
            <legend className="fs-6 fw-semibold w-auto px-1 mb-1">Drawing</legend>
            <Row className="g-2">
              <Col md={12}>
                <SelectField name="table" label="table (source)" value={f.table} onChange={setTable} error={errs.of('table')} options={(Object.keys(REPORT_SOURCES) as ReportSource[]).map((k) => ({ value: k, label: `${k}: ${REPORT_SOURCES[k].label}` }))} />
              </Col>
              <Col md={6}>
                <TextField name="colums" label="colums" value={f.colums} onChange={(v) => set('colums', v)} error={errs.of('colums')} help={Object.keys(src.columns).join(', ')} />
              </Col>
              <Col md={6}><TextField name="names" label="names (captions, comma list)" value={f.names} onChange={(v) => set('names', v)} error={errs.of('names')} /></Col>
            </Row>
          </fieldset>
        )}
      </div>
    </AppModal>
  );
}
