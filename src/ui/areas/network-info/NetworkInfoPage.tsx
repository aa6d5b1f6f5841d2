import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router-dom';
import { PageTitle } from '../../kit/PageTitle.js';

const SECTIONS = [
  { to: '/network_info/hosts', label: 'Hosts', text: 'The network\'s sites: name, domain and their image storage code.' },
  { to: '/network_info/pages', label: 'Pages', text: 'Pages of each host: text, cover, keys and categories.' },
  { to: '/network_info/cats', label: 'Categories', text: 'Categories of each host, with their bottom text.' },
];

/** /network_info (001 §2 "Network info"): the Hosts, Pages and Categories buttons. */
export default function NetworkInfoPage() {
  return (
    <>
      <PageTitle title="Network info" />
      <Row className="g-3">
        {SECTIONS.map((s) => (
          <Col md={4} key={s.to}>
            <Card body className="h-100">
              <Link className="btn btn-primary mb-2" to={s.to}>{s.label}</Link>
              <div className="small text-secondary">{s.text}</div>
            </Card>
          </Col>
        ))}
      </Row>
    </>
  );
}
