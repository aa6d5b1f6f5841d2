import { Link, useNavigate } from 'react-router-dom';
import type { Paged } from '../../../contracts/auth.js';
import { NET_PAGE, type NetCat } from '../../../contracts/network-info.js';
import { isStorageAlias, storageUrl } from '../../../contracts/storage.js';
import { useRpc } from '../../api/hooks.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, useQueryParam, type Column } from '../../kit/pagination.js';
import { HostFilter, useHosts } from './parts.js';
import './api.js';

const columns: Column<NetCat>[] = [
  { key: 'Id', title: 'Id', width: 70 },
  {
    key: 'cover', title: 'cover', width: 80,
    render: (c) => (isStorageAlias(c.cover) ? <img src={storageUrl(c.cover)} alt="" style={{ maxWidth: 64, maxHeight: 40 }} /> : null),
  },
  { key: 'title', title: 'title', render: (c) => <Link to={`/network_info/cats/edit/${c.Id}`}>{c.title}</Link> },
  { key: 'h1', title: 'h1', render: (c) => c.h1 || '—' },
  { key: 'domain', title: 'host', render: (c) => c.domain || `#${c.host}` },
];

/** /network_info/cats (001 §2): the categories by Id, 20 a page; `host` in the URL filters by host, `p_` is the page. */
export default function CatsPage() {
  const [page] = usePageParam();
  const [host, setHost] = useQueryParam('host');
  const hostId = /^\d+$/.test(host) && Number(host) > 0 ? Number(host) : undefined;
  const { hosts } = useHosts();
  const navigate = useNavigate();
  const { data, error, loading, reload } = useRpc('network_info.Cats.get', {
    select: 'Id,host,title,h1,cover', joinHosh: 1, p_: page, limit: NET_PAGE, ...(hostId ? { host: hostId } : {}),
  });
  const list = data as Paged<NetCat> | undefined;
  return (
    <>
      <PageTitle title="Network categories" actions={<>
        <Link className="btn btn-sm btn-outline-secondary" to="/network_info">Network info</Link>
        <Link className="btn btn-sm btn-primary" to={`/network_info/cats/create${hostId ? `?host=${hostId}` : ''}`}>Create</Link>
      </>} />
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <HostFilter value={host} onChange={(v) => setHost(v)} hosts={hosts} />
      </div>
      <PaginatedTable columns={columns} rows={list?.list} rowKey={(c) => c.Id} count={list?.count ?? 0} limit={NET_PAGE}
        loading={loading} error={error} onRetry={reload} onRowClick={(c) => navigate(`/network_info/cats/edit/${c.Id}`)}
        empty={hostId ? 'No categories of this host yet.' : 'No categories yet.'} />
    </>
  );
}
