import { Link, useNavigate } from 'react-router-dom';
import type { Paged } from '../../../contracts/auth.js';
import { NET_PAGE, type NetPage } from '../../../contracts/network-info.js';
import { isStorageAlias, storageUrl } from '../../../contracts/storage.js';
import { useRpc } from '../../api/hooks.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { HostFilter, useHosts } from './parts.js';
import './api.js';

const columns: Column<NetPage>[] = [
  { key: 'Id', title: 'Id', width: 70 },
  {
    key: 'cover', title: 'cover', width: 80,
    render: (p) => (isStorageAlias(p.cover) ? <img src={storageUrl(p.cover)} alt="" style={{ maxWidth: 64, maxHeight: 40 }} /> : null),
  },
  { key: 'title', title: 'title', render: (p) => <Link to={`/network_info/pages/edit/${p.Id}`}>{p.title}</Link> },
  { key: 'domain', title: 'host', render: (p) => p.domain || `#${p.host}` },
  { key: 'date', title: 'date', width: 170, render: (p) => (p.date ? fmtDateTime(p.date) : '—') },
  { key: 'date_update', title: 'date_update', width: 170, render: (p) => (p.date_update ? fmtDateTime(p.date_update) : '—') },
];

/**
 * /network_info/pages (001 §2): the pages, newest first, 20 a page; `host` in the URL filters by host
 * (optional), `p_` is the page, so a reload or a shared link shows the same list.
 */
export default function PagesPage() {
  const [page] = usePageParam();
  const [host, setHost] = useQueryParam('host');
  const hostId = /^\d+$/.test(host) && Number(host) > 0 ? Number(host) : undefined;
  const { hosts } = useHosts();
  const navigate = useNavigate();
  const { data, error, loading, reload } = useRpc('network_info.Page.get', {
    select: 'Id,host,title,cover,date,date_update', joinHosh: 1, p_: page, limit: NET_PAGE, ...(hostId ? { host: hostId } : {}),
  });
  const list = data as Paged<NetPage> | undefined;
  return (
    <>
      <PageTitle title="Network pages" actions={<>
        <Link className="btn btn-sm btn-outline-secondary" to="/network_info">Network info</Link>
        <Link className="btn btn-sm btn-primary" to={`/network_info/pages/create${hostId ? `?host=${hostId}` : ''}`}>Create</Link>
      </>} />
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <HostFilter value={host} onChange={(v) => setHost(v)} hosts={hosts} />
      </div>
      <PaginatedTable columns={columns} rows={list?.list} rowKey={(p) => p.Id} count={list?.count ?? 0} limit={NET_PAGE}
        loading={loading} error={error} onRetry={reload} onRowClick={(p) => navigate(`/network_info/pages/edit/${p.Id}`)}
        empty={hostId ? 'No pages of this host yet.' : 'No pages yet.'} />
    </>
  );
}
