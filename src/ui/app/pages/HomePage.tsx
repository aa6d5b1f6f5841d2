import { useMemo } from 'react';
import Card from 'react-bootstrap/Card';
import { Link } from 'react-router-dom';
import { ROLE_NAMES } from '../../../contracts/roles.js';
import { useSession } from '../../api/hooks.js';
import { EmptyState } from '../../kit/states.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { visibleMenu } from '../menu.js';
import { routes } from '../routes.js';

/** Home: a welcome with the user's name and the menu groups as tiles. */
export default function HomePage() {
  const session = useSession();
  const menu = useMemo(() => (session ? visibleMenu(session.role, routes) : []), [session]);
  if (!session) return null;
  return (
    <>
      <PageTitle title={`Welcome, ${session.name}`} />
      <p className="text-secondary mt-n2 mb-3">
        Signed in as <strong>{session.name}</strong> · {ROLE_NAMES[session.role] ?? `role ${session.role}`}
      </p>
      {menu.length === 0 ? (
        <EmptyState title="Nothing here yet" text="No screens are available for your role." />
      ) : (
        <div className="app-tiles">
          {menu.map((g) => (
            <Card key={g.label} className="app-tile shadow-sm">
              <Card.Header className="py-2 fw-semibold">{g.label}</Card.Header>
              <Card.Body className="py-2">
                <ul className="list-unstyled mb-0">
                  {g.items.map((i) => (
                    <li key={i.path} className="py-1">
                      <Link to={i.path}>{i.label}</Link>
                    </li>
                  ))}
                </ul>
              </Card.Body>
            </Card>
          ))}
        </div>
      )}
    </>
  );
}
