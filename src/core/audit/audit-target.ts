import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The object an audited call acts on ("server web-1 (#3)"), named by the service that knows it.
 *
 * The RPC registry (`invoke`) and the REST audit interceptor run each state-changing call inside an
 * audit scope; a service names its object with `auditTarget('server', s.name, s.Id)` wherever it has
 * loaded it (typically in its `entity(Id)` lookup, so every Id-bearing method of the area is covered
 * at once, deletes included: the name is taken before the row goes). The audit entry written when the
 * call ends stores the label in `audit_log.target`. Outside a scope (reads, scheduled work without an
 * audit entry) the call does nothing. The last name given wins, so a create can name the new row
 * after it is saved.
 */
export interface AuditScope {
  target: string | null;
}

const storage = new AsyncLocalStorage<AuditScope>();

/** Longest label stored (the column is varchar(190)). */
export const AUDIT_TARGET_MAX = 190;

/** `kind name (#id)`, e.g. `server web-1 (#3)`; `kind #id` without a name. */
export function targetLabel(kind: string, name?: string | null, id?: number | string | null): string {
  const n = (name ?? '').replace(/\s+/g, ' ').trim();
  const ref = id === undefined || id === null || id === '' ? '' : `#${id}`;
  const label = n ? `${kind} ${n}${ref ? ` (${ref})` : ''}` : `${kind}${ref ? ` ${ref}` : ''}`;
  return label.length > AUDIT_TARGET_MAX ? label.slice(0, AUDIT_TARGET_MAX - 1) + '…' : label;
}

/** Names the object the current audited call acts on (no-op outside an audit scope). */
export function auditTarget(kind: string, name?: string | null, id?: number | string | null): void {
  const scope = storage.getStore();
  if (scope) scope.target = targetLabel(kind, name, id);
}

/** Runs `fn` in a fresh audit scope; read `scope.target` after it settles. */
export function inAuditScope<T>(scope: AuditScope, fn: () => T): T {
  return storage.run(scope, fn);
}
