import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router-dom';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { ctrText, posText, StreamToolbar, useDays } from './parts.js';
import './api.js';

/** /input_stream (001 §2): the Category and Items buttons, and the totals of the window (metrics.get). */
export default function InputStreamPage() {
  const [days, setDays] = useDays();
  const session = useSession();
  const { data, error, loading, reload } = useRpc('metrics.get', { days });
  return (
    <>
      <PageTitle title="Input stream" actions={roleAllows(session?.role, Role.admin) ? <Link className="btn btn-sm btn-outline-secondary" to="/input_stream/sites">Sites and tokens</Link> : undefined} />
      <StreamToolbar days={days} onDays={setDays} />
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {data && (
        <Row className="g-2">
          {[['Shows', fmtNumber(data.shows)], ['Clicks', fmtNumber(data.clicks)], ['CTR', ctrText(data.ctr)], ['Average position', posText(data.pos)]].map(([k, v]) => (
            <Col key={k} xs={6} md={3}>
              <Card body><div className="small text-secondary">{k}</div><div className="fs-4">{v}</div></Card>
            </Col>
          ))}
          {data.shows === 0 && <p className="text-secondary mt-3">No statistics reported in this window yet: the sites post them to the ingestion endpoint (docs/input-stream.md).</p>}
        </Row>
      )}
    </>
  );
}
