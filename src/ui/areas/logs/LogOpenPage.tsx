import { useEffect, useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Form from 'react-bootstrap/Form';
import { useNavigate } from 'react-router-dom';
import { LOG_DEFAULT_LINES, LOG_DEFAULT_TYPE, LOG_MSG, LOG_TYPES, keepLogLine, type LogNodeView, type LogType } from '../../../contracts/logs.js';
import { useRpc } from '../../api/hooks.js';
import { ApiError, errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { notify } from '../../kit/notify.js';
import { useQueryParam } from '../../kit/pagination.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, Loading } from '../../kit/states.js';
import { MSG } from '../../../contracts/messages.js';
import './api.js';
import './logs.css';
import { failureState, useFollow, type PanelState } from './useLogs.js';

/** Lines kept on screen while following (older ones scroll away). */
const MAX_SCREEN_LINES = 5000;

/**
 * /logs/open?name={file}&node={node}&host={host}&type={output|error} (000 §2, §3 Ant-log options): the
 * file's last 200 lines (000 §9), or with type=error those of its error counterpart (docs/agent.md
 * "Output and error"; 'File not found' when it has none), with an output/error switch, Close
 * and Remove (confirm); a follow switch streaming appended lines; a filter box (`q` in the URL);
 * 'File not found' (000 §8) when it is gone; the hostname check of 000 §5.
 */
export default function LogOpenPage() {
  const [name] = useQueryParam('name');
  const [nodeParam] = useQueryParam('node');
  const [host] = useQueryParam('host');
  const [cluster] = useQueryParam('cluster');
  const [q, setQ] = useQueryParam('q');
  const [typeParam, setType] = useQueryParam('type', LOG_DEFAULT_TYPE);
  const type: LogType = (LOG_TYPES as readonly string[]).includes(typeParam) ? (typeParam as LogType) : LOG_DEFAULT_TYPE;
  const [followOn, setFollowOn] = useState(false);
  const navigate = useNavigate();
  const clusters = useRpc('logs.getClusters', undefined);
  const node: LogNodeView | undefined = useMemo(() => {
    const all = [...(clusters.data?.clusters.flatMap((c) => c.nodes) ?? []), ...(clusters.data?.free ?? [])];
    return all.find((n) => n.name === nodeParam) ?? all.find((n) => String(n.Id) === nodeParam);
  }, [clusters.data, nodeParam]);
  const [state, setState] = useState<PanelState | { kind: 'gone' }>({ kind: 'start' });
  const [lines, setLines] = useState<string[]>([]);
  const [answeredBy, setAnsweredBy] = useState('');
  /** The file read: name, or its error counterpart (followed too). */
  const [file, setFile] = useState('');

  useEffect(() => {
    if (!node || !name) return;
    let live = true;
    setState({ kind: 'wait' });
    setFile('');
    rpc('logs.open', { Id: node.Id, name, lines: LOG_DEFAULT_LINES, type }).then(
      (r) => { if (!live) return; setLines(r.lines); setAnsweredBy(r.host); setFile(r.file); setState({ kind: 'loaded', data: { host: r.host, files: [] }, at: new Date() }); },
      (e) => {
        if (!live) return;
        if (e instanceof ApiError && e.message === LOG_MSG.fileNotFound) setState({ kind: 'gone' });
        else setState(failureState(e));
      },
    );
    return () => { live = false; };
  }, [node?.Id, name, type]);

  const follow = useFollow(node?.Id, file, followOn && state.kind === 'loaded' && !!file, (added, truncated) => {
    setLines((cur) => {
      const next = [...(truncated ? [] : cur), ...added.filter(keepLogLine)];
      return next.length > MAX_SCREEN_LINES ? next.slice(next.length - MAX_SCREEN_LINES) : next;
    });
  });

  const back = `/logs?${new URLSearchParams({ ...(host ? { host } : {}), ...(cluster ? { cluster } : {}) }).toString()}`;
  const remove = async () => {
    if (!node) return;
    try {
      const r = await rpc('logs.remove', { Id: node.Id, name });
      if (r.res !== 'ok') return notify.error(typeof r.res === 'string' ? r.res : JSON.stringify(r.res)); // 000 §8
      notify.success(MSG.deleteOk);
      navigate(back);
    } catch (e) {
      notify.error(errorText(e));
    }
  };
  const needle = q.toLowerCase();
  const shown = needle ? lines.filter((l) => l.toLowerCase().includes(needle)) : lines;

  return (
    <div className="app-log-open">
      <PageTitle
        title={name || 'Log file'}
        actions={
          <>
            <ButtonGroup size="sm" aria-label="Output or error" className="me-2">
              {LOG_TYPES.map((tp) => (
                <Button key={tp} variant={tp === type ? 'secondary' : 'outline-secondary'} aria-pressed={tp === type} onClick={() => setType(tp)}>{tp}</Button>
              ))}
            </ButtonGroup>
            <Form.Check
              type="switch" id="log-follow" label={<>Follow {follow.status === 'on' && <Badge bg="success" data-testid="follow-live">following</Badge>}</>}
              checked={followOn} onChange={(e) => setFollowOn(e.currentTarget.checked)} disabled={state.kind !== 'loaded'} className="me-2 mt-1"
            />
            <Form.Control size="sm" placeholder="Filter" value={q} onChange={(e) => setQ(e.currentTarget.value)} aria-label="Filter lines" style={{ width: 200 }} />
            <Button size="sm" variant="outline-secondary" onClick={() => navigate(back)}>{LOG_MSG.close}</Button>
            <ConfirmButton label={LOG_MSG.remove} text={`Delete ${name} on ${node?.name ?? nodeParam}?`} onConfirm={remove} disabled={!node || state.kind === 'gone'} />
          </>
        }
      >
        <div className="small text-secondary">
          {nodeParam}{answeredBy && answeredBy !== nodeParam ? ` (${answeredBy})` : ''} · {type}{file && file !== name ? ` (${file})` : ''} · last {LOG_DEFAULT_LINES} lines{q ? ` · ${shown.length} of ${lines.length} match` : ''}
          {follow.error && <span className="text-danger ms-2">{follow.error}</span>}
        </div>
      </PageTitle>
      {clusters.data && !node && <EmptyState title="Node not found" text={`No node named ${nodeParam}`} />}
      {(state.kind === 'wait' || (clusters.loading && !clusters.data)) && <Loading text={LOG_MSG.wait} />}
      {state.kind === 'gone' && <EmptyState title={LOG_MSG.fileNotFound} text={name} />}
      {state.kind === 'error' && <div className={state.hostMismatch ? 'text-danger fw-semibold' : 'text-danger'} role="alert">{state.message}</div>}
      {state.kind === 'loaded' && (shown.length ? (
        <pre className="app-log-lines" data-testid="log-lines">{shown.join('\n')}</pre>
      ) : (
        <EmptyState title={LOG_MSG.empty} text={q ? 'No line matches the filter' : undefined} />
      ))}
    </div>
  );
}
