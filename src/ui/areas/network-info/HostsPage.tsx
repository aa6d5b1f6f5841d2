import { Link } from 'react-router-dom';
import type { Paged } from '../../../contracts/auth.js';
import { NET_PAGE, type NetHost } from '../../../contracts/network-info.js';
import { useRpc } from '../../api/hooks.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import './api.js';

const columns: Column<NetHost>[] = [
  { key: 'Id', title: 'Id', width: 70 },
  { key: 'name', title: 'name' },
  { key: 'domain', title: 'domain' },
  { key: 'code_in_storage', title: 'code_in_storage' },
  {
    key: 'links', title: '', width: 230, render: (h) => (
      <span className="d-flex gap-3">
        <Link to={`/network_info/pages?host=${h.Id}`}>Pages</Link>
        <Link to={`/network_info/cats?host=${h.Id}`}>Categories</Link>
        <Link to={`/network_info/hosts/edit/${h.Id}`}>Edit</Link>
      </span>
    ),
  },
];

/** /network_info/hosts (001 §2): the hosts, 20 a page on `p_`; Create goes to /network_info/hosts/create. */
export default function HostsPage() {
  const [page] = usePageParam();
  const { data, error, loading, reload } = useRpc('network_info.Host.get', { p_: page, limit: NET_PAGE });
  const list = data as Paged<NetHost> | undefined;
  return (
    <>
      <PageTitle title="Network hosts" actions={<>
        <Link className="btn btn-sm btn-outline-secondary" to="/network_info">Network info</Link>
        <Link className="btn btn-sm btn-primary" to="/network_info/hosts/create">Create</Link>
      </>} />
      <PaginatedTable columns={columns} rows={list?.list} rowKey={(h) => h.Id} count={list?.count ?? 0} limit={NET_PAGE}
        loading={loading} error={error} onRetry={reload} empty="No hosts yet: create the first one." />
    </>
  );
}
