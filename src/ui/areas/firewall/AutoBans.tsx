/**
 * The neural score's automatic bans (firewall.getAutoBans), the second tab of /firewall/iptables_rules:
 * address, host, score, model version, time, the rule status now; Undo (firewall.undoAutoBan) after a
 * confirm. The host filter and the page (`p_`) are in the URL.
 */
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { NN_AUTO_BAN_STATUS, type AutoBanRow } from '../../../contracts/firewall-train.js';
import { MSG } from '../../../contracts/messages.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime } from '../../kit/format.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { EmptyState } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { RuleBadge, withCount } from './shared.js';
import { fmtScore } from './train-api.js';

/** Rows a page (the server's page size of firewall.getAutoBans). */
export const AUTO_BANS_PAGE = 50;

export function AutoBans() {
  const [host, setHost] = useQueryParam('host');
  const [page] = usePageParam();
  const filter = useRpc('firewall.getFilter', undefined);
  const list = useRpc('firewall.getAutoBans', { ...(host ? { host } : {}), p_: page });
  const { run, busy } = useAction();

  const undo = async (r: AutoBanRow) => {
    const done = await run(() => rpc('firewall.undoAutoBan', { ip: r.ip }), (x) => ('affected' in x ? withCount(x) : (x.message ?? MSG.saveOk)));
    if (done) await list.reload();
  };

  const columns: Column<AutoBanRow>[] = [
    { key: 'ip', title: 'IP', render: (r) => <span className="app-mono fw-semibold">{r.ip}</span> },
    { key: 'host', title: 'Host' },
    { key: 'score', title: 'Score', className: 'text-end', render: (r) => fmtScore(r.score) },
    { key: 'model_version', title: 'Model', className: 'text-end', render: (r) => `v${r.model_version}` },
    { key: 'time', title: 'Time', render: (r) => <span className="small text-nowrap">{fmtDateTime(r.time)}</span> },
    {
      key: 'status', title: 'Status',
      render: (r) => (
        <span className="d-inline-flex gap-1 align-items-center">
          <RuleBadge status={r.status} />
          {r.undone && <span className="small text-secondary" title={fmtDateTime(r.undone)}>undone</span>}
        </span>
      ),
    },
    {
      key: 'actions', title: '', className: 'text-end',
      render: (r) => r.status === NN_AUTO_BAN_STATUS && !r.undone ? (
        <ConfirmButton label="Undo" title={`Undo the ban of ${r.ip}`} variant="outline-primary" confirmVariant="primary" disabled={busy} onConfirm={() => undo(r)}
          text={<>Undo the automatic ban of <strong className="app-mono">{r.ip}</strong> (score {fmtScore(r.score)})? Its rule is removed and the score no longer bans it.</>} />
      ) : null,
    },
  ];

  return (
    <>
      <div className="app-card mb-3 d-flex flex-wrap align-items-end gap-2">
        <div>
          <Form.Label htmlFor="ab-host" className="small fw-semibold mb-1">Domain</Form.Label>
          <Form.Select id="ab-host" size="sm" value={host} onChange={(e) => setHost(e.currentTarget.value)} style={{ minWidth: '14rem' }}>
            <option value="">all</option>
            {filter.data?.hosts.map((h) => <option key={h.host} value={h.host}>{h.host}</option>)}
          </Form.Select>
        </div>
        <Button size="sm" variant="outline-secondary" onClick={() => void list.reload()} disabled={list.loading}>Refresh</Button>
      </div>
      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={list.data?.list}
          rowKey={(r) => `${r.ip} ${r.time}`}
          count={list.data?.count ?? 0}
          limit={AUTO_BANS_PAGE}
          loading={list.loading}
          error={list.error}
          onRetry={() => void list.reload()}
          empty={<EmptyState title="No automatic bans" text="Scores at or above the threshold ban addresses here after each worker run." />}
          className="app-fw-autobans"
        />
      </div>
    </>
  );
}
