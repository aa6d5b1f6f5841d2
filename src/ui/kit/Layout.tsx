import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Container from 'react-bootstrap/Container';
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

/** The signed-in dropdowns and the drawer (popper, offcanvas): loaded on first use, not with the sign-in page. */
const TopMenu = lazy(() => import('./LayoutMenus.js').then((m) => ({ default: m.TopMenu })));
const Drawer = lazy(() => import('./LayoutMenus.js').then((m) => ({ default: m.Drawer })));

/**
 * The top menu's markup as react-bootstrap renders it (closed dropdowns), shown until LayoutMenus has
 * loaded: the top bar does not shift, and the active group is lit from the first paint.
 */
function TopMenuShell({ menu, active }: { menu: MenuGroup[]; active: string | undefined }) {
  return (
    <div className="app-topmenu me-auto flex-nowrap navbar-nav" aria-label="Top menu">
      {menu.map((g) => (
        <div key={g.label} className="app-topmenu-group nav-item dropdown">
          <a role="button" aria-expanded="false" className={`dropdown-toggle nav-link${g.items.some((i) => i.path === active) ? ' active' : ''}`}>
            {g.label}
          </a>
        </div>
      ))}
    </div>
  );
}

/** The grouped menu as a vertical list (left menu and mobile drawer). */
export function MenuList({ menu, active, onPick }: { menu: MenuGroup[]; active: string | undefined; onPick?: () => void }) {
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
      {/* Bootstrap's navbar markup without react-bootstrap's Navbar (which brings the offcanvas along). */}
      <header className="app-topbar py-1 navbar navbar-expand navbar-light bg-dark" data-bs-theme="dark" role="navigation">
        <Container fluid className="gap-2 flex-nowrap">
          {user && mobile && (
            <Button variant="outline-light" size="sm" className="app-burger" aria-label="Open menu" onClick={() => setDrawer(true)}>
              <span className="navbar-toggler-icon" />
            </Button>
          )}
          <Link to="/" className="navbar-brand d-flex align-items-center gap-2 me-2 py-0">
            <Badge bg="primary" className="app-logo">
              {APP_SHORT}
            </Badge>
            <span className="app-brand-name">{APP_NAME}</span>
          </Link>
          {user && !mobile && (
            <Suspense fallback={<TopMenuShell menu={menu} active={active} />}>
              <TopMenu menu={menu} active={active} />
            </Suspense>
          )}
          <div className="navbar-nav app-topright ms-auto align-items-center flex-row flex-nowrap gap-2">
            {topExtra}
            {user && !mobile && (
              <>
                <span className="navbar-text app-user text-truncate" title={ROLE_NAMES[user.role] ?? `Role ${user.role}`}>
                  {user.name}
                  <Badge bg="secondary" className="ms-2 app-role">
                    {ROLE_NAMES[user.role] ?? `Role ${user.role}`}
                  </Badge>
                </span>
                <Link to="/logout" className="nav-link app-logout">
                  Logout
                </Link>
              </>
            )}
          </div>
        </Container>
      </header>

      {user && mobile && (
        <Suspense fallback={null}>
          <Drawer show={drawer} onHide={() => setDrawer(false)} user={user} menu={menu} active={active} />
        </Suspense>
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
