/**
 * /srv/deploy and /srv/deploy/{type}?host= (000 §2, §4 Deploy): a log card per web server of the
 * chosen host ('dev' servers hidden), Test (web_test) and Deploy (web, after a confirm) sent as the
 * `deploy` socket message, lines live from `deploy_logs_{server name}`, and the deploy history of the
 * host below (p_ in the URL). Run once on the host's web servers sits under the cards.
 */
import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { DEPLOY_LABELS, DEPLOY_TYPES, type DeployResult, type DeployType } from '../../../contracts/deploy.js';
import type { Envelope } from '../../../contracts/envelope.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { request } from '../../api/socket.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { DEPLOY_CALL_MS } from './api.js';
import { DeployHistory } from './DeployHistory.js';
import { RunOncePanel } from './RunOncePanel.js';
import { useDeployLogs, type CardState } from './useDeployLogs.js';
import './deploy.css';

const TYPE_LABEL: Record<DeployType, string> = { web: DEPLOY_LABELS.deploy, web_test: DEPLOY_LABELS.test };

function LogCard({ name, card }: { name: string; card: CardState | undefined }) {
  const status = card?.status ?? null;
  const border = status === 'ok' ? 'success' : status === 'fail' ? 'danger' : undefined;
  return (
    <Card border={border} className={`app-deploy-card h-100 ${status ? `app-deploy-${status}` : ''}`} data-testid="deploy-card" data-node={name} data-status={status ?? ''}>
      <Card.Header className={`py-1 d-flex align-items-center gap-2 ${status === 'ok' ? 'bg-success text-white' : status === 'fail' ? 'bg-danger text-white' : ''}`}>
        <span className="fw-semibold me-auto">{name}</span>
        {card?.running && <Spinner animation="border" size="sm" role="status" data-testid="deploy-spinner" />}
        <Badge bg="light" text="dark" data-testid="deploy-result">{card?.result ?? '--'}</Badge>
      </Card.Header>
      <Card.Body className="p-0">
        {card?.testOk && status === 'ok' && <div className="px-2 pt-1 fw-semibold text-success" data-testid="deploy-test-ok">{DEPLOY_LABELS.testOk}</div>}
        <pre className="app-deploy-log mb-0 p-2 small" data-testid="deploy-log">{card?.lines.join('\n') ?? ''}</pre>
      </Card.Body>
    </Card>
  );
}

export default function DeployPage() {
  const params = useParams();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const type: DeployType = (DEPLOY_TYPES as readonly string[]).includes(params.type ?? '') ? (params.type as DeployType) : 'web_test';
  const badType = params.type !== undefined && !(DEPLOY_TYPES as readonly string[]).includes(params.type);
  const hosts = useRpc('deploy.getHosts', undefined);
  const hostName = search.get('host') ?? hosts.data?.[0]?.name ?? '';
  const host = hosts.data?.find((h) => h.name === hostName);
  const names = host?.nodes.map((n) => n.name) ?? [];
  const { cards, clear, ends } = useDeployLogs(names, type);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(0);

  const go = (t: DeployType, h = hostName) => navigate(`/srv/deploy/${t}?host=${encodeURIComponent(h)}`);

  const run = async (t: DeployType) => {
    if (!host) return;
    if (t !== type) go(t);
    clear();
    setBusy(true);
    try {
      const env = await request<Envelope<DeployResult>>('deploy', { type: t, host: host.name }, DEPLOY_CALL_MS);
      if (env.status !== 'ok') notify.error(env.message);
      else {
        const bad = env.result.nodes.filter((n) => !n.ok);
        if (bad.length) notify.error(`${TYPE_LABEL[t]}: ${bad.length} of ${env.result.nodes.length} failed (${bad.map((n) => n.name).join(', ')})`);
        else notify.success(`${TYPE_LABEL[t]}: ${env.result.nodes.length} ok`);
      }
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setBusy(false);
      setDone((d) => d + 1);
    }
  };

  return (
    <div data-testid="deploy-page">
      <PageTitle
        title="Deploy"
        actions={
          <>
            <Form.Select size="sm" aria-label="Host" value={hostName} onChange={(e) => go(type, e.target.value)} style={{ width: 'auto' }} data-testid="deploy-host" disabled={!hosts.data?.length}>
              {hosts.data?.map((h) => <option key={h.Id} value={h.name}>{h.name}</option>)}
            </Form.Select>
            {DEPLOY_TYPES.map((t) => (
              <Button key={t} size="sm" variant={t === type ? 'secondary' : 'outline-secondary'} onClick={() => go(t)} data-testid={`deploy-type-${t}`}>
                {t}
              </Button>
            ))}
            <Button size="sm" variant="outline-primary" disabled={!host || busy} onClick={() => void run('web_test')} data-testid="deploy-test">
              {DEPLOY_LABELS.test}
            </Button>
            <ConfirmButton
              size="sm" variant="primary" label={DEPLOY_LABELS.deploy} confirmLabel={DEPLOY_LABELS.deploy}
              title={`Deploy ${host?.name ?? ''}`} text={DEPLOY_LABELS.confirm} disabled={!host || busy} onConfirm={() => void run('web')}
            />
            <Link className="btn btn-sm btn-link" to="/srv/console">Server console</Link>
          </>
        }
      />
      {badType && <ErrorAlert error={`Unknown deploy type '${params.type}': use ${DEPLOY_TYPES.join(' or ')}`} />}
      {hosts.error && <ErrorAlert error={hosts.error} onRetry={() => void hosts.reload()} />}
      {hosts.loading && !hosts.data && <Loading />}
      {hosts.data && !hosts.data.length && <EmptyState title={DEPLOY_LABELS.noHosts} text="A host is a server of type 0; its web servers (type 8, on) get a card." />}
      {hosts.data && hostName && !host && <ErrorAlert error={DEPLOY_LABELS.unknownHost(hostName)} />}
      {host && (
        <>
          <div className="small text-secondary mb-2">
            {type === 'web_test' ? 'Test pass' : 'Deploy'} on {plural(host.nodes.length, 'web server')} of <b>{host.name}</b>
          </div>
          <div className="row g-2 mb-3">
            {host.nodes.map((n) => (
              <div key={n.Id} className="col-12 col-md-6 col-xl-4">
                <LogCard name={n.name} card={cards[n.name]} />
              </div>
            ))}
          </div>
          <RunOncePanel servers={host.nodes} />
        </>
      )}
      <DeployHistory host={host?.name} refresh={done + ends} />
    </div>
  );
}
