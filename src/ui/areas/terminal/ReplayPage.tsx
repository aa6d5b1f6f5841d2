import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { Link, useParams } from 'react-router-dom';
import { REPLAY_SPEEDS, TERMINAL_FONT_SIZE, TERMINAL_FONT_SIZE_MOBILE } from '../../../contracts/terminal.js';
import { useAsync, useRpc } from '../../api/hooks.js';
import { fmtDateTime, fmtSize } from '../../kit/format.js';
import { useIsMobile } from '../../kit/media.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { fetchCast } from './api.js';
import { parseCast } from './cast.js';
import './terminal.css';

/**
 * Replays one terminal recording in xterm.js (play, pause, speed, restart, to the end), with what the
 * index says of it (server, user, start, size) and links to the other recordings of the server and user.
 */
export default function ReplayPage() {
  const Id = Number(useParams().Id);
  const meta = useRpc('terminal.recording', { Id }, { enabled: Id > 0 });
  const cast = useAsync((signal) => fetchCast(Id, signal).then(parseCast), `cast-${Id}`, { enabled: Id > 0 });
  const mobile = useIsMobile();
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const [pos, setPos] = useState(0); // index of the next event
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const data = cast.data;

  useEffect(() => {
    if (!data || !box.current) return;
    const t = new Terminal({ cols: data.width, rows: data.height, fontSize: mobile ? TERMINAL_FONT_SIZE_MOBILE : TERMINAL_FONT_SIZE, disableStdin: true, scrollback: 5000, convertEol: false });
    t.open(box.current);
    term.current = t;
    setPos(0);
    setPlaying(true);
    return () => { t.dispose(); term.current = null; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data]);

  const apply = (from: number, to: number) => {
    const t = term.current;
    if (!t || !data) return;
    let out = '';
    for (let i = from; i < to; i++) {
      const e = data.events[i];
      if (e.code === 'o') out += e.data;
      else if (e.code === 'r') {
        if (out) { t.write(out); out = ''; }
        const m = /^(\d+)x(\d+)$/.exec(e.data);
        if (m) t.resize(Number(m[1]), Number(m[2]));
      }
    }
    if (out) t.write(out);
  };

  // The player: writes every event due, then sleeps until the next one (scaled by the speed).
  useEffect(() => {
    if (!playing || !data) return;
    if (pos >= data.events.length) { setPlaying(false); return; }
    const now = data.events[pos].t;
    let end = pos + 1;
    while (end < data.events.length && data.events[end].t - now < 0.005) end++;
    const prevT = pos > 0 ? data.events[pos - 1].t : 0;
    const timer = setTimeout(() => { apply(pos, end); setPos(end); }, Math.max(0, ((now - prevT) * 1000) / speed));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [playing, pos, speed, data]);

  const restart = () => { term.current?.reset(); if (data) term.current?.resize(data.width, data.height); setPos(0); setPlaying(true); };
  const toEnd = () => { if (!data) return; apply(pos, data.events.length); setPos(data.events.length); setPlaying(false); };
  const done = !!data && pos >= data.events.length;
  const shown = data ? (pos > 0 ? data.events[pos - 1].t : 0) : 0;
  const m = meta.data;
  const title = useMemo(() => (m ? `Recording #${m.Id}: ${m.server_name}` : `Recording #${Id}`), [m, Id]);

  return (
    <div className="app-term-replay">
      <PageTitle title={title} actions={<Link className="btn btn-outline-secondary btn-sm" to="/srv/terminal/recordings">All recordings</Link>} />
      {m && (
        <p className="small text-secondary mb-2">
          <Link to={`/srv/terminal/recordings?server_id=${m.server_id}`}>{m.server_name}</Link> · {m.uid ? <Link to={`/srv/terminal/recordings?uid=${m.uid}`}>{m.login}</Link> : m.login} ·
          {' '}{fmtDateTime(m.started_at)}{m.ended_at ? ` – ${fmtDateTime(m.ended_at)}` : ' (still open)'} · {fmtSize(m.bytes)}{m.truncated ? ' (cut at the size limit)' : ''}{m.end_reason ? ` · ${m.end_reason}` : ''}
        </p>
      )}
      <ErrorAlert error={meta.error ?? cast.error} onRetry={() => void cast.reload()} />
      {cast.loading && !data && <Loading text="Loading the recording…" />}
      {data && (
        <>
          <div className="d-flex flex-wrap align-items-center gap-2 mb-2" aria-label="Player">
            <Button size="sm" variant={playing ? 'outline-secondary' : 'primary'} onClick={() => (done ? restart() : setPlaying((p) => !p))}>
              {playing ? 'Pause' : done ? 'Replay' : 'Play'}
            </Button>
            <Button size="sm" variant="outline-secondary" onClick={restart}>Restart</Button>
            <Button size="sm" variant="outline-secondary" onClick={toEnd} disabled={done}>To the end</Button>
            <Form.Select size="sm" aria-label="Speed" style={{ width: 'auto' }} value={String(speed)} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
              {REPLAY_SPEEDS.map((s) => <option key={s} value={s}>{s}×</option>)}
            </Form.Select>
            <span className="small text-secondary font-monospace" data-testid="replay-time">{shown.toFixed(1)} / {data.duration.toFixed(1)} s</span>
            {done && <span className="small text-success">End of recording</span>}
          </div>
          <ProgressBar now={data.events.length ? (pos / data.events.length) * 100 : 100} className="mb-2" style={{ height: 4 }} />
          <div className="app-term-pane card"><div className="app-term-box" ref={box} data-testid="replay-terminal" /></div>
        </>
      )}
    </div>
  );
}
