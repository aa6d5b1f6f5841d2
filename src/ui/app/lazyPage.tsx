import { lazy, useState, type ComponentType, type ReactElement } from 'react';

type Loader = () => Promise<Record<string, unknown>>;

/** Page components already loaded, by loader and export name (routes of one page share its loader). */
const loadedPages = new WeakMap<Loader, Map<string, ComponentType>>();
/** How each lazyPage element loads its module (preloadPage). */
const loaders = new WeakMap<ReactElement, () => Promise<unknown>>();

/**
 * A route element that loads its page module on first visit (code-split by Vite). The module's
 * default export is used, or the named export given:
 *   lazyPage(() => import('../areas/srv/SrvMapPage.js'))
 *   lazyPage(() => import('../areas/srv/pages.js'), 'SrvMapPage')
 * Once the module is loaded (preloadPage, an earlier visit, or another route with the same loader
 * function) the page renders at once, without suspending: React holds a Suspense fallback it has shown
 * for up to 300 ms (its throttling of reveals), which a first visit would otherwise pay on top of the
 * download. A page behind several routes passes them one loader function (routes.tsx).
 */
export function lazyPage<M extends Record<string, unknown>>(load: () => Promise<M>, exportName: keyof M & string = 'default'): ReactElement {
  const known = () => loadedPages.get(load)?.get(exportName);
  const get = async (): Promise<ComponentType> => {
    const m = await load();
    const C = m[exportName] as ComponentType | undefined;
    if (!C) throw new Error(`Page module has no export "${exportName}"`);
    let byName = loadedPages.get(load);
    if (!byName) loadedPages.set(load, (byName = new Map()));
    byName.set(exportName, C);
    return C;
  };
  const Lazy = lazy(async () => ({ default: await get() }));
  function Page() {
    // Chosen once per mount, so a page that mounted through Lazy is never remounted as the component itself.
    const [C] = useState<ComponentType>(() => known() ?? Lazy);
    return <C />;
  }
  const element = <Page />;
  loaders.set(element, get);
  return element;
}

/** Loads a lazyPage element's module (main.tsx: the first route's, before the first render). A failed load is left to the page's own. */
export function preloadPage(element: ReactElement): Promise<void> {
  return (loaders.get(element)?.() ?? Promise.resolve()).then(() => undefined, () => undefined);
}
