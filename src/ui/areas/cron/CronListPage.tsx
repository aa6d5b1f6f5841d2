import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link } from 'react-router-dom';
import { CRON_LABELS, scheduleText, type CronTaskView } from '../../../contracts/cron.js';
import { rpc } from '../../api/rpc.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { cronAsk } from './api.js';
import { CronRunsModal, StatusBadge } from './CronRunsModal.js';
import { useCronList } from './useCron.js';
import './cron.css';

const when = (v: string | null) => (v ? fmtDateTime(v) : <span className="text-secondary">-</span>);

function TaskCard({ t, onToggle, onRun, onKill, onHistory, busy }: {
  t: CronTaskView;
  onToggle: () => void;
  onRun: () => void;
  onKill: () => void;
  onHistory: () => void;
  busy: boolean;
}) {
  const cls = ['app-cron-card', 'h-100', t.running ? 'app-cron-running' : '', t.suspended ? 'app-cron-paused' : ''].join(' ');
  return (
    <Card className={cls} data-task={t.Id} data-name={t.name} data-running={t.running ? '1' : '0'}>
      <Card.Body className="d-flex flex-column gap-2 p-3">
        <div className="d-flex align-items-start gap-2">
          <Link to={`/cfg/app_cron/edit/${t.Id}`} className="fw-semibold text-decoration-none me-auto text-break" aria-label={`Edit ${t.name}`}>{t.name}</Link>
          {t.running && <Spinner animation="grow" size="sm" variant="success" role="status" aria-label="Running" />}
          {t.suspended === 1 && <span className="badge text-bg-secondary">Paused</span>}
          <StatusBadge status={t.last_status} />
        </div>
        <div className="small">
          <div><span className="text-secondary me-1">Schedule</span><code data-testid="schedule">{scheduleText(t)}</code></div>
          <div><span className="text-secondary me-1">Command</span><code data-testid="cmd">{t.cmd}</code></div>
        </div>
        <table className="app-cron-times">
          <tbody>
            <tr><th>Added</th><td>{when(t.added)}</td></tr>
            <tr><th>Start</th><td data-testid="start">{when(t.running ? t.started : t.last_start)}</td></tr>
            <tr><th>End</th><td data-testid="end">{t.running ? <span className="text-success">running…</span> : when(t.last_end)}</td></tr>
            <tr><th>Next run</th><td data-testid="next">{t.next_run ? fmtDateTime(t.next_run) : <span className="text-secondary">{t.suspended ? 'paused' : '-'}</span>}</td></tr>
            {t.last_message && <tr><th>Last</th><td className="text-break" data-testid="last">{t.last_message}{t.last_duration_ms !== null && <span className="text-secondary"> · {t.last_duration_ms} ms</span>}</td></tr>}
          </tbody>
        </table>
        <div className="d-flex flex-wrap gap-1 mt-auto">
          <Button size="sm" variant={t.suspended ? 'outline-success' : 'outline-secondary'} onClick={onToggle} disabled={busy}>{t.suspended ? 'Resume' : 'Pause'}</Button>
          <Button size="sm" variant="outline-primary" onClick={onRun} disabled={busy || t.running}>Run now</Button>
          <Button size="sm" variant="outline-danger" onClick={onKill} disabled={busy || !t.running}>Kill</Button>
          <Button size="sm" variant="outline-secondary" className="ms-auto" onClick={onHistory}>History</Button>
        </div>
      </Card.Body>
    </Card>
  );
}

/** /cfg/app_cron (000 §2): task cards, live while they run, with pause/resume, run now, kill, history; service toggle and reload. */
export default function CronListPage() {
  const { list, service, setService, reloadSoon } = useCronList();
  const { run, busy } = useAction();
  const [history, setHistory] = useState<number | null>(null);
  const tasks = list.data ?? [];
  const historyTask = tasks.find((t) => t.Id === history) ?? null;

  // 000 §4: toggling suspended saves, then the list reloads and a reload message is sent.
  const toggle = async (t: CronTaskView) => {
    const r = await run(() => rpc('cfg.saveAppCron', { Id: t.Id, suspended: t.suspended ? 0 : 1 }), CRON_LABELS.saveOk);
    if (!r) return;
    await list.reload();
    void cronAsk('cron.reload').catch(() => undefined);
  };
  const runNow = (t: CronTaskView) => run(() => cronAsk<{ message: string }>('cron.executeTask', { Id: t.Id }), (r) => `${t.name}: ${r.message}`);
  const kill = (t: CronTaskView) => run(() => cronAsk<{ message: string }>('cron.kill', { Id: t.Id }), (r) => `${t.name}: ${r.message}`);
  const setSwitch = async (on: boolean) => {
    const r = await run(() => cronAsk('cron.setServiceStatus', { service: on ? 1 : 0 }), on ? 'Cron service is on' : 'Cron service is off');
    if (r) {
      setService(r);
      reloadSoon();
    }
  };
  const reload = async () => {
    const r = await run(() => cronAsk('cron.reload'));
    if (r) {
      notify.success(`Reloaded: ${plural(r.tasks.length, 'task')}`);
      await list.reload();
    }
  };

  return (
    <div className="app-cron">
      <PageTitle
        title="Cron"
        actions={
          <>
            <Form.Check
              type="switch"
              id="cron-service"
              className="align-self-center me-2"
              label={service ? `Cron service ${service.service ? 'on' : 'off'}` : 'Cron service'}
              checked={service?.service === 1}
              disabled={!service || busy}
              onChange={(e) => void setSwitch(e.currentTarget.checked)}
            />
            <Button size="sm" variant="outline-secondary" onClick={() => void reload()} disabled={busy}>Reload</Button>
            <Link to="/cfg/app_cron/add" className="btn btn-sm btn-primary">{CRON_LABELS.addNew}</Link>
          </>
        }
      />
      {service && !service.scheduling && (
        <div className="alert alert-info py-2 small">This instance does not run schedules (CRON_ENABLED=0); another instance does, run now still works here.</div>
      )}
      {service?.service === 0 && <div className="alert alert-warning py-2 small" role="status">The cron service is off: no schedule fires until it is switched on.</div>}
      <ErrorAlert error={list.error} onRetry={() => void list.reload()} />
      {!list.data && list.loading && <Loading />}
      {list.data && tasks.length === 0 && <EmptyState text="No cron tasks yet." />}
      <div className="row row-cols-1 row-cols-md-2 row-cols-xl-3 g-3">
        {tasks.map((t) => (
          <div className="col" key={t.Id}>
            <TaskCard t={t} busy={busy} onToggle={() => void toggle(t)} onRun={() => void runNow(t)} onKill={() => void kill(t)} onHistory={() => setHistory(t.Id)} />
          </div>
        ))}
      </div>
      <CronRunsModal task={historyTask} onHide={() => setHistory(null)} />
    </div>
  );
}
