import { ROLE_NAMES } from '../contracts/roles.js';
import type { RouteInfo, SocketMessageInfo } from './http/route-table.js';
import type { RpcMethod } from './rpc/rpc.registry.js';

export const DOCS_START = '<!-- generated:start (npm run docs:api) -->';
export const DOCS_END = '<!-- generated:end -->';

const role = (r?: number, isPublic = false) => (isPublic ? 'public' : r === undefined ? 'signed in' : `${r} (${ROLE_NAMES[r] ?? 'custom'})`);
const cell = (s?: string) => (s ?? '').replace(/\|/g, '\\|');

/** The generated reference part of docs/api.md: every RPC method, REST route and socket message. */
export function renderApiReference(methods: RpcMethod[], routes: RouteInfo[], messages: SocketMessageInfo[]): string {
  const lines = [DOCS_START, '', `### RPC methods (${methods.length})`, '', '| method | role | writes (audited) | what |', '|---|---|---|---|'];
  for (const m of methods) {
    const what = m.aliasOf ? `alias of \`${m.aliasOf}\`` : cell(m.summary);
    lines.push(`| \`${m.name}\` | ${role(m.role)} | ${m.write ? 'yes' : ''} | ${what} |`);
  }
  lines.push('', `### REST routes (${routes.length})`, '', '| verb | path | role |', '|---|---|---|');
  for (const r of routes) lines.push(`| ${r.method} | \`${r.path}\` | ${role(r.role, r.public)} |`);
  lines.push('', `### Socket messages, client to server (${messages.length})`, '', '| message | role | gateway |', '|---|---|---|');
  for (const s of messages) lines.push(`| \`${s.message}\` | ${role(s.role)} | ${s.gateway} |`);
  lines.push('', DOCS_END);
  return lines.join('\n');
}
