/**
 * The training panel of a host on the traffic screen (000 §4 "Firewall train"): Train, live progress
 * (iteration of 5000 and error, from the `firewall.train` socket events and firewall.getTrainStatus on
 * load), Cancel after a confirm, the 'start' and 'end' of the run, and the model's info.
 */
import { Fragment, useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Collapse from 'react-bootstrap/Collapse';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { NN_ITERATIONS, type NnModelInfo, type TrainEvent } from '../../../contracts/firewall-train.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, fmtNumber, plural } from '../../kit/format.js';
import { ErrorAlert } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import './train-api.js';

/** A state change of the run as the panel lists it ('start', 'end', 'cancelled', 'error'). */
interface RunLine {
  state: TrainEvent['state'];
  text: string;
}

const fmtError = (e: number) => (e ? e.toFixed(4) : '0');
const fmtDuration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

function lineOf(e: TrainEvent): RunLine {
  switch (e.state) {
    case 'start':
      return { state: e.state, text: `start${e.samples !== undefined ? ` · ${plural(e.samples, 'sample')}` : ''}` };
    case 'end':
      return { state: e.state, text: `end · ${plural(e.model?.iterations ?? e.iteration, 'iteration')}, error ${fmtError(e.model?.error ?? e.error)}` };
    case 'cancelled':
      return { state: e.state, text: 'cancelled: the previous model stays' };
    default:
      return { state: e.state, text: `error: ${e.message ?? 'training failed'}` };
  }
}

export function ModelInfo({ model }: { model: NnModelInfo | null }) {
  if (!model) return <div className="small text-secondary" data-testid="model-info" data-version="">No model yet: mark addresses, then Train.</div>;
  const items: Array<[string, string]> = [
    ['Version', String(model.version)],
    ['Samples', fmtNumber(model.samples)],
    ['Error', fmtError(model.error)],
    ['Iterations', fmtNumber(model.iterations)],
    ['Duration', fmtDuration(model.duration_ms)],
    ['Trained by', model.trained_by],
    ['Time', fmtDateTime(model.time)],
  ];
  return (
    <dl className="row small mb-0 app-fw-model" data-testid="model-info" data-version={model.version}>
      {items.map(([k, v]) => (
        <Fragment key={k}>
          <dt className="col-5 col-sm-3 fw-normal text-secondary">{k}</dt>
          <dd className="col-7 col-sm-3 mb-1" data-model={k}>{v}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function TrainPanel({ host, onModel }: { host: string; onModel?: (m: NnModelInfo) => void }) {
  const status = useRpc('firewall.getTrainStatus', { host }, { enabled: !!host });
  const [open, setOpen] = useState(false);
  const [lines, setLines] = useState<RunLine[]>([]);
  const { run, busy } = useAction();
  // The last run's figures stay in view after it ends (a short run may finish between two looks).
  const [last, setLast] = useState<{ iteration: number; error: number } | null>(null);
  useEffect(() => { setLines([]); setLast(null); }, [host]);
  useEffect(() => { if (status.data?.running) setOpen(true); }, [status.data?.running]);

  useSocketEvent('firewall.train', (e: TrainEvent) => {
    if (e.host !== host) return;
    const running = e.state === 'start' || e.state === 'progress';
    status.setData((s) => ({
      running,
      iteration: running ? e.iteration : 0,
      error: running ? e.error : 0,
      model: e.state === 'end' && e.model ? e.model : s?.model ?? null,
    }));
    if (e.state !== 'progress') setLines((l) => [...(e.state === 'start' ? [] : l), lineOf(e)]);
    if (e.state === 'end' && e.model) {
      setLast({ iteration: e.model.iterations, error: e.model.error });
      onModel?.(e.model);
    }
    if (running) setOpen(true);
  });

  const train = async () => {
    const r = await run(() => rpc('firewall.train', { host }), 'Training started');
    if (r) {
      setOpen(true);
      status.setData((s) => ({ running: true, iteration: s?.running ? s.iteration : 0, error: s?.running ? s.error : 0, model: s?.model ?? null }));
    }
  };
  const cancel = async () => {
    // The run ends with its 'cancelled' event (a status read now could still find it running).
    await run(() => rpc('firewall.cancelTrain', { host }), (x) => x.message ?? 'Training cancelled');
  };

  const s = status.data;
  useEffect(() => { if (s?.running && s.iteration) setLast({ iteration: s.iteration, error: s.error }); }, [s?.running, s?.iteration, s?.error]);
  const shown = s?.running ? { iteration: s.iteration, error: s.error } : last;
  const pct = shown ? Math.min(100, (shown.iteration / NN_ITERATIONS) * 100) : 0;
  return (
    <div className="app-card mb-3 app-fw-train-panel" data-testid="train-panel" data-running={s?.running ? '1' : '0'}>
      <div className="d-flex flex-wrap align-items-center gap-2">
        <Button size="sm" variant="link" className="p-0 fw-semibold text-decoration-none" aria-expanded={open} aria-controls="fw-train-body" onClick={() => setOpen((o) => !o)}>
          {open ? '▾' : '▸'} Training
        </Button>
        {s?.running ? <Badge bg="primary">training</Badge> : s?.model ? <Badge bg="secondary">model v{s.model.version}</Badge> : s && <Badge bg="light" text="dark">no model</Badge>}
        <div className="ms-auto d-flex gap-2">
          <Button size="sm" variant="primary" onClick={() => void train()} disabled={busy || !s || s.running}>Train</Button>
          {s?.running && (
            <ConfirmButton label="Cancel" title="Cancel training" confirmLabel="Yes" variant="outline-danger" onConfirm={cancel}
              text={<>Cancel the training of <strong>{host}</strong>? The previous model stays in use.</>} disabled={busy} />
          )}
        </div>
      </div>
      <ErrorAlert error={status.error} onRetry={() => void status.reload()} className="mt-2 mb-0" />
      <Collapse in={open}>
        <div id="fw-train-body">
          <div className="pt-2">
            {(s?.running || shown) && (
              <div className="mb-2" data-testid="train-progress" data-running={s?.running ? '1' : '0'}>
                <div className="small mb-1" data-iteration={shown?.iteration ?? 0}>
                  {s?.running ? '' : 'Last run: '}Iteration {fmtNumber(shown?.iteration ?? 0)} of {fmtNumber(NN_ITERATIONS)} · error {fmtError(shown?.error ?? 0)}
                </div>
                <ProgressBar now={pct} animated={!!s?.running} striped={!!s?.running} label={`${Math.round(pct)}%`} aria-label="Training progress" style={{ height: '1rem' }} />
              </div>
            )}
            {lines.length > 0 && (
              <ul className="list-unstyled small mb-2" data-testid="train-events">
                {lines.map((l, i) => (
                  <li key={i} data-state={l.state} className={l.state === 'error' ? 'text-danger' : l.state === 'end' ? 'text-success' : undefined}>{l.text}</li>
                ))}
              </ul>
            )}
            {s && <ModelInfo model={s.model} />}
          </div>
        </div>
      </Collapse>
    </div>
  );
}
