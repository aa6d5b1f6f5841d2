import { useState } from 'react';
import Nav from 'react-bootstrap/Nav';
import { useSearchParams } from 'react-router-dom';
import {
  GRID_COLS_OPTIONS, GRID_ROWS_OPTIONS, TERMINAL_FONT_SIZE, TERMINAL_FONT_SIZE_MOBILE, gridRows,
  type GridColsOption, type GridRowsOption,
} from '../../../contracts/terminal.js';
import { SelectField } from '../../kit/fields.js';
import { useIsMobile } from '../../kit/media.js';
import { TerminalPane, type PaneStatus } from './TerminalPane.js';

export interface GridNode {
  Id: number;
  name: string;
}

/** The grid's Rows and Cols options (000 §2), kept in the URL as `rows` and `cols`. */
export function useGridOptions(): { rows: GridRowsOption; cols: GridColsOption; set: (k: 'rows' | 'cols', v: string) => void } {
  const [params, setParams] = useSearchParams();
  const r = params.get('rows') ?? 'auto';
  const c = params.get('cols') ?? 'auto';
  const rows = (GRID_ROWS_OPTIONS as readonly string[]).includes(r) ? (r as GridRowsOption) : 'auto';
  const cols = (GRID_COLS_OPTIONS as readonly string[]).includes(c) ? (c as GridColsOption) : 'auto';
  const set = (k: 'rows' | 'cols', v: string) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      if (v === 'auto') next.delete(k);
      else next.set(k, v);
      return next;
    }, { replace: true });
  return { rows, cols, set };
}

/** The Rows and Cols selects of the grid. */
export function GridOptions() {
  const { rows, cols, set } = useGridOptions();
  return (
    <div className="d-flex gap-2 align-items-end">
      <SelectField name="grid-rows" label="Rows" size="sm" className="mb-0" value={rows} onChange={(v) => set('rows', v)} options={GRID_ROWS_OPTIONS.map((o) => ({ value: o, label: o }))} />
      <SelectField name="grid-cols" label="Cols" size="sm" className="mb-0" value={cols} onChange={(v) => set('cols', v)} options={GRID_COLS_OPTIONS.map((o) => ({ value: o, label: o }))} />
    </div>
  );
}

/**
 * The terminal grid of 000 §2: one pane per node, side by side (Cols: auto = 800 px panes wrapping,
 * or 1-5 per line), each 48 rows high times the Rows option; tabs on mobile; font 13 (12 on mobile).
 */
export function TerminalGrid({ nodes, onStatus, onRemove }: { nodes: GridNode[]; onStatus?: (Id: number, s: PaneStatus) => void; onRemove?: (Id: number) => void }) {
  const mobile = useIsMobile();
  const { rows, cols } = useGridOptions();
  const [tab, setTab] = useState<number | null>(null);
  const active = nodes.find((n) => n.Id === tab)?.Id ?? nodes[0]?.Id;
  const fontSize = mobile ? TERMINAL_FONT_SIZE_MOBILE : TERMINAL_FONT_SIZE;
  return (
    <div className={mobile ? 'app-term-mobile' : undefined}>
      {mobile && nodes.length > 1 && (
        <Nav variant="tabs" role="tablist" className="mb-2" activeKey={String(active)} onSelect={(k) => setTab(Number(k))}>
          {nodes.map((n) => (
            <Nav.Item key={n.Id}><Nav.Link eventKey={String(n.Id)} role="tab" aria-selected={n.Id === active}>{n.name}</Nav.Link></Nav.Item>
          ))}
        </Nav>
      )}
      <div className="app-term-grid" data-cols={mobile ? '1' : cols}>
        {nodes.map((n) => {
          const visible = !mobile || n.Id === active;
          return (
            <div key={n.Id} className={`app-term-cell${visible ? '' : ' app-term-hidden'}`}>
              <TerminalPane Id={n.Id} name={n.name} rows={gridRows(rows)} fontSize={fontSize} visible={visible} onStatus={onStatus} onRemove={onRemove} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
