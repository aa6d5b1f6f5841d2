/**
 * Run once (issue 11, beyond the spec): one command on the selected nodes as separate executions
 * (`srv.runOnce`), with progress from the `srv.run_once` socket events while it runs, then the results
 * grouped by identical output (as ClusterShell's `clubak -b`): the hosts of each group with their exit
 * codes, and the hosts that failed (no connection, time-out) with the reason.
 */
import { useCallback, useRef, useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { RUN_ONCE_CMD_MAX, type RunOnceProgressEvent, type RunOnceResult } from '../../../contracts/deploy.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { plural } from '../../kit/format.js';
import { DEPLOY_CALL_MS } from './api.js';

export interface RunOncePanelProps {
  /** The nodes selected on the mass-terminal page (or any list of servers). */
  servers: { Id: number; name: string }[];
}

const codeVariant = (c: number) => (c === 0 ? 'success' : 'danger');

/** `web1 (0), web2 (0)` when codes differ inside a group, else the host list and one code badge. */
function GroupHosts({ hosts, codes }: { hosts: string[]; codes: number[] }) {
  const same = codes.every((c) => c === codes[0]);
  return (
    <div className="d-flex flex-wrap gap-1 align-items-center" data-testid="run-once-hosts">
      {hosts.map((h, i) => (
        <Badge key={h} bg="light" text="dark" className="border" data-host={h} data-code={codes[i]}>
          {h}
          {!same && <span className={`ms-1 text-${codeVariant(codes[i])}`}>({codes[i]})</span>}
        </Badge>
      ))}
      {same && <Badge bg={codeVariant(codes[0])} data-testid="run-once-code">exit {codes[0]}</Badge>}
    </div>
  );
}

export function RunOncePanel({ servers }: RunOncePanelProps) {
  const [cmd, setCmd] = useState('');
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<RunOnceResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const runId = useRef<string | null>(null);

  useSocketEvent('srv.run_once', useCallback((e: RunOnceProgressEvent) => {
    if (e.run && e.run === runId.current) setProgress({ done: e.done, total: e.total });
  }, []));

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    const text = cmd.trim();
    if (!text || !servers.length || busy) return;
    const run = `ro-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    runId.current = run;
    setBusy(true);
    setError(null);
    setResult(null);
    setProgress({ done: 0, total: servers.length });
    try {
      setResult(await rpc('srv.runOnce', { ids: servers.map((s) => s.Id), cmd: text, run }, { timeoutMs: DEPLOY_CALL_MS }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      runId.current = null;
      setBusy(false);
      setProgress(null);
    }
  };

  const pct = progress && progress.total ? Math.round((progress.done / progress.total) * 100) : 0;
  return (
    <Card className="mb-3" data-testid="run-once-panel">
      <Card.Header className="py-2">
        Run once <span className="small text-secondary">on {plural(servers.length, 'node')}</span>
      </Card.Header>
      <Card.Body>
        <Form onSubmit={submit}>
          <InputGroup>
            <Form.Control
              aria-label="Command to run once"
              placeholder="uptime"
              value={cmd}
              maxLength={RUN_ONCE_CMD_MAX}
              onChange={(e) => setCmd(e.target.value)}
              disabled={busy}
              data-testid="run-once-cmd"
              className="font-monospace"
            />
            <Button type="submit" disabled={busy || !cmd.trim() || !servers.length} data-testid="run-once-submit">
              {busy ? 'Running…' : 'Run once'}
            </Button>
          </InputGroup>
          {!servers.length && <div className="small text-secondary mt-1">Select nodes first.</div>}
        </Form>
        {progress && (
          <div className="mt-2" role="status" data-testid="run-once-progress">
            <ProgressBar now={pct} label={`${progress.done} / ${progress.total}`} animated striped />
          </div>
        )}
        {error && <Alert variant="danger" className="mt-2 py-2 mb-0" data-testid="run-once-error">{error}</Alert>}
        {result && (
          <div className="mt-3" data-testid="run-once-result">
            {!result.groups.length && !result.failed.length && <div className="text-secondary">No result.</div>}
            {result.groups.map((g, i) => (
              <div key={i} className="mb-3" data-testid="run-once-group">
                <GroupHosts hosts={g.hosts} codes={g.codes} />
                <pre className="bg-dark text-light p-2 mt-1 mb-0 small rounded" style={{ maxHeight: 320, overflow: 'auto' }} data-testid="run-once-output">
                  {g.output || '(no output)'}
                </pre>
              </div>
            ))}
            {result.failed.length > 0 && (
              <Alert variant="warning" className="py-2 mb-0" data-testid="run-once-failed">
                <div className="fw-semibold">Failed: {plural(result.failed.length, 'host')}</div>
                <ul className="mb-0 small">
                  {result.failed.map((f) => (
                    <li key={f.name} data-host={f.name}><b>{f.name}</b>: {f.error}</li>
                  ))}
                </ul>
              </Alert>
            )}
          </div>
        )}
      </Card.Body>
    </Card>
  );
}
