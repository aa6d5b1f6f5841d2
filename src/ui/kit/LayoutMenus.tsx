import Badge from 'react-bootstrap/Badge';
import Nav from 'react-bootstrap/Nav';
import NavbarContext from 'react-bootstrap/NavbarContext';
import NavDropdown from 'react-bootstrap/NavDropdown';
import Offcanvas from 'react-bootstrap/Offcanvas';
import { Link } from 'react-router-dom';
import type { MenuGroup } from '../../contracts/menu.js';
import { ROLE_NAMES } from '../../contracts/roles.js';
import { APP_SHORT } from './brand.js';
import { MenuList, type LayoutUser } from './Layout.js';

/**
 * The signed-in parts of the top bar that need react-bootstrap's dropdowns (popper) and the offcanvas
 * (modal manager, transitions): a chunk of their own that Layout loads lazily, so the sign-in page's
 * first load carries none of them.
 */

/** Inside the top bar: the dropdowns render as in a Navbar (static menus, no popper positioning). */
const IN_NAVBAR = { bsPrefix: 'navbar', expanded: false, expand: true, onToggle: () => {} };

/** The quick items of the top bar: one dropdown per menu group (desktop). */
export function TopMenu({ menu, active }: { menu: MenuGroup[]; active: string | undefined }) {
  return (
    <NavbarContext.Provider value={IN_NAVBAR}>
      <Nav className="app-topmenu me-auto flex-nowrap" aria-label="Top menu">
        {menu.map((g) => (
          <NavDropdown
            key={g.label}
            title={g.label}
            id={`top-${g.label}`}
            active={g.items.some((i) => i.path === active)}
            className="app-topmenu-group"
          >
            {g.items.map((i) => (
              <NavDropdown.Item key={i.path} as={Link} to={i.path} active={i.path === active}>
                {i.label}
              </NavDropdown.Item>
            ))}
          </NavDropdown>
        ))}
      </Nav>
    </NavbarContext.Provider>
  );
}

/** The menus as a drawer opened from the top bar (992 px or less). */
export function Drawer(props: { show: boolean; onHide: () => void; user: LayoutUser; menu: MenuGroup[]; active: string | undefined }) {
  const { show, onHide, user, menu, active } = props;
  return (
    <Offcanvas show={show} onHide={onHide} placement="start" className="app-drawer" aria-labelledby="drawer-title">
      <Offcanvas.Header closeButton className="py-2">
        <Offcanvas.Title id="drawer-title" className="d-flex align-items-center gap-2 fs-6">
          <Badge bg="primary" className="app-logo">
            {APP_SHORT}
          </Badge>
          <span className="app-user-drawer">{user.name}</span>
          <Badge bg="secondary" className="app-role">
            {ROLE_NAMES[user.role] ?? `Role ${user.role}`}
          </Badge>
        </Offcanvas.Title>
      </Offcanvas.Header>
      <Offcanvas.Body className="pt-0">
        <MenuList menu={menu} active={active} onPick={onHide} />
        <hr />
        <Link to="/logout" className="app-menu-link">
          Logout
        </Link>
      </Offcanvas.Body>
    </Offcanvas>
  );
}
