/**
 * Search-node admin (001 §2 "Search-node admin", §3 Search host and Source, §4 Sources Rotate, §5
 * Hosts/sources, §7 hosts.*, source.*, sphinx_control.createSphinxConf, §8 source errors, §9 source
 * TTL 120 and sizes in kb/mb; issue 20): shapes, input schemas, the reading of a connection URL and
 * what may be written into sphinx.conf, shared by the server and the UI. Decisions: docs/search-nodes.md.
 *
 * - A search host is a named set of database connections `[{name, query}]`, `query` being the URL
 *   `mysql://user:password@host:port/db`; the password is sealed at rest and answered masked
 *   (`mysql://user:***@host:3306/db`); saving the masked form back keeps the stored password.
 * - A source (`source`, `connect` = `{hostId}-{connName}`, `ttl_min`, `query` = sql_query, `attribute`
 *   = comma-separated uint attributes, `index`) becomes one Sphinx `source` + `index` pair.
 * - Nothing typed by a user can leave its directive in sphinx.conf: names are Sphinx identifiers, values
 *   have no line breaks, `#` is written `\#`, a value may not end with a backslash (a line continuation),
 *   and the SQL is written one line per source line with continuations, its `--`/`#` comments dropped.
 */
import { z } from 'zod';
import { flag, id, int, isHostOrAddress, isIPv6, text, unsafeCharOf } from './fields.js';
import { SECRET_MASK, userinfoEnd } from './secrets.js';

// ---------------------------------------------------------------------------------------------
// Constants (001 §9) and cluster config rows

/** Server type of a Search server (000 §3): createSphinxConf and rotate go to every such server that is on (status 1). */
export const SEARCH_SERVER_TYPE = 3;
/** 001 §9: a source is rotated every 120 minutes unless it says otherwise. */
export const SOURCE_TTL_DEFAULT = 120;
/** A year, in minutes. */
export const SOURCE_TTL_MAX = 525_600;
export const SPHINX_DEFAULTS = {
  confPath: '/etc/sphinxsearch/sphinx.conf',
  dataDir: '/var/lib/sphinxsearch/data',
  port: 9312,
  sphinxqlPort: 9306,
} as const;
/** Cluster config rows (000 §3 Cluster config) read by createSphinxConf, rotate and the live figures; each optional. */
export const SPHINX_CONFIG_ROWS = {
  confPath: 'sphinx_conf_path',
  dataDir: 'sphinx_data_dir',
  port: 'sphinx_port',
  sphinxqlPort: 'sphinxql_port',
} as const;
/** An absolute path sphinx.conf and a shell can take as written. */
export const SPHINX_PATH = /^\/(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._/-]{1,250}$/;
/** Bound on one `indexer --rotate` run (connect included). */
export const SPHINX_ROTATE_TIMEOUT_S = 1800;
/** Bound on one SphinxQL read (connect, then the query). */
export const SPHINXQL_TIMEOUT_MS = 3000;
export const HOST_CONNECTIONS_MAX = 50;
export const SOURCE_QUERY_MAX = 65_535;
export const SOURCE_ATTRIBUTES_MAX = 64;

export const SEARCH_MSG = {
  insertOk: 'Insert ok!',
  updateOk: 'Update ok!',
  hostNotFound: 'Search host not found',
  sourceNotFound: 'Source not found',
  noSearchServers: 'No Search server is switched on: add one (type 3, Search) on the servers map',
  busy: (source: string) => `A rotation of source '${source}' is already running`,
  searchdDown: 'searchd is not running: the index was built but not rotated (searchd loads it when it starts)',
  indexerMissing: 'indexer not found on the node: is sphinxsearch installed?',
  notInConf: (index: string) => `index '${index}' is not in the search config file: rebuild the search config`,
  confirmConf: 'Rebuild the search config (sphinx.conf) on every Search server?',
  rebuildConf: 'Rebuild search config',
  rotate: 'Rotate',
} as const;

// ---------------------------------------------------------------------------------------------
// Names

/** A Sphinx identifier: source, index and attribute names. */
export const SPHINX_IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Words SphinxQL reserves (they cannot name an index or attribute in `SHOW INDEX x STATUS` or a SELECT); `id` is the document id. */
export const SPHINX_RESERVED = new Set([
  'and', 'as', 'by', 'div', 'facet', 'false', 'from', 'id', 'in', 'is', 'limit', 'mod', 'not', 'null', 'or', 'order', 'regexp', 'select', 'true',
]);
/** A connection's name inside its host: letters, digits, '_', '.', '-'. */
export const CONN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** A source's `connect`: `{host Id}-{connection name}`. */
export const SOURCE_CONNECT = /^([1-9]\d{0,9})-([A-Za-z0-9_.-]{1,64})$/;

export const sourceConnect = (hostId: number, connName: string) => `${hostId}-${connName}`;
export function parseSourceConnect(v: string): { hostId: number; name: string } | null {
  const m = SOURCE_CONNECT.exec(v);
  return m ? { hostId: Number(m[1]), name: m[2] } : null;
}

const identError = (label: string, v: string): string | null => {
  if (!SPHINX_IDENT.test(v)) return `${label} must be a Sphinx name: a letter or _, then letters, digits or _ (at most 64)`;
  if (SPHINX_RESERVED.has(v.toLowerCase())) return `${label} '${v}' is a word SphinxQL reserves`;
  return null;
};

// ---------------------------------------------------------------------------------------------
// What sphinx.conf can hold

/**
 * A one-line value for sphinx.conf (`key = value`), or why it cannot be one: no line break or control
 * character, no white space at either end (the parser trims it), not ending with a backslash (it would
 * continue the directive on the next line). `#` starts a comment there: written as `\#` (the parser
 * reads `\#` as `#` and leaves every other backslash alone).
 */
export function confValueError(v: string): string | null {
  if (unsafeCharOf(v) !== null) return 'must not contain line breaks, control or invisible characters';
  if (v !== v.trim()) return 'must not start or end with white space';
  if (v.endsWith('\\')) return 'must not end with a backslash (sphinx.conf reads it as a line continuation)';
  return null;
}
export const confEscape = (v: string) => v.replace(/#/g, '\\#');

/**
 * The SQL of a source as the lines of its `sql_query`: comments to the end of a line (`-- `, `#`)
 * dropped (sphinx.conf joins the continued lines into one, where such a comment would swallow the rest
 * of the query), quoted strings and identifiers kept as written, blank lines dropped, each line trimmed
 * on the right and `#` escaped. Refused: a line ending with a backslash, and control characters.
 */
export function sqlQueryLines(sql: string): { lines: string[] } | { error: string } {
  if (unsafeCharOf(sql, true) !== null) return { error: 'must not contain control or invisible characters' };
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      // A quoted string or identifier: up to its closing quote (doubled quotes, and backslash escapes outside backticks).
      let j = i + 1;
      while (j < n) {
        if (sql[j] === '\\' && c !== '`') { j += 2; continue; }
        if (sql[j] === c) {
          if (sql[j + 1] === c) { j += 2; continue; }
          break;
        }
        j++;
      }
      if (j >= n) return { error: `has an unclosed ${c === '`' ? 'identifier quote' : 'string'} (${c})` };
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return { error: 'has an unclosed /* comment' };
      out += sql.slice(i, end + 2);
      i = end + 2;
    } else if (c === '#' || (c === '-' && sql[i + 1] === '-' && (i + 2 >= n || /\s/.test(sql[i + 2])))) {
      while (i < n && sql[i] !== '\n' && sql[i] !== '\r') i++;
    } else {
      out += c;
      i++;
    }
  }
  const lines = out.split(/\r\n|\r|\n/).map((l) => l.replace(/[\t ]+$/, '').replace(/\t/g, ' ')).filter((l) => l.trim() !== '');
  if (!lines.length) return { error: 'is required' };
  const cont = lines.findIndex((l) => l.endsWith('\\'));
  if (cont >= 0) return { error: `line ${cont + 1} ends with a backslash (sphinx.conf would read it as a line continuation)` };
  return { lines: lines.map((l, k) => confEscape(k === 0 ? l.trimStart() : l)) };
}

/** The attribute list `a, b,c` as names, or why it is not one. */
export function attributeNames(v: string): { names: string[] } | { error: string } {
  const names = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) return { error: 'Attribute is required' };
  if (names.length > SOURCE_ATTRIBUTES_MAX) return { error: `Attribute lists at most ${SOURCE_ATTRIBUTES_MAX} names` };
  for (const a of names) {
    const e = identError('Attribute', a);
    if (e) return { error: e };
  }
  const seen = new Set<string>();
  for (const a of names) {
    if (seen.has(a.toLowerCase())) return { error: `Attribute '${a}' is listed twice` };
    seen.add(a.toLowerCase());
  }
  return { names };
}

// ---------------------------------------------------------------------------------------------
// Connection URLs: mysql://user:password@host:port/db

export interface MysqlUrl {
  user: string;
  /** null: none given. SECRET_MASK: keep the stored one. */
  password: string | null;
  host: string;
  port: number;
  db: string;
}

const DB_NAME = /^[A-Za-z0-9_$-]{1,64}$/;
const decode = (s: string): string | null => {
  try { return decodeURIComponent(s); } catch { return null; }
};

/**
 * Reads `mysql://user:password@host:port/db` (user and password percent-encoded where they hold `|`,
 * `: @ / ? #` or `%`; port 3306 when absent). Answers the parts, or the reason it cannot be used.
 */
export function parseMysqlUrl(url: string): MysqlUrl | { error: string } {
  const v = url.trim();
  if (!/^mysql:\/\//i.test(v)) return { error: 'must be a URL mysql://user:password@host:port/db' };
  const from = 'mysql://'.length;
  const at = userinfoEnd(v, from);
  if (at < 0) return { error: 'must name a user: mysql://user:password@host:port/db' };
  const userinfo = v.slice(from, at);
  const colon = userinfo.indexOf(':');
  const user = decode(colon >= 0 ? userinfo.slice(0, colon) : userinfo);
  const password = colon >= 0 ? decode(userinfo.slice(colon + 1)) : null;
  if (user === null || (colon >= 0 && password === null)) return { error: 'has a malformed %-escape in the user or password' };
  if (!user) return { error: 'must name a user: mysql://user:password@host:port/db' };
  const rest = v.slice(at + 1);
  const slash = rest.indexOf('/');
  if (slash < 0) return { error: 'must name a database: mysql://user:password@host:port/db' };
  const hostPort = rest.slice(0, slash);
  const path = rest.slice(slash + 1);
  if (/[?#]/.test(path)) return { error: 'takes no parameters (?...) or fragment (#...)' };
  const db = decode(path);
  if (db === null || !DB_NAME.test(db)) return { error: 'must name a database of letters, digits, _, $ or - (at most 64)' };
  let host: string;
  let portText = '';
  const v6 = /^\[([^\]]+)\](?::(.*))?$/.exec(hostPort);
  if (v6) {
    host = v6[1];
    portText = v6[2] ?? '';
    if (!isIPv6(host)) return { error: `host [${host}] is not an IPv6 address` };
  } else {
    const c = hostPort.lastIndexOf(':');
    host = c >= 0 ? hostPort.slice(0, c) : hostPort;
    portText = c >= 0 ? hostPort.slice(c + 1) : '';
    if (!host) return { error: 'must name a host: mysql://user:password@host:port/db' };
    if (host.toLowerCase() !== 'localhost' && !isHostOrAddress(host)) return { error: `host '${host}' is not a host name or an IPv4 address` };
  }
  let port = 3306;
  if (portText !== '') {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return { error: 'port must be a number from 1 to 65535' };
    port = Number(portText);
  }
  const ue = confValueError(user);
  if (ue) return { error: `user ${ue}` };
  if (password !== null && password !== '') {
    const pe = confValueError(password);
    if (pe) return { error: `password ${pe}` };
  }
  return { user, password: password === '' ? null : password, host, port, db };
}

const enc = (s: string) => encodeURIComponent(s);
const hostText = (h: string) => (h.includes(':') ? `[${h}]` : h);

/** The URL as the console answers it: the password as SECRET_MASK (none: no ':'), port always written. */
export function maskedMysqlUrl(u: Pick<MysqlUrl, 'user' | 'host' | 'port' | 'db'>, hasPassword: boolean): string {
  return `mysql://${enc(u.user)}${hasPassword ? `:${SECRET_MASK}` : ''}@${hostText(u.host)}:${u.port}/${enc(u.db)}`;
}

// ---------------------------------------------------------------------------------------------
// Shapes

export interface SearchConnectView {
  name: string;
  /** `mysql://user:***@host:port/db` (never the password). */
  query: string;
}
export interface SearchHostView {
  Id: number;
  name: string;
  connect: SearchConnectView[];
}
/** hosts.get rows: the host with its number of connections (001 §2). */
export interface SearchHostRow extends SearchHostView {
  connections: number;
}

/** The last rotation of a source (001 §3 working): documents and bytes indexed, when, and what failed. */
export interface SourceWorking {
  docs: number;
  bytes: number;
  /** ISO 8601. */
  timeStart: string;
  timeEnd: string;
  /** Empty when every Search server rotated it; otherwise `<server>: <message>` each. */
  errors: string[];
}

/** The live figures of an index on one Search server (`SHOW INDEX <name> STATUS` over SphinxQL). */
export interface SourceLive {
  Id: number;
  node: string;
  ok: boolean;
  indexed_documents?: number;
  indexed_bytes?: number;
  ram_bytes?: number;
  disk_bytes?: number;
  message?: string;
}

export interface SourceView {
  Id: number;
  source: string;
  connect: string;
  ttl_min: number;
  query: string;
  attribute: string;
  index: string;
  working: SourceWorking | null;
  /** When the last rotation started (ISO), null before the first. */
  time_run: string | null;
  /** When the job rotates it next (ISO): time_run + ttl_min, or now when never rotated. */
  next_run: string;
  /** `source.get {live: 1}`: the index's figures on each Search server. */
  live?: SourceLive[];
}

/** source.getSourceAction: the source's state right now. */
export interface SourceAction {
  Id: number;
  source: string;
  index: string;
  working: SourceWorking | null;
  time_run: string | null;
  next_run: string;
  /** A rotation of it is running on this console instance. */
  running: boolean;
  live: SourceLive[];
}

/** One Search server's part of a rotation. */
export interface RotateNodeResult {
  Id: number;
  node: string;
  ok: boolean;
  /** indexer's exit code (null when it did not run: connection failure, time-out). */
  code: number | null;
  docs: number | null;
  bytes: number | null;
  message: string;
}
export interface RotateResult {
  working: SourceWorking;
  nodes: RotateNodeResult[];
}

/** One Search server's part of createSphinxConf (like deploy's per-node answer). */
export interface SphinxConfNodeResult {
  Id: number;
  node: string;
  ok: boolean;
  message: string;
}
export interface SphinxConfResult {
  path: string;
  data_dir: string;
  sources: number;
  nodes: SphinxConfNodeResult[];
  /** Set when nothing was written: no Search server is switched on. */
  message?: string;
}

// ---------------------------------------------------------------------------------------------
// Input schemas

const ident = (label: string) => text(label, 64, { min: 1 }).superRefine((v, ctx) => {
  const e = identError(label, v);
  if (e) ctx.addIssue({ code: 'custom', message: e });
});

export const ConnectItem = z.object({
  name: text('Connect name', 64, { min: 1 }).refine((v) => CONN_NAME.test(v), 'Connect name may hold letters, digits, _, . and - (at most 64)'),
  query: text('Connect query', 1000, { min: 1 }).superRefine((v, ctx) => {
    const r = parseMysqlUrl(v);
    if ('error' in r) ctx.addIssue({ code: 'custom', message: `Connect query ${r.error}` });
  }),
}, { error: (iss) => (iss.input === undefined ? 'Connection is required' : 'Connection must be {name, query}') });

const connectList = z
  .array(ConnectItem, { error: (iss) => (iss.input === undefined ? 'Connect is required' : 'Connect must be a list of {name, query}') })
  .min(1, 'Connect needs at least one connection')
  .max(HOST_CONNECTIONS_MAX, `Connect has at most ${HOST_CONNECTIONS_MAX} connections`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((c, i) => {
      const k = c.name.toLowerCase();
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `Connect name '${c.name}' is used twice` });
      seen.add(k);
    });
  });

const hostName = text('Host name', 190, { min: 1 });

export const SearchHostIdArgs = z.object({ Id: id('Id') });
export const SearchHostInsertArgs = z.object({ name: hostName, connect: connectList });
export const SearchHostUpdateArgs = z.object({ Id: id('Id'), name: hostName.optional(), connect: connectList.optional() });
export type SearchHostInsert = z.output<typeof SearchHostInsertArgs>;

const SOURCE_FIELDS = {
  source: ident('Source'),
  connect: text('Connection', 140, { min: 1 }).refine((v) => SOURCE_CONNECT.test(v), 'Connection must be {host Id}-{connection name}'),
  ttl_min: int(1, SOURCE_TTL_MAX, 'TTL minutes'),
  query: text('Query', SOURCE_QUERY_MAX, { min: 1, multiline: true, trim: false }).superRefine((v, ctx) => {
    const r = sqlQueryLines(v);
    if ('error' in r) ctx.addIssue({ code: 'custom', message: `Query ${r.error}` });
  }),
  attribute: text('Attribute', 2000, { min: 1 }).superRefine((v, ctx) => {
    const r = attributeNames(v);
    if ('error' in r) ctx.addIssue({ code: 'custom', message: r.error });
  }),
  index: ident('Index'),
};

export const SourceIdArgs = z.object({ Id: id('Id') });
/** source.insert: every field of 001 §5 (ttl_min defaults to 120). */
export const SourceInsertArgs = z.object({
  source: SOURCE_FIELDS.source,
  connect: SOURCE_FIELDS.connect,
  ttl_min: SOURCE_FIELDS.ttl_min.optional(),
  query: SOURCE_FIELDS.query,
  attribute: SOURCE_FIELDS.attribute,
  index: SOURCE_FIELDS.index,
});
export const SourceUpdateArgs = z.object({
  Id: id('Id'),
  source: SOURCE_FIELDS.source.optional(),
  connect: SOURCE_FIELDS.connect.optional(),
  ttl_min: SOURCE_FIELDS.ttl_min.optional(),
  query: SOURCE_FIELDS.query.optional(),
  attribute: SOURCE_FIELDS.attribute.optional(),
  index: SOURCE_FIELDS.index.optional(),
});
export type SourceInsert = z.output<typeof SourceInsertArgs>;
/** source.get: `live: 1` adds each index's figures read from the Search servers. */
export const SourceGetArgs = z.object({ live: flag('live').optional() });
export const CreateSphinxConfArgs = z.object({});
