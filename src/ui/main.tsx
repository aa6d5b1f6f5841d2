import 'bootstrap/dist/css/bootstrap.min.css';
import './kit/kit.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { matchPath } from 'react-router-dom';
import { App } from './app/App.js';
import { preloadPage } from './app/lazyPage.js';
import { routes } from './app/routes.js';

// The first route's page module is fetched before the first render (beside the main bundle's own
// chunks), so the page paints with its content rather than a spinner first (bench/README.md "UI").
const first = routes.find((r) => matchPath(r.path, location.pathname));
void (first ? preloadPage(first.element) : Promise.resolve()).then(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
