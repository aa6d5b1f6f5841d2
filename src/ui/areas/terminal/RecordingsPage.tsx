import { Link, useNavigate } from 'react-router-dom';
import { RECORDINGS_PAGE_SIZE, type RecordingRow } from '../../../contracts/terminal.js';
import { useRpc } from '../../api/hooks.js';
import { fmtDateTime, fmtSize } from '../../kit/format.js';
import { PaginatedTable, usePageParam, useQueryParam } from '../../kit/pagination.js';
import { PageTitle } from '../../kit/PageTitle.js';
import '../srv/api.js';
import './api.js';

const duration = (r: RecordingRow) => {
  if (!r.ended_at) return 'open';
  const s = Math.round((Date.parse(r.ended_at) - Date.parse(r.started_at)) / 1000);
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
};

/**
 * Terminal recordings (docs/terminals.md "Recording"): every shell session, newest first, filtered per
 * server (`server_id`) or per user (`uid`) in the URL, paged with `p_`; a row opens its replay.
 */
export default function RecordingsPage() {
  const [page] = usePageParam();
  const [serverId, setServerId] = useQueryParam('server_id');
  const [uid, setUid] = useQueryParam('uid');
  const navigate = useNavigate();
  const servers = useRpc('srv.getList', {});
  const args = { page, limit: RECORDINGS_PAGE_SIZE, server_id: Number(serverId) || undefined, uid: Number(uid) || undefined };
  const rec = useRpc('terminal.recordings', args);
  return (
    <>
      <PageTitle title="Terminal recordings" actions={<Link className="btn btn-outline-secondary btn-sm" to="/srv/terminal">Terminals</Link>} />
      <div className="d-flex flex-wrap gap-2 align-items-end mb-2">
        <div>
          <label className="form-label mb-1 small fw-semibold" htmlFor="rec-server">Server</label>
          <select id="rec-server" className="form-select form-select-sm" value={serverId} onChange={(e) => setServerId(e.currentTarget.value)}>
            <option value="">All servers</option>
            {(servers.data ?? []).map((s) => <option key={s.Id} value={s.Id}>{s.name}</option>)}
          </select>
        </div>
        {uid && (
          <button type="button" className="btn btn-sm btn-outline-secondary" onClick={() => setUid('')}>User #{uid} ×</button>
        )}
      </div>
      <PaginatedTable<RecordingRow>
        rows={rec.data?.list}
        count={rec.data?.count ?? 0}
        limit={RECORDINGS_PAGE_SIZE}
        loading={rec.loading}
        error={rec.error}
        onRetry={rec.reload}
        rowKey={(r) => r.Id}
        onRowClick={(r) => navigate(`/srv/terminal/recordings/${r.Id}`)}
        empty="No recording yet: every terminal session is recorded here."
        columns={[
          { key: 'Id', title: '#', render: (r) => <Link to={`/srv/terminal/recordings/${r.Id}`}>{r.Id}</Link> },
          { key: 'started_at', title: 'Started', render: (r) => fmtDateTime(r.started_at) },
          { key: 'server_name', title: 'Server', render: (r) => <Link to={`?server_id=${r.server_id}`}>{r.server_name}</Link> },
          { key: 'login', title: 'User', render: (r) => (r.uid ? <Link to={`?uid=${r.uid}`}>{r.login}</Link> : r.login) },
          { key: 'duration', title: 'Duration', render: duration },
          { key: 'bytes', title: 'Size', render: (r) => `${fmtSize(r.bytes)}${r.truncated ? ' (cut)' : ''}` },
          { key: 'end_reason', title: 'Ended', render: (r) => r.end_reason ?? '' },
        ]}
      />
    </>
  );
}
