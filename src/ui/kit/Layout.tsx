import { useEffect, useState, type ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Container from 'react-bootstrap/Container';
import Nav from 'react-bootstrap/Nav';
import NavDropdown from 'react-bootstrap/NavDropdown';
import Navbar from 'react-bootstrap/Navbar';
import Offcanvas from 'react-bootstrap/Offcanvas';
import { Link, NavLink, useLocation } from 'react-router-dom';
import type { MenuGroup } from '../../contracts/menu.js';
import { ROLE_NAMES } from '../../contracts/roles.js';
import { AlertArea } from './alerts.js';
import { APP_NAME, APP_SHORT } from './brand.js';
import { useIsMobile } from './media.js';
import { Notifications } from './notify.js';

export interface LayoutUser {
  name: string;
  role: number;
}

export interface LayoutProps {
  /** Menu groups already filtered for the user (only screens that exist and the role allows). */
  menu: MenuGroup[];
  /** The signed-in user; null hides the menus (000 §2: left menu only when logged in). */
  user: LayoutUser | null;
  /** Extra items on the right of the top bar (e.g. the realtime indicator). */
  topExtra?: ReactNode;
  children: ReactNode;
}

const matches = (pathname: string, path: string) => pathname === path || pathname.startsWith(path + '/');

/**
 * The one menu item of the current page: the longest item path that is the page's path or a parent of
 * it ('/firewall/iptables_rules' lights 'IP rules', not 'Traffic' of '/firewall' as well).
 */
export function activeMenuPath(menu: MenuGroup[], pathname: string): string | undefined {
  let best: string | undefined;
  for (const g of menu) for (const i of g.items) if (matches(pathname, i.path) && (!best || i.path.length > best.length)) best = i.path;
  return best;
}

/** The grouped menu as a vertical list (left menu and mobile drawer). */
function MenuList({ menu, active, onPick }: { menu: MenuGroup[]; active: string | undefined; onPick?: () => void }) {
  return (
    <nav aria-label="Main menu" className="app-menu">
      <NavLink to="/" end className="app-menu-link app-menu-home" onClick={onPick}>
        Home
      </NavLink>
      {menu.map((g) => (
        <div key={g.label} className="app-menu-group">
          <div className="app-menu-group-label">{g.label}</div>
          {g.items.map((i) => (
            <Link
              key={i.path}
              to={i.path}
              className={`app-menu-link${i.path === active ? ' active' : ''}`}
              aria-current={i.path === active ? 'page' : undefined}
              onClick={onPick}
            >
              {i.label}
            </Link>
          ))}
        </div>
      ))}
    </nav>
  );
}

/**
 * The base page of 000 §2: top bar (logo badge with a short name, quick items as dropdowns, the user),
 * alert area, left menu (only when logged in), body, footer. At 992 px or less the menus become a
 * drawer (Offcanvas) opened from the top bar. Notifications are rendered here, top right.
 */
export function Layout({ menu, user, topExtra, children }: LayoutProps) {
  const mobile = useIsMobile();
  const [drawer, setDrawer] = useState(false);
  const { pathname } = useLocation();
  const active = activeMenuPath(menu, pathname);
  useEffect(() => setDrawer(false), [pathname]);
  useEffect(() => {
    if (!mobile) setDrawer(false);
  }, [mobile]);

  return (
    <div className={`app-shell ${mobile ? 'app-mobile' : 'app-desktop'}`} data-user={user?.name}>
      <Navbar bg="dark" data-bs-theme="dark" className="app-topbar py-1" as="header">
        <Container fluid className="gap-2 flex-nowrap">
          {user && mobile && (
            <Button variant="outline-light" size="sm" className="app-burger" aria-label="Open menu" onClick={() => setDrawer(true)}>
              <span className="navbar-toggler-icon" />
            </Button>
          )}
          <Navbar.Brand as={Link} to="/" className="d-flex align-items-center gap-2 me-2 py-0">
            <Badge bg="primary" className="app-logo">
              {APP_SHORT}
            </Badge>
            <span className="app-brand-name">{APP_NAME}</span>
          </Navbar.Brand>
          {user && !mobile && (
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
          )}
          <Nav className="app-topright ms-auto align-items-center flex-row flex-nowrap gap-2">
            {topExtra}
            {user && !mobile && (
              <>
                <span className="navbar-text app-user text-truncate" title={ROLE_NAMES[user.role] ?? `Role ${user.role}`}>
                  {user.name}
                  <Badge bg="secondary" className="ms-2 app-role">
                    {ROLE_NAMES[user.role] ?? `Role ${user.role}`}
                  </Badge>
                </span>
                <Nav.Link as={Link} to="/logout" className="app-logout">
                  Logout
                </Nav.Link>
              </>
            )}
          </Nav>
        </Container>
      </Navbar>

      {user && mobile && (
        <Offcanvas show={drawer} onHide={() => setDrawer(false)} placement="start" className="app-drawer" aria-labelledby="drawer-title">
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
            <MenuList menu={menu} active={active} onPick={() => setDrawer(false)} />
            <hr />
            <Link to="/logout" className="app-menu-link">
              Logout
            </Link>
          </Offcanvas.Body>
        </Offcanvas>
      )}

      <AlertArea />

      <div className="app-main">
        {user && !mobile && (
          <aside className="app-sidebar" aria-label="Left menu">
            <MenuList menu={menu} active={active} />
          </aside>
        )}
        <main className="app-body" data-path={pathname}>
          {children}
        </main>
      </div>

      <footer className="app-footer text-secondary small px-3 py-2">
        {APP_NAME}
        {user ? ` · ${user.name}` : ''}
        {' · '}
        <Link to="/privacy" className="link-secondary">Privacy</Link>
      </footer>
      <Notifications />
    </div>
  );
}
