import type { ReactNode } from 'react';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import { NavLink } from 'react-router-dom';
import { STREAM_DAYS, STREAM_DEFAULT_DAYS } from '../../../contracts/input-stream.js';
import { useQueryParam } from '../../kit/pagination.js';
import { fmtNumber } from '../../kit/format.js';

/** The Category and Items buttons of /input_stream (001 §2), on every input-stream screen. */
export function StreamNav() {
  const cls = ({ isActive }: { isActive: boolean }) => `btn btn-sm ${isActive ? 'btn-primary' : 'btn-outline-primary'}`;
  return (
    <ButtonGroup className="mb-3">
      <NavLink to="/input_stream/cat" className={cls}>Category</NavLink>
      <NavLink to="/input_stream/items" className={cls}>Items</NavLink>
    </ButtonGroup>
  );
}

/** The `days` window in the URL (1, 7 or 30; default 7). */
export function useDays(): [number, (d: number) => void] {
  const [raw, set] = useQueryParam('days', String(STREAM_DEFAULT_DAYS));
  const days = (STREAM_DAYS as readonly number[]).includes(Number(raw)) ? Number(raw) : STREAM_DEFAULT_DAYS;
  return [days, (d) => set(String(d))];
}

export function DaysSelect({ days, onDays }: { days: number; onDays: (d: number) => void }) {
  return (
    <ButtonGroup size="sm" aria-label="Days">
      {STREAM_DAYS.map((d) => (
        <button key={d} type="button" className={`btn ${d === days ? 'btn-secondary' : 'btn-outline-secondary'}`} onClick={() => onDays(d)}>
          {d === 1 ? '24 hours' : `${d} days`}
        </button>
      ))}
    </ButtonGroup>
  );
}

export const ctrText = (ctr: number) => `${fmtNumber(ctr, 1)}%`;
export const posText = (pos: number | null) => (pos === null ? '—' : fmtNumber(pos, 1));

/** The toolbar of every input-stream screen: Category / Items, the window, and the screen's own filters. */
export function StreamToolbar({ days, onDays, children }: { days: number; onDays: (d: number) => void; children?: ReactNode }) {
  return (
    <div className="d-flex flex-wrap gap-3 align-items-start">
      <StreamNav />
      <DaysSelect days={days} onDays={onDays} />
      {children}
    </div>
  );
}
