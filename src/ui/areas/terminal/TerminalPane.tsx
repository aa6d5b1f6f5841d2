import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { Link } from 'react-router-dom';
import { TERMINAL_COLS_MAX, TERMINAL_COLS_MIN, type TerminalState, type TerminalStatus } from '../../../contracts/terminal.js';
import { errorText } from '../../api/http.js';
import { on, useSocketStatus } from '../../api/socket.js';
import { terminalApi } from './api.js';
import './terminal.css';

export const STATE_LABEL: Record<TerminalState, string> = { connecting: 'connecting', open: 'connected', closed: 'closed', error: 'error' };
const STATE_VARIANT: Record<TerminalState, string> = { connecting: 'secondary', open: 'success', closed: 'dark', error: 'danger' };

export interface PaneStatus {
  status: TerminalState;
  message: string;
  recording: number | null;
}

export interface TerminalPaneProps {
  Id: number;
  name: string;
  rows: number;
  fontSize: number;
  /** False while hidden (a mobile tab not shown): the pane refits when it becomes visible. */
  visible?: boolean;
  /** Told of every status change (the mass terminal knows which shells are open). */
  onStatus?: (Id: number, s: PaneStatus) => void;
  /** Extra header buttons. */
  onRemove?: (Id: number) => void;
}

/**
 * One node's terminal (xterm.js + fit addon) over the tab's socket: opens the shell with
 * `node_control.connect`, sends keystrokes with `node_control.write`, writes `node_control.data` of
 * its key, follows its width with `node_control.resize` (rows are the grid's option), shows the live
 * status of `node_control.status`, and closes the shell when it unmounts.
 */
export function TerminalPane({ Id, name, rows, fontSize, visible = true, onStatus, onRemove }: TerminalPaneProps) {
  const box = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const [st, setSt] = useState<PaneStatus>({ status: 'connecting', message: '', recording: null });
  const [attempt, setAttempt] = useState(0);
  const socketStatus = useSocketStatus();
  const onStatusRef = useRef(onStatus);
  onStatusRef.current = onStatus;
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  const update = (s: PaneStatus) => {
    setSt(s);
    onStatusRef.current?.(Id, s);
  };

  const fitCols = () => {
    const term = termRef.current;
    const dims = fitRef.current?.proposeDimensions();
    if (!term || !dims || !Number.isFinite(dims.cols)) return;
    const cols = Math.min(TERMINAL_COLS_MAX, Math.max(TERMINAL_COLS_MIN, dims.cols));
    if (cols !== term.cols || rowsRef.current !== term.rows) term.resize(cols, rowsRef.current);
  };

  // The xterm instance lives as long as the pane.
  useEffect(() => {
    const term = new Terminal({ fontSize, rows, cols: 80, cursorBlink: true, scrollback: 5000, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(box.current!);
    termRef.current = term;
    fitRef.current = fit;
    fitCols();
    const offData = on('node_control.data', (e) => { if (e.key === Id) term.write(e.data); });
    const input = term.onData((d) => { terminalApi.write(Id, d).catch(() => undefined); });
    const resized = term.onResize(({ cols, rows: r }) => { terminalApi.resize(Id, cols, r).catch(() => undefined); });
    const ro = new ResizeObserver(() => fitCols());
    ro.observe(box.current!);
    return () => {
      ro.disconnect();
      offData();
      input.dispose();
      resized.dispose();
      term.dispose();
      termRef.current = null;
      terminalApi.unsubscribe(Id).catch(() => undefined);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [Id]);

  // Live status of this key.
  useEffect(
    () => on('node_control.status', (e: TerminalStatus) => {
      if (e.key === Id) update({ status: e.status, message: e.message, recording: e.recording });
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [Id],
  );

  // Open (and re-open on demand).
  useEffect(() => {
    const term = termRef.current!;
    update({ status: 'connecting', message: '', recording: null });
    terminalApi
      .connect(Id, term.cols, term.rows)
      .then((s) => { update({ status: s.status, message: s.message, recording: s.recording }); term.focus(); })
      .catch((e) => update({ status: 'error', message: errorText(e), recording: null }));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [Id, attempt]);

  // A dropped socket took the shell with it (the server closes the shells of a closed socket).
  useEffect(() => {
    if (socketStatus === 'reconnecting' || socketStatus === 'failed') setSt((s) => (s.status === 'open' ? { ...s, status: 'closed', message: 'Disconnected' } : s));
  }, [socketStatus]);

  useEffect(() => {
    const term = termRef.current;
    if (!term) return;
    term.options.fontSize = fontSize;
    fitCols();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fontSize, rows, visible]);

  const ended = st.status === 'closed' || st.status === 'error';
  return (
    <div className="app-term-pane card" data-terminal={name} data-status={st.status}>
      <div className="card-header d-flex align-items-center gap-2 py-1 px-2">
        <span className="fw-semibold text-truncate">{name}</span>
        <Badge bg={STATE_VARIANT[st.status]} className="app-term-status" title={st.message || undefined}>{STATE_LABEL[st.status]}</Badge>
        {st.message && <span className="small text-secondary text-truncate" title={st.message}>{st.message}</span>}
        <span className="ms-auto d-flex gap-1">
          {st.recording !== null && <Link className="btn btn-link btn-sm py-0" to={`/srv/terminal/recordings/${st.recording}`}>Recording</Link>}
          {ended && (
            <Button size="sm" variant="outline-primary" className="py-0" onClick={() => { termRef.current?.write('\r\n'); setAttempt((n) => n + 1); }}>Reconnect</Button>
          )}
          {onRemove && <Button size="sm" variant="outline-secondary" className="py-0" aria-label={`Close ${name}`} onClick={() => onRemove(Id)}>×</Button>}
        </span>
      </div>
      <div className="app-term-box" ref={box} />
    </div>
  );
}
