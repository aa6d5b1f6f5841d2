import { useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import {
  ALERT_METHOD, ALERT_METHOD_LABELS, describeAlert, fmtZoned, formatAlertType, nextAlertAfter, parseAlertType, TODO_ALERT_STEP_MINUTES,
  TODO_STATUS, TODO_STATUS_LABELS, TODO_TYPE_LABELS, TODO_TYPES, WEEKDAY_LABELS, WEEKDAYS, zonedParts, zonedToUnix, type AlertGroup,
} from '../../../contracts/todo.js';
import { DateInput, isDayText } from '../../kit/fields.js';

/** The type options of the form: 0 is the placeholder (001 §3). */
export const TYPE_OPTIONS = TODO_TYPES.map((v) => ({ value: v, label: TODO_TYPE_LABELS[v] }));

export function TypeLabel({ type }: { type: number }) {
  return type ? <span>{TODO_TYPE_LABELS[type] ?? `#${type}`}</span> : <span className="text-secondary">—</span>;
}

export function StatusBadge({ status }: { status: number }) {
  return <Badge bg={status === TODO_STATUS.finished ? 'secondary' : 'primary'} data-testid="todo-status">{TODO_STATUS_LABELS[status] ?? status}</Badge>;
}

/** The alert of a row: what it is, and when it is next due (in the console's zone). */
export function AlertSummary({ alertType, tsAlert, next, tz }: { alertType: string; tsAlert: number; next: number; tz: string }) {
  const groups = parseAlertType(alertType) ?? [];
  if (!groups.length || !tsAlert) return <span className="text-secondary">—</span>;
  return (
    <span className="small">
      {describeAlert(groups, tsAlert, tz)}
      {next > 0 && <span className="text-secondary"> · next {fmtZoned(next, tz)}</span>}
    </span>
  );
}

/** Now, rounded up to the picker's 5-minute step (unix seconds). */
export function nowOnStep(): number {
  const step = TODO_ALERT_STEP_MINUTES * 60;
  return Math.ceil(Date.now() / 1000 / step) * step;
}

const pad = (n: number) => String(n).padStart(2, '0');
const HOURS = Array.from({ length: 24 }, (_, h) => pad(h));
const MINUTES = Array.from({ length: 60 / TODO_ALERT_STEP_MINUTES }, (_, i) => pad(i * TODO_ALERT_STEP_MINUTES));

export interface AlertValue {
  alert_type: string;
  ts_alert: number;
}

/**
 * The alert picker (001 §2, §3, §4): a date and a time in the console's zone (`tz`), the time in
 * 5-minute steps, and one or more groups of method (once, every day, every week) and weekday (weekly).
 * Adding the first alert sets the time to now (on the step); removing the last sets it to 0.
 */
export function AlertEditor({ value, tz, onChange, error }: { value: AlertValue; tz: string; onChange: (v: AlertValue) => void; error?: string }) {
  const groups = parseAlertType(value.alert_type) ?? [];
  const set = (g: AlertGroup[], ts = value.ts_alert) => onChange(g.length ? { alert_type: formatAlertType(g), ts_alert: ts || nowOnStep() } : { alert_type: '', ts_alert: 0 });
  // Kept as typed (a half-typed date must not jump back); applied when it is a whole day.
  const z = value.ts_alert ? zonedParts(value.ts_alert, tz) : null;
  const [dateText, setDateText] = useState(z?.date ?? '');
  useEffect(() => setDateText(z?.date ?? ''), [z?.date]);
  const setWhen = (date: string, time: string) => {
    if (!isDayText(date) || !date) return;
    const ts = zonedToUnix(date, time, tz);
    if (ts !== null) onChange({ ...value, ts_alert: ts });
  };
  const minutes = z && !MINUTES.includes(pad(z.minute)) ? [...MINUTES, pad(z.minute)].sort() : MINUTES;
  const next = nextAlertAfter(groups, value.ts_alert, Math.floor(Date.now() / 1000) - 1, tz);
  const addGroup = () => {
    const fresh: AlertGroup = groups.length === 0 ? { method: ALERT_METHOD.once, weekday: 0 } : { method: ALERT_METHOD.weekly, weekday: WEEKDAYS.find((d) => !groups.some((g) => g.method === 3 && g.weekday === d)) ?? 1 };
    set([...groups, fresh]);
  };
  return (
    <div className="app-todo-alert" data-testid="alert-editor">
      <div className="d-flex align-items-center gap-2 mb-2">
        <span className="small fw-semibold">Alert</span>
        <span className="small text-secondary">time zone {tz}</span>
        <Button size="sm" variant="outline-primary" className="ms-auto" onClick={addGroup}>Add alert</Button>
      </div>
      {!groups.length && <div className="small text-secondary">No alert</div>}
      {groups.length > 0 && z && (
        <>
          <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
            <div style={{ width: 130 }}><DateInput id="alert-date" aria-label="Alert date" size="sm" value={dateText} onChange={(d) => { setDateText(d); setWhen(d, z.time); }} /></div>
            <Form.Select size="sm" aria-label="Alert hour" style={{ width: 80 }} value={pad(z.hour)} onChange={(e) => setWhen(z.date, `${e.currentTarget.value}:${pad(z.minute)}`)}>
              {HOURS.map((h) => <option key={h} value={h}>{h}</option>)}
            </Form.Select>
            <span>:</span>
            <Form.Select size="sm" aria-label="Alert minute" style={{ width: 80 }} value={pad(z.minute)} onChange={(e) => setWhen(z.date, `${pad(z.hour)}:${e.currentTarget.value}`)}>
              {minutes.map((m) => <option key={m} value={m}>{m}</option>)}
            </Form.Select>
          </div>
          {groups.map((g, i) => (
            <div key={`${g.method},${g.weekday}`} className="d-flex flex-wrap align-items-center gap-2 mb-1" data-testid="alert-group">
              <Form.Select size="sm" aria-label={`Alert method ${i + 1}`} style={{ width: 150 }} value={g.method}
                onChange={(e) => set(groups.map((x, j) => (j === i ? { method: Number(e.currentTarget.value) as AlertGroup['method'], weekday: Number(e.currentTarget.value) === ALERT_METHOD.weekly ? (x.weekday || 1) : 0 } : x)))}>
                {[1, 2, 3].map((m) => <option key={m} value={m}>{ALERT_METHOD_LABELS[m]}</option>)}
              </Form.Select>
              {g.method === ALERT_METHOD.weekly && (
                <Form.Select size="sm" aria-label={`Alert weekday ${i + 1}`} style={{ width: 150 }} value={g.weekday}
                  onChange={(e) => set(groups.map((x, j) => (j === i ? { ...x, weekday: Number(e.currentTarget.value) } : x)))}>
                  {WEEKDAYS.map((d) => <option key={d} value={d}>{WEEKDAY_LABELS[d]}</option>)}
                </Form.Select>
              )}
              <Button size="sm" variant="outline-danger" aria-label={`Remove alert ${i + 1}`} onClick={() => set(groups.filter((_, j) => j !== i))}>Remove</Button>
            </div>
          ))}
          <div className="small text-secondary mt-1" data-testid="alert-next">
            {describeAlert(groups, value.ts_alert, tz)} · {next ? `next ${fmtZoned(next, tz)}` : 'nothing more is due'}
          </div>
        </>
      )}
      {error && <div className="text-danger small mt-1">{error}</div>}
    </div>
  );
}
