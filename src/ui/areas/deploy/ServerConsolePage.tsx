/**
 * The server console (000 §2 "Server console: pick an app name to tail its process log, with node
 * panels"; §7 the write event tailing 150 lines) at /srv/console?app=: the apps come from the cluster
 * config rows of type 'console_app'; opening one sends `server_console.write {app}`, each node's
 * `tail -n 150 -F` arrives live in its panel; leaving the page, picking another app or Close sends
 * `server_console.unsubscribe` (and a closed socket stops the remote tails on the server).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { CONSOLE_CONFIG_TYPE, CONSOLE_TAIL_LINES, type ConsoleDataEvent, type ConsoleOpenResult, type ConsoleStatusEvent } from '../../../contracts/deploy.js';
import type { Envelope } from '../../../contracts/envelope.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { emit, request, useSocketEvent, useSocketStatus } from '../../api/socket.js';
import { plural } from '../../kit/format.js';
import { useQueryParam } from '../../kit/pagination.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import './api.js';
import './deploy.css';

/** Characters a panel keeps (older output scrolls away). */
const PANEL_MAX = 200_000;
const STATE_BG: Record<ConsoleStatusEvent['state'], string> = { connecting: 'secondary', live: 'success', closed: 'dark', error: 'danger' };

interface Panel {
  text: string;
  state: ConsoleStatusEvent['state'];
  error?: string;
}

function NodePanel({ name, panel }: { name: string; panel: Panel | undefined }) {
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [panel?.text]);
  return (
    <Card className="h-100" data-testid="console-panel" data-node={name} data-state={panel?.state ?? 'connecting'}>
      <Card.Header className="py-1 d-flex align-items-center gap-2">
        <span className="fw-semibold me-auto">{name}</span>
        <Badge bg={STATE_BG[panel?.state ?? 'connecting']}>{panel?.state ?? 'connecting'}</Badge>
      </Card.Header>
      <Card.Body className="p-0">
        {panel?.error && <div className="text-danger small px-2 pt-1">{panel.error}</div>}
        <pre ref={ref} className="app-console-log mb-0 p-2" data-testid="console-log">{panel?.text ?? ''}</pre>
      </Card.Body>
    </Card>
  );
}

export default function ServerConsolePage() {
  const apps = useRpc('deploy.getConsoleApps', undefined);
  const [app, setApp] = useQueryParam('app');
  const [open, setOpen] = useState<ConsoleOpenResult | null>(null);
  const [panels, setPanels] = useState<Record<string, Panel>>({});
  const [error, setError] = useState<unknown>(null);
  const [opening, setOpening] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const keyRef = useRef<string | null>(null);
  const socket = useSocketStatus();

  useSocketEvent('server_console.data', useCallback((e: ConsoleDataEvent) => {
    if (e.key !== keyRef.current) return;
    setPanels((p) => {
      const prev = p[e.node] ?? { text: '', state: 'live' as const };
      const text = (prev.text + e.data).slice(-PANEL_MAX);
      return { ...p, [e.node]: { ...prev, text } };
    });
  }, []));
  useSocketEvent('server_console.status', useCallback((e: ConsoleStatusEvent) => {
    if (e.key !== keyRef.current) return;
    setPanels((p) => ({ ...p, [e.node]: { text: p[e.node]?.text ?? '', state: e.state, error: e.error } }));
  }, []));
  // The server ended the console (e.g. this operator's role no longer allows it): say why; Reopen tries again.
  const [ended, setEnded] = useState<string | null>(null);
  useSocketEvent('server_console.end', useCallback((e: { key: string; reason: string }) => {
    if (e.key !== keyRef.current) return;
    keyRef.current = null;
    setEnded(e.reason);
  }, []));

  // One console at a time: opened for the chosen app, closed when the app changes or the page goes.
  useEffect(() => {
    if (!app) return;
    let cancelled = false;
    setOpen(null);
    setPanels({});
    setError(null);
    setEnded(null);
    setOpening(true);
    request<Envelope<ConsoleOpenResult>>('server_console.write', { app })
      .then((env) => {
        if (env.status !== 'ok') throw new Error(env.message);
        if (cancelled) {
          emit('server_console.unsubscribe', { key: env.result.key });
          return;
        }
        keyRef.current = env.result.key;
        setOpen(env.result);
      })
      .catch((e) => { if (!cancelled) setError(errorText(e)); })
      .finally(() => { if (!cancelled) setOpening(false); });
    return () => {
      cancelled = true;
      if (keyRef.current) emit('server_console.unsubscribe', { key: keyRef.current });
      keyRef.current = null;
    };
  }, [app, attempt]);

  const lost = open && socket !== 'connected';
  return (
    <div data-testid="console-page">
      <PageTitle
        title="Server console"
        actions={
          <>
            <Form.Select size="sm" aria-label="App" value={app} onChange={(e) => setApp(e.target.value)} style={{ width: 'auto' }} data-testid="console-app" disabled={!apps.data?.length}>
              <option value="">Pick an app…</option>
              {apps.data?.map((a) => <option key={a.name} value={a.name}>{a.name}</option>)}
            </Form.Select>
            {app && <Button size="sm" variant="outline-secondary" onClick={() => setAttempt((n) => n + 1)}>Reopen</Button>}
            {app && <Button size="sm" variant="outline-danger" onClick={() => setApp('')} data-testid="console-close">Close</Button>}
          </>
        }
      />
      {apps.error && <ErrorAlert error={apps.error} onRetry={() => void apps.reload()} />}
      {apps.data && !apps.data.length && (
        <EmptyState title="No apps" text={`Add a cluster config row of type '${CONSOLE_CONFIG_TYPE}': name|/path/to/log (optionally |server types, e.g. |8,9).`} />
      )}
      {error ? <ErrorAlert error={error} onRetry={() => setAttempt((n) => n + 1)} /> : null}
      {opening && <Loading text="Opening…" />}
      {ended && <ErrorAlert error={`The console ended: ${ended}`} onRetry={() => setAttempt((n) => n + 1)} />}
      {lost && <ErrorAlert error="The connection was lost: the tails stopped. Reopen to start again." onRetry={() => setAttempt((n) => n + 1)} />}
      {open && (
        <>
          <div className="small text-secondary mb-2">
            <code>tail -n {CONSOLE_TAIL_LINES} -F {open.path}</code> on {plural(open.nodes.length, 'node')}
          </div>
          <div className="row g-2">
            {open.nodes.map((n) => (
              <div key={n.Id} className="col-12 col-lg-6">
                <NodePanel name={n.name} panel={panels[n.name]} />
              </div>
            ))}
          </div>
        </>
      )}
    </div>
  );
}
