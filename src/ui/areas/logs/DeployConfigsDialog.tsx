import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { LOG_MSG, type DeployGlobalProgressEvent, type DeployNodeResult, type DeployRes } from '../../../contracts/logs.js';
import { AGENT_NODE_TYPES, serverEditPath } from '../../../contracts/srv.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent } from '../../api/socket.js';
import { AppModal } from '../../kit/AppModal.js';
import { notify } from '../../kit/notify.js';
import '../srv/api.js';
import './api.js';

type Row = { Id: number; name: string; result?: DeployNodeResult };
type Phase = 'idle' | 'testing' | 'tested' | 'deploying' | 'deployed';

function summary(r: DeployNodeResult): string {
  if (!r.res) return '';
  const parts = [r.res.changed ? `${r.res.added.length} added, ${r.res.removed.length} removed` : 'no change'];
  const reload = (r.res as DeployRes).reload;
  if ((r.res as DeployRes).written) parts.push('written');
  if (reload) parts.push(`reload exit ${reload.code ?? '?'}`);
  return parts.join(', ');
}

/**
 * 'Deploy configs' (000 §2 /srv/configs_global, §4 "Global deploy"): a test pass on every node first,
 * each node showing '--' until known, then ok with the result, or the error; only then Deploy.
 * One dead node never stops the others (the server answers per node). Each node's row fills as its
 * answer arrives (the server's `cfg.deploy_global` events, tagged with this call's run token); the
 * final answer then sets every row.
 */
export function DeployConfigsDialog({ show, onHide }: { show: boolean; onHide: () => void }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [phase, setPhase] = useState<Phase>('idle');
  const runId = useRef<string | null>(null);

  useSocketEvent('cfg.deploy_global', useCallback((e: DeployGlobalProgressEvent) => {
    const n = e.node;
    if (!n || !e.run || e.run !== runId.current) return;
    setRows((rs) => (rs.some((r) => r.Id === n.Id) ? rs.map((r) => (r.Id === n.Id ? { ...r, result: n } : r)) : [...rs, { Id: n.Id, name: n.name, result: n }]));
  }, []));

  const run = async (test: boolean) => {
    const tag = `dg-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    runId.current = tag;
    setPhase(test ? 'testing' : 'deploying');
    try {
      if (test) {
        const nodes = (await rpc('srv.getList', { type: AGENT_NODE_TYPES })).filter((s) => s.status === 1);
        setRows(nodes.map((n) => ({ Id: n.Id, name: n.name })));
      } else setRows((rs) => rs.map((r) => ({ Id: r.Id, name: r.name })));
      const r = await rpc('cfg.deployGlobalConfig', { test, run: tag });
      setRows(r.nodes.map((n) => ({ Id: n.Id, name: n.name, result: n })));
      setPhase(test ? 'tested' : 'deployed');
      const failed = r.nodes.filter((n) => !n.ok).length;
      if (!test) (failed ? notify.error : notify.success)(failed ? `Deploy: ${failed} of ${r.nodes.length} node(s) failed` : `Deploy: ${r.nodes.length} node(s) ok`);
    } catch (e) {
      notify.error(errorText(e));
      setPhase(test ? 'idle' : 'tested');
    } finally {
      if (runId.current === tag) runId.current = null;
    }
  };
  // Each opening starts with a fresh test pass.
  useEffect(() => {
    if (!show) return;
    setRows([]);
    void run(true);
  }, [show]);
  const busy = phase === 'testing' || phase === 'deploying';
  const known = rows.filter((r) => r.result).length;
  const okCount = rows.filter((r) => r.result?.ok).length;

  return (
    <AppModal
      show={show}
      onHide={() => { if (!busy) onHide(); }}
      title={LOG_MSG.deployConfigs}
      staticBackdrop={busy}
      footer={
        <>
          <Button variant="outline-secondary" size="sm" onClick={() => void run(true)} disabled={busy}>Test again</Button>
          <Button variant="primary" size="sm" onClick={() => void run(false)} disabled={busy || phase === 'idle' || okCount === 0}>
            {phase === 'deploying' && <Spinner animation="border" size="sm" className="me-1" />}{LOG_MSG.deploy}
          </Button>
        </>
      }
    >
      <div className="small text-secondary mb-2">
        {phase === 'testing' && 'Test pass: asking every node what would change…'}
        {phase === 'tested' && `Test pass done: ${okCount} of ${rows.length} node(s) ok. Deploy writes the configs on every node and reloads.`}
        {phase === 'deploying' && 'Deploying…'}
        {phase === 'deployed' && `Deployed: ${okCount} of ${rows.length} node(s) ok.`}
      </div>
      {busy && <ProgressBar animated now={rows.length ? Math.max(10, (known / rows.length) * 100) : 100} label={`${known} / ${rows.length}`} className="mb-2" data-testid="deploy-progress" />}
      {!busy && rows.length === 0 && phase !== 'idle' && (
        <div className="text-secondary" data-testid="deploy-no-node">
          No node to send the configs to: they go to WEB (type 8) and Node (type 9) servers that are switched on, through their agent.
          Add one or switch one on on the <Link to="/srv/srv_map" onClick={onHide}>server map</Link>.
        </div>
      )}
      <Table size="sm" className="mb-0" data-testid="deploy-nodes">
        <tbody>
          {rows.map((r) => (
            <tr key={r.Id} data-testid={`deploy-node-${r.name}`}>
              <td className="fw-semibold text-nowrap">{r.name}</td>
              <td className="text-nowrap">{!r.result ? LOG_MSG.unknown : r.result.ok ? <span className="text-success">{LOG_MSG.ok}</span> : <span className="text-danger">error</span>}</td>
              <td className={`small text-break ${r.result && !r.result.ok ? 'text-danger' : ''}`}>
                {!r.result ? LOG_MSG.unknown : r.result.ok ? summary(r.result) : <>{r.result.error} <Link to={serverEditPath(r.Id)} onClick={onHide}>Server dialog</Link></>}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </AppModal>
  );
}
