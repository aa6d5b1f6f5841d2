import { useEffect, useRef, useState } from 'react';
import type { AntServerEvents } from '../../../contracts/ant.js';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Spinner from 'react-bootstrap/Spinner';
import { errorText } from '../../api/http.js';
import { useSocketEvent } from '../../api/socket.js';
import { AppModal } from '../../kit/AppModal.js';
import { fmtDateTime } from '../../kit/format.js';
import { antAsk } from './api.js';
import { ANT_LOG_DEFAULT_LINES, ANT_LOG_MAX_LINES, ANT_LOG_TYPES, type AntConnection, type AntLogType } from './model.js';

type StreamLogs = AntServerEvents['stream_logs'];
type LogState = { kind: 'idle' } | { kind: 'waiting' } | { kind: 'loaded'; lines: string[]; at: number } | { kind: 'error'; message: string; at: number };

/**
 * The log panel of one ant (001 §2, §4 "Log panel states"): not loaded (a start button), waiting (a
 * spinner), loaded (the lines; an empty list shows 'Empty' with the time). Refresh, the Output/Error
 * toggle and the Lines number with its set button each ask the ant again (`get_log {id, lines, type}`);
 * `stream_logs` events for this ant replace the lines while the modal is open.
 */
export function AntLogModal({ ant, onHide }: { ant: AntConnection | null; onHide: () => void }) {
  const [type, setType] = useState<AntLogType>('out');
  const [lines, setLines] = useState(ANT_LOG_DEFAULT_LINES);
  const [linesText, setLinesText] = useState(String(ANT_LOG_DEFAULT_LINES));
  const [state, setState] = useState<LogState>({ kind: 'idle' });
  const seq = useRef(0);
  const id = ant?.id;

  useEffect(() => {
    setState({ kind: 'idle' });
    seq.current++;
  }, [id]);

  const load = async (t = type, n = lines) => {
    if (!id) return;
    const my = ++seq.current;
    setState({ kind: 'waiting' });
    try {
      const answer = await antAsk('get_log', { id, lines: n, type: t });
      if (my !== seq.current) return;
      setState({ kind: 'loaded', lines: answer.lines, at: answer.time || Date.now() });
    } catch (e) {
      if (my !== seq.current) return;
      setState({ kind: 'error', message: errorText(e), at: Date.now() });
    }
  };

  // New lines of this ant's stream while loaded: appended, keeping the last `lines`.
  useSocketEvent('stream_logs', (p: StreamLogs) => {
    if (!id || !p || p.id !== id || p.type !== type || !Array.isArray(p.lines)) return;
    setState((s) => (s.kind === 'loaded' ? { kind: 'loaded', lines: [...s.lines, ...p.lines].slice(-lines), at: Date.now() } : s));
  });

  const setLinesNumber = () => {
    const n = Math.min(ANT_LOG_MAX_LINES, Math.trunc(Number(linesText)));
    if (!Number.isFinite(n) || n < 1) return;
    setLinesText(String(n));
    setLines(n);
    void load(type, n);
  };

  return (
    <AppModal show={!!ant} onHide={onHide} size="full" title={ant ? `Log: ${ant.name || ant.id} (${ant.host})` : 'Log'}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2" data-testid="ant-log-toolbar">
        <Button size="sm" variant="outline-secondary" onClick={() => void load()} disabled={state.kind === 'waiting'}>
          {state.kind === 'idle' ? 'Start' : 'Refresh'}
        </Button>
        <ButtonGroup size="sm" aria-label="Log type">
          {ANT_LOG_TYPES.map((t) => (
            <Button
              key={t.value} variant={type === t.value ? 'secondary' : 'outline-secondary'} aria-pressed={type === t.value}
              onClick={() => {
                setType(t.value);
                if (state.kind !== 'idle') void load(t.value, lines);
              }}
            >
              {t.label}
            </Button>
          ))}
        </ButtonGroup>
        <InputGroup size="sm" style={{ width: 220 }}>
          <InputGroup.Text as="label" htmlFor="ant-log-lines">Lines number</InputGroup.Text>
          <Form.Control id="ant-log-lines" type="number" min={1} max={ANT_LOG_MAX_LINES} value={linesText} onChange={(e) => setLinesText(e.currentTarget.value)}
            onKeyDown={(e) => { if (e.key === 'Enter') setLinesNumber(); }} />
          <Button variant="outline-primary" onClick={setLinesNumber}>set</Button>
        </InputGroup>
      </div>
      <div className="app-ant-log" data-testid="ant-log" data-state={state.kind}>
        {state.kind === 'idle' && <div className="text-secondary small p-2">Press Start to load the last {lines} lines.</div>}
        {state.kind === 'waiting' && <div className="p-2"><Spinner animation="border" size="sm" role="status" aria-label="Loading log" /></div>}
        {state.kind === 'error' && <div className="text-danger p-2">{state.message} <span className="text-secondary small">({fmtDateTime(state.at)})</span></div>}
        {state.kind === 'loaded' && (state.lines.length === 0
          ? <div className="text-secondary p-2">Empty <span className="small">({fmtDateTime(state.at)})</span></div>
          : <pre className="mb-0 p-2">{state.lines.join('\n')}</pre>)}
      </div>
    </AppModal>
  );
}
