import { lazy, type ComponentType, type ReactElement } from 'react';

/**
 * A route element that loads its page module on first visit (code-split by Vite). The module's
 * default export is used, or the named export given:
 *   lazyPage(() => import('../areas/srv/SrvMapPage.js'))
 *   lazyPage(() => import('../areas/srv/pages.js'), 'SrvMapPage')
 */
export function lazyPage<M extends Record<string, unknown>>(load: () => Promise<M>, exportName: keyof M & string = 'default'): ReactElement {
  const Page = lazy(async () => {
    const m = await load();
    const C = m[exportName] as ComponentType | undefined;
    if (!C) throw new Error(`Page module has no export "${exportName}"`);
    return { default: C };
  });
  return <Page />;
}
