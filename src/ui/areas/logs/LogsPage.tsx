import { useMemo, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { LOG_MSG, type LogNodeView } from '../../../contracts/logs.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { rpcBatch } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, fmtSize } from '../../kit/format.js';
import { useIsMobile } from '../../kit/media.js';
import { notify } from '../../kit/notify.js';
import { useQueryParam } from '../../kit/pagination.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import '../srv/api.js';
import './api.js';
import './logs.css';
import { useNodePanel } from './useLogs.js';

export const openHref = (name: string, node: string, host: string, cluster: string) =>
  `/logs/open?${new URLSearchParams({ name, node, ...(host ? { host } : {}), ...(cluster ? { cluster } : {}) }).toString()}`;

/** One node's panel (000 §2 "Log panel states"; 000 §4 "Log file on a node"). */
function NodePanel({ node, host, cluster, reloadKey }: { node: LogNodeView; host: string; cluster: string; reloadKey: number }) {
  const { state, load, remove } = useNodePanel(node, reloadKey);
  const files = state.kind === 'loaded' ? state.data.files.filter((f) => !host || f.name.toLowerCase().includes(host.toLowerCase())) : [];
  return (
    <Card className={`mb-3 app-log-panel ${state.kind === 'error' && state.hostMismatch ? 'border-danger' : ''}`} data-testid={`log-panel-${node.name}`}>
      <Card.Header className="d-flex align-items-center gap-2 py-2">
        <span className="fw-semibold">{node.name}</span>
        <span className="small text-secondary">{node.ip}</span>
        {!node.has_key && <Badge bg="warning" text="dark">no cluster key</Badge>}
        <Button size="sm" variant="outline-secondary" className="ms-auto" onClick={() => void load()} disabled={state.kind === 'wait'} aria-label={`Reload ${node.name}`}>↻</Button>
      </Card.Header>
      <Card.Body className="p-2">
        {state.kind === 'start' && <div className="text-secondary small">start</div>}
        {state.kind === 'wait' && <Loading text={LOG_MSG.wait} inline />}
        {state.kind === 'error' && <div className={state.hostMismatch ? 'text-danger fw-semibold' : 'text-danger'} role="alert">{state.message}</div>}
        {state.kind === 'loaded' && (files.length === 0 ? (
          <EmptyState title={LOG_MSG.empty} text={fmtDateTime(state.at)} />
        ) : (
          <Table size="sm" hover className="mb-0">
            <tbody>
              {files.map((f) => (
                <tr key={f.name}>
                  <td className="text-break"><Link to={openHref(f.name, node.name, host, cluster)}>{f.name}</Link></td>
                  <td className="text-end text-nowrap small">{fmtSize(f.size, 'MB')}</td>
                  <td className="text-end" style={{ width: 1 }}>
                    <ConfirmButton label="×" size="sm" text={`Delete ${f.name} on ${node.name}?`} onConfirm={() => remove(f.name)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        ))}
        {state.kind === 'loaded' && <div className="small text-secondary mt-1">{state.data.host}</div>}
      </Card.Body>
    </Card>
  );
}

/**
 * /logs?host={host}&cluster={cluster} (000 §2 "Logs"): a panel per node of the WEB cluster `cluster`
 * (its name; default the first), the files of `host` (a domain of the cluster configs; empty: all
 * files), 'Clear all nodes' (confirm) and Refresh; the host switcher: a button per other host, a
 * dropdown on mobile. See docs/agent.md.
 */
export default function LogsPage() {
  const [host, setHost] = useQueryParam('host');
  const [clusterParam, setCluster] = useQueryParam('cluster');
  const [reloadKey, setReloadKey] = useState(0);
  const [clearing, setClearing] = useState(false);
  const mobile = useIsMobile();
  const data = useRpc('logs.getClusters', undefined);
  const domains = useRpc('cfg.getDomains', undefined);
  const clusters = data.data?.clusters ?? [];
  const cluster = clusters.find((c) => c.name === clusterParam) ?? (clusterParam ? undefined : clusters[0]);
  // No WEB cluster at all: the nodes of none are listed instead.
  const nodes = useMemo(() => (cluster ? cluster.nodes : !clusters.length ? data.data?.free ?? [] : []), [cluster, clusters.length, data.data]);
  const hosts = (domains.data ?? []).map((d) => d.domain);

  const clearAll = async () => {
    setClearing(true);
    try {
      const results = await rpcBatch(nodes.map((n) => ['logs.clearAll', { Id: n.Id }] as const));
      results.forEach((r, i) => {
        if (r.status !== 'ok') notify.error(`${nodes[i].name}: ${r.message.replace(new RegExp(`^${nodes[i].name}: `), '')}`);
        else if ((r.result as { res: unknown }).res !== 'ok') notify.error(`${nodes[i].name}: ${JSON.stringify((r.result as { res: unknown }).res)}`);
      });
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setClearing(false);
      setReloadKey((k) => k + 1); // 000 §4: delete-all sets wait again
    }
  };

  return (
    <div className="app-logs">
      <PageTitle
        title="Node logs"
        actions={
          <>
            {clusters.length > 1 && (
              <Form.Select size="sm" value={cluster?.name ?? ''} onChange={(e) => setCluster(e.currentTarget.value)} aria-label="WEB cluster" style={{ width: 180 }}>
                {clusters.map((c) => <option key={c.Id} value={c.name}>{c.name}</option>)}
              </Form.Select>
            )}
            <ConfirmButton label={LOG_MSG.clearAll} text={`Delete every log file on ${nodes.length} node(s) of ${cluster?.name ?? 'this list'}?`} onConfirm={clearAll} disabled={!nodes.length || clearing} />
            <Button size="sm" variant="outline-primary" onClick={() => { void data.reload(); setReloadKey((k) => k + 1); }}>
              {clearing && <Spinner animation="border" size="sm" className="me-1" />}{LOG_MSG.refresh}
            </Button>
          </>
        }
      >
        {hosts.length > 0 && (mobile ? (
          <Form.Select size="sm" value={host} onChange={(e) => setHost(e.currentTarget.value)} aria-label="Host" className="mb-2" style={{ maxWidth: 320 }}>
            <option value="">All hosts</option>
            {hosts.map((h) => <option key={h} value={h}>{h}</option>)}
          </Form.Select>
        ) : (
          <ButtonGroup size="sm" className="mb-2 flex-wrap" aria-label="Hosts">
            <Button variant={host ? 'outline-secondary' : 'secondary'} onClick={() => setHost('')}>All hosts</Button>
            {hosts.filter((h) => h !== host).map((h) => <Button key={h} variant="outline-secondary" onClick={() => setHost(h)}>{h}</Button>)}
            {host && <Button variant="secondary" disabled>{host}</Button>}
          </ButtonGroup>
        ))}
      </PageTitle>
      <ErrorAlert error={data.error} onRetry={() => void data.reload()} />
      {data.loading && !data.data && <Loading />}
      {data.data && !nodes.length && (
        <EmptyState title={LOG_MSG.empty} text={clusterParam && !cluster ? `No WEB cluster named ${clusterParam}` : 'No nodes (WEB or Node servers under the parent of a WEB cluster) to show.'} />
      )}
      <Row>
        {nodes.map((n) => (
          <Col key={n.Id} lg={6} xxl={4}>
            <NodePanel node={n} host={host} cluster={cluster?.name ?? ''} reloadKey={reloadKey} />
          </Col>
        ))}
      </Row>
    </div>
  );
}
