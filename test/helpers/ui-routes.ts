/**
 * The UI's route table (src/ui/app/routes.tsx) as data for browser tests, read from its source (the
 * module itself is TSX with lazy page imports and cannot be loaded under Jest): one entry per
 * `{ path: '…', … }` line, with `public`, `guestOnly` and the role the guard applies (the route's own
 * `role: Role.x`, else roleForPath of src/contracts/menu.ts, exactly as src/ui/app/menu.ts routeRole).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { roleForPath } from '../../src/contracts/menu.js';
import { Role } from '../../src/contracts/roles.js';

export interface UiRoute {
  path: string;
  /** The role the route needs (lower is stronger); undefined: any signed-in user. */
  role: number | undefined;
  public: boolean;
  guestOnly: boolean;
}

const SOURCE = join(import.meta.dirname, '..', '..', 'src', 'ui', 'app', 'routes.tsx');

export function uiRoutes(): UiRoute[] {
  const out: UiRoute[] = [];
  for (const line of readFileSync(SOURCE, 'utf8').split('\n')) {
    const m = /^\s*\{\s*path:\s*'([^']+)'(.*)\},?\s*$/.exec(line);
    if (!m) continue;
    const rest = m[2];
    const own = /\brole:\s*Role\.(\w+)/.exec(rest)?.[1];
    if (own && !(own in Role)) throw new Error(`routes.tsx: unknown role Role.${own} on ${m[1]}`);
    out.push({
      path: m[1],
      role: own ? Role[own as keyof typeof Role] : roleForPath(m[1]),
      public: /\bpublic:\s*true\b/.test(rest),
      guestOnly: /\bguestOnly:\s*true\b/.test(rest),
    });
  }
  if (out.length < 10) throw new Error(`routes.tsx: only ${out.length} routes read; has the table's format changed?`);
  return out;
}

/** A URL for a route pattern: every `:param` replaced (default '1'). */
export const concretePath = (path: string, params: Record<string, string> = {}): string =>
  path.replace(/:(\w+)/g, (_, k: string) => params[k] ?? '1');
