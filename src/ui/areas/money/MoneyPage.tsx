import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { useRpc } from '../../api/hooks.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { fmtMoney } from './parts.js';
import './api.js';

/**
 * /money (001 §2 "Money"): the boxes you see (yours and those an admin shared with you; admins: all)
 * with their balance; 'Add box' opens /money/add.
 */
export default function MoneyPage() {
  const boxes = useRpc('money.getBoxes', {});
  const list = boxes.data ?? [];
  return (
    <>
      <PageTitle title="Money" actions={<Link className="btn btn-sm btn-primary" to="/money/add">Add box</Link>} />
      <ErrorAlert error={boxes.error} onRetry={() => void boxes.reload()} />
      {boxes.loading && !boxes.data && <Loading />}
      {boxes.data && !list.length && <EmptyState title="No boxes yet" text="A box keeps transactions with a balance: add one." />}
      {list.length > 0 && (
        <Table size="sm" hover responsive className="align-middle" aria-label="Boxes">
          <thead>
            <tr><th>Box</th><th className="text-end">Balance</th><th className="text-end">Transactions</th><th>Owner</th><th>Updated</th><th /></tr>
          </thead>
          <tbody>
            {list.map((b) => (
              <tr key={b.bid} data-bid={b.bid}>
                <td>
                  <Link to={`/money/box/${b.bid}`} className="fw-semibold">{b.title}</Link>
                  {b.shared === 1 && <span className="badge text-bg-info ms-2">shared with you</span>}
                  <div className="small text-secondary text-truncate" style={{ maxWidth: 420 }}>{b.description}</div>
                </td>
                <td className={`app-money-amount ${b.balance.startsWith('-') ? 'expense' : ''}`} data-testid="box-balance">{fmtMoney(b.balance)}</td>
                <td className="text-end">{plural(b.count, 'transaction')}</td>
                <td className="small">{b.owner}</td>
                <td className="small text-secondary">{fmtDateTime(b.time_update)}</td>
                <td className="text-end text-nowrap">
                  <Link className="btn btn-sm btn-outline-secondary me-1" to={`/money/report/${b.bid}`}>Report</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
