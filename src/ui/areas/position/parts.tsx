/** Shared pieces of the position screens: the project dialog, the place cell, the change badge, the sparkline. */
import { useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import {
  POSITION_DEPTH_MAX, POSITION_ENGINE_LABELS, POSITION_ENGINES, POSITION_MSG, POSITION_REGION_DEFAULT, POSITION_REGIONS, POSITION_SCHEDULE_DEFAULT, POSITION_SCHEDULE_LABELS, POSITION_SCHEDULES,
  PositionSaveProjectArgs, posLabel, type PositionPoint, type PositionProject,
} from '../../../contracts/position.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { SelectField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';

export const NotConfiguredNote = () => (
  <div className="alert alert-warning py-2 small" data-state="not-configured">{POSITION_MSG.notConfigured}: positions are not checked; the last ones stay shown.</div>
);

/** The place of a point: the number, "not in top N" (muted), or '-' never checked; a stale mark with its time and error. */
export function PlaceCell({ point, stale, staleAt, error, checked }: { point: PositionPoint | null; stale?: boolean; staleAt?: string | null; error?: string | null; checked?: string | null }) {
  return (
    <span className="d-inline-flex align-items-center gap-1" data-testid="place">
      <span className={point?.pos == null ? 'text-secondary small' : 'fw-semibold'}>{posLabel(point)}</span>
      {stale && (
        <Badge bg="warning" text="dark" title={`Check failed ${fmtDateTime(staleAt)}: ${error ?? ''}; shown: the position of ${fmtDateTime(checked)}`} data-state="stale">
          stale
        </Badge>
      )}
    </span>
  );
}

/** Previous place minus current: positive moved up (green), negative down (red). */
export function ChangeBadge({ change }: { change: number | null }) {
  if (change === null || change === 0) return <span className="text-secondary">{change === 0 ? '0' : ''}</span>;
  return <span className={change > 0 ? 'text-success' : 'text-danger'} data-testid="change">{change > 0 ? `▲${change}` : `▼${-change}`}</span>;
}

/** A small line of the places, oldest left; lower place drawn higher. Points not in the top sit on the bottom edge. */
export function Sparkline({ points, width = 90, height = 22 }: { points: PositionPoint[]; width?: number; height?: number }) {
  const pts = [...points].reverse();
  if (pts.length < 2) return <span className="text-secondary small">-</span>;
  const top = Math.max(...pts.map((p) => p.top), 1);
  const xs = (i: number) => (i / (pts.length - 1)) * (width - 2) + 1;
  const ys = (p: PositionPoint) => (p.pos === null ? height - 1 : 1 + ((p.pos - 1) / Math.max(1, top - 1)) * (height - 2));
  return (
    <svg width={width} height={height} className="app-position-spark" data-testid="sparkline" aria-label="position history">
      <polyline fill="none" stroke="#0d6efd" strokeWidth="1.5" points={pts.map((p, i) => `${xs(i).toFixed(1)},${ys(p).toFixed(1)}`).join(' ')} />
    </svg>
  );
}

/** Add or edit a project: name, site domain, search engine, region, schedule, depth. */
export function ProjectDialog({ show, project, onHide, onSaved }: { show: boolean; project: PositionProject | null; onHide: () => void; onSaved: (id: number) => void }) {
  const [v, setV] = useState({ name: '', domain: '', engine: 'yandex', region: String(POSITION_REGION_DEFAULT), schedule_hours: String(POSITION_SCHEDULE_DEFAULT), depth: '' });
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  useEffect(() => {
    if (!show) return;
    errs.clear();
    setV(project
      ? { name: project.name, domain: project.domain, engine: project.engine, region: String(project.region), schedule_hours: String(project.schedule_hours), depth: String(project.depth) }
      : { name: '', domain: '', engine: 'yandex', region: String(POSITION_REGION_DEFAULT), schedule_hours: String(POSITION_SCHEDULE_DEFAULT), depth: '' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show, project]);
  const set = (k: keyof typeof v) => (x: string) => { setV((o) => ({ ...o, [k]: x })); errs.clear(k); };
  const save = async () => {
    const body = { ...(project ? { id_project: project.id_project } : {}), name: v.name, domain: v.domain, engine: v.engine, region: v.region, schedule_hours: v.schedule_hours, ...(v.depth ? { depth: v.depth } : {}) };
    const bad = validate(PositionSaveProjectArgs, body);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('position.saveProject', body), (x) => x.message, (e) => errs.take(e));
    if (r) onSaved(r.id_project);
  };
  const known = POSITION_REGIONS.some((r) => String(r.id) === v.region);
  return (
    <AppModal show={show} onHide={onHide} staticBackdrop title={project ? `Edit project ${project.name}` : 'New project'}
      footer={<><Button variant="secondary" onClick={onHide}>Cancel</Button><Button onClick={() => void save()} disabled={busy} data-testid="project-save">Save</Button></>}>
      <TextField name="name" label="Name" required value={v.name} onChange={set('name')} error={errs.of('name')} autoFocus />
      <TextField name="domain" label="Site domain" required value={v.domain} onChange={set('domain')} error={errs.of('domain')} placeholder="example.com" help="A pasted URL is reduced to its host; www. counts as the same site" />
      <SelectField name="engine" label="Search engine" value={v.engine} onChange={set('engine')} options={POSITION_ENGINES.map((e) => ({ value: e, label: POSITION_ENGINE_LABELS[e] }))} error={errs.of('engine')} />
      <SelectField name="region_pick" label="Region" value={known ? v.region : ''} onChange={(x) => x && set('region')(x)}
        options={[...POSITION_REGIONS.map((r) => ({ value: String(r.id), label: `${r.label} (${r.id})` })), ...(known ? [] : [{ value: '', label: 'Other (below)' }])]} />
      <TextField name="region" label="Region id" value={v.region} onChange={set('region')} error={errs.of('region')} help="Yandex region id (lr)" />
      <SelectField name="schedule_hours" label="Check" value={v.schedule_hours} onChange={set('schedule_hours')} options={POSITION_SCHEDULES.map((h) => ({ value: String(h), label: POSITION_SCHEDULE_LABELS[h] }))} error={errs.of('schedule_hours')} />
      <TextField name="depth" label="Depth" value={v.depth} onChange={set('depth')} error={errs.of('depth')} placeholder="100" help={`Results checked per query (10-${POSITION_DEPTH_MAX}); one request per 10`} />
    </AppModal>
  );
}
