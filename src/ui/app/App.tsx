import { Component, lazy, Suspense, useEffect, useMemo, type ErrorInfo, type ReactNode } from 'react';
import { PlainAlert } from '../kit/PlainAlert.js';
import Button from 'react-bootstrap/Button';
import { createBrowserRouter, Navigate, Route, RouterProvider, Routes, useLocation, useNavigate } from 'react-router-dom';
import { setUnauthorizedHandler } from '../api/http.js';
import { useSession } from '../api/hooks.js';
import { setInpoint } from '../api/session.js';
import { Layout } from '../kit/Layout.js';
import { useDocumentTitle } from '../kit/PageTitle.js';
import { Loading } from '../kit/states.js';
import { visibleMenu, routeAllowed, routeTitle } from './menu.js';
import { ForbiddenPage } from './pages/ForbiddenPage.js';
import { NotFoundPage } from './pages/NotFoundPage.js';
import { routes, type AppRoute } from './routes.js';

/** The signed-in extras of the top bar (notification bell, realtime indicator with socket.io): loaded after the first page, not with it. */
const TopExtras = lazy(() => import('./TopExtras.js'));

/** Not signed in: remember where the user wanted to go (000 §4 inpoint), then /auth. */
function ToAuth() {
  const loc = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    setInpoint(loc.pathname + loc.search + loc.hash);
    navigate('/auth', { replace: true });
  }, [loc.pathname, loc.search, loc.hash, navigate]);
  return null;
}

/**
 * Every route goes through here: the role of the route table (routeRole) is checked before the
 * screen's element is created, so a weaker role gets the 403 page and nothing of the screen (no form,
 * no call of its own).
 */
function Guarded({ route }: { route: AppRoute }) {
  const session = useSession();
  useDocumentTitle(routeTitle(route));
  if (route.guestOnly && session) return <Navigate to="/" replace />;
  if (route.public) return route.element;
  if (!session) return <ToAuth />;
  if (!routeAllowed(session.role, route)) return <ForbiddenPage />;
  return route.element;
}

function RequireLogin({ children }: { children: ReactNode }) {
  const session = useSession();
  return session ? <>{children}</> : <ToAuth />;
}

/** A page that failed to load or render: its message and a reload button, not a blank screen. */
class PageErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }
  componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <PlainAlert variant="danger">
        <div className="fw-semibold mb-1">This page failed</div>
        <div className="small mb-2">{this.state.error.message}</div>
        <Button size="sm" variant="outline-danger" onClick={() => location.reload()}>
          Reload
        </Button>
      </PlainAlert>
    );
  }
}

function Shell() {
  const session = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  useEffect(() => {
    setUnauthorizedHandler(() => navigate('/auth', { replace: true }));
  }, [navigate]);
  const menu = useMemo(() => (session ? visibleMenu(session.role, routes) : []), [session]);
  const user = session ? { name: session.name, role: session.role } : null;
  return (
    <Layout menu={menu} user={user} topExtra={session ? <Suspense fallback={null}><TopExtras uid={session.uid} /></Suspense> : null}>
      <PageErrorBoundary resetKey={pathname}>
        <Suspense fallback={<Loading />}>
          <Routes>
            {routes.map((r) => (
              <Route key={r.path} path={r.path} element={<Guarded route={r} />} />
            ))}
            <Route
              path="*"
              element={
                <RequireLogin>
                  <NotFoundPage />
                </RequireLogin>
              }
            />
          </Routes>
        </Suspense>
      </PageErrorBoundary>
    </Layout>
  );
}

/** A data router (not <BrowserRouter>) so that pages can block navigation (useBlocker, useUnsavedPrompt). */
let router: ReturnType<typeof createBrowserRouter> | undefined;

export function App() {
  router ??= createBrowserRouter([{ path: '*', element: <Shell /> }]);
  return <RouterProvider router={router} />;
}
