import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { SphinxConfButton } from './SphinxConfButton.js';
import './api.js';

/** /search (001 §2 "Search-node admin"): the search hosts, each with its number of connections and Edit (admins). */
export default function SearchHostsPage() {
  const session = useSession();
  const admin = roleAllows(session?.role, Role.admin);
  const hosts = useRpc('hosts.get', undefined);
  return (
    <>
      <PageTitle
        title="Search hosts"
        actions={(
          <div className="d-flex gap-2 flex-wrap">
            <Link className="btn btn-sm btn-outline-secondary" to="/search/sources">Sources</Link>
            {admin && <Link className="btn btn-sm btn-primary" to="/search/add_host">Add host</Link>}
            {admin && <SphinxConfButton />}
          </div>
        )}
      />
      {hosts.error && <ErrorAlert error={hosts.error} onRetry={() => void hosts.reload()} />}
      {!hosts.data && hosts.loading && <Loading />}
      {hosts.data && !hosts.data.length && <EmptyState text="No search host yet" />}
      {hosts.data && hosts.data.length > 0 && (
        <Table size="sm" hover responsive data-testid="search-hosts">
          <thead><tr><th style={{ width: 70 }}>Id</th><th>Name</th><th>Connections</th><th style={{ width: 90 }} /></tr></thead>
          <tbody>
            {hosts.data.map((h) => (
              <tr key={h.Id} data-host={h.Id}>
                <td>{h.Id}</td>
                <td>{h.name}</td>
                <td title={h.connect.map((c) => c.name).join(', ')}>{plural(h.connections, 'connection')}</td>
                <td className="text-end">{admin && <Link className="btn btn-sm btn-outline-primary" to={`/search/edit_host/${h.Id}`}>Edit</Link>}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
