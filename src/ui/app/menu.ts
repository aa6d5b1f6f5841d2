import { MENU, roleForPath, type MenuGroup } from '../../contracts/menu.js';
import { roleAllows } from '../../contracts/roles.js';
import type { AppRoute } from './routes.js';

/** The menu for a role: MENU items whose screen exists in the route table and whose role allows it. */
export function visibleMenu(role: number, table: readonly AppRoute[]): MenuGroup[] {
  const paths = new Set(table.map((r) => r.path));
  return MENU.map((g) => ({
    ...g,
    items: g.items.filter((i) => paths.has(i.path) && roleAllows(role, i.role ?? g.role ?? Number.POSITIVE_INFINITY)),
  })).filter((g) => g.items.length > 0);
}

/** The role a route needs: its own `role`, else roleForPath of its path; undefined = any signed-in user. */
export function routeRole(r: Pick<AppRoute, 'path' | 'role'>): number | undefined {
  return r.role ?? roleForPath(r.path);
}

/** May this role open this route? */
export function routeAllowed(role: number, r: Pick<AppRoute, 'path' | 'role'>): boolean {
  const need = routeRole(r);
  return need === undefined || roleAllows(role, need);
}

/** The tab title of a route: its own, else its MENU label. */
export function routeTitle(r: AppRoute): string | undefined {
  if (r.title) return r.title;
  for (const g of MENU) for (const i of g.items) if (i.path === r.path) return i.label;
  return undefined;
}
