/**
 * Servers and cluster (000 §2 "Server and cluster", §3 Server, SSL host, Cluster config, Domain):
 * shapes, input schemas and labels shared by the server and the UI.
 */
import { z } from 'zod';
import { NGINX_UPSTREAM, SSH_DEFAULT_PORT, SSL_ALERT_DAYS } from './constants.js';
import { CONSOLE_CONFIG_TYPE, parseConsoleApp } from './deploy.js';
import { address, choice, flag, id, int, INT_MAX, isHostName, isHttpUrl, isIPv6, isUsableAddress, oneOrMany, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Server types and labels (000 §3)

export const SERVER_TYPES = {
  0: 'Server',
  1: 'Proxy',
  2: 'WEB cluster',
  3: 'Search',
  4: 'Data',
  5: 'DB cache',
  6: 'DB',
  8: 'WEB',
  9: 'Node',
  10: 'MemCache',
} as const satisfies Record<number, string>;
export type ServerType = keyof typeof SERVER_TYPES;
export const SERVER_TYPE_IDS = Object.keys(SERVER_TYPES).map(Number) as ServerType[];
export const serverTypeName = (t: number): string => (SERVER_TYPES as Record<number, string>)[t] ?? `Type ${t}`;

/** Type 0: a physical placement, the parent (`cod`) of the other servers. */
export const PARENT_TYPE = 0;
/** Type 1 (Proxy) carries the firewall-log toggle `read_nginx_log_firewall`. */
export const PROXY_TYPE = 1;
/** Type 2 (WEB cluster) carries `cluster_key`. */
export const WEB_CLUSTER_TYPE = 2;
/** Servers with a node agent that the log pages and 'Deploy configs' go to: WEB (8) and Node (9). */
export const AGENT_NODE_TYPES = [8, 9];
/** A node's agent as the console calls it (server side only: holds the opened key). */
export interface AgentTarget {
  Id: number;
  name: string;
  type: number;
  ip: string;
  /** Base URL ('' when the node has no address and no agent_url). */
  url: string;
  key: string | null;
  /** The node's WEB cluster: its own record (type 2) or the type 2 server under the same parent. */
  cluster: { Id: number; name: string } | null;
}
/** Type 4 (Data) carries `number_in_nginx`. */
export const DATA_TYPE = 4;
/** Web servers (type 8, WEB) carry the balancer switch `balance_web` and feed the nginx upstream. */
export const WEB_TYPE = 8;
/** Where a proxy's nginx access log is unless its `nginx_log` says otherwise; a path the worker may quote safely. */
export const DEFAULT_NGINX_LOG = '/var/log/nginx/access.log';
export const NGINX_LOG_PATH = /^\/[A-Za-z0-9._/-]+$/;
/** Group name for servers whose parent is unknown (000 §2). */
export const FREE_GROUP = 'FREE';

/** balance_db, balance_cache, balance_memcache (000 §3). */
export const BALANCE_ROLES = { 0: 'Not used', 1: 'Master', 2: 'Slave' } as const satisfies Record<number, string>;

// ---------------------------------------------------------------------------------------------
// Server: what the API answers (never any secret) and what it accepts

export interface ServerView {
  Id: number;
  type: number;
  /** Parent id: a server of type 0; 0 or an unknown id puts the server under FREE. */
  cod: number;
  name: string;
  status: number;
  ip: string;
  ip_local: string;
  sshlogin: string;
  sshport: number;
  number_in_nginx: number;
  balance_db: number;
  balance_cache: number;
  balance_memcache: number;
  balance_web: number;
  read_nginx_log_firewall: number;
  /** Proxies: the nginx access log the firewall worker reads (default /var/log/nginx/access.log). */
  nginx_log: string;
  /** The node agent's base URL as saved (empty: the default from the address and NODE_AGENT_PORT, docs/agent.md). */
  agent_url: string;
  /** Whether a password / private key / cluster key is stored (the values never leave the server). */
  has_sshpass: boolean;
  has_private_key: boolean;
  has_cluster_key: boolean;
  /** Pinned SSH host key (OpenSSH SHA256 fingerprint) and a refused, different one waiting for an admin. */
  host_key: string | null;
  host_key_pending: string | null;
}

export interface ServerTypeGroup {
  type: number;
  type_name: string;
  list: ServerView[];
}
export interface ServerGroup {
  /** The parent's Id, or null for FREE. */
  Id: number | null;
  /** The parent's name, or 'FREE'. */
  name: string;
  parent: ServerView | null;
  types: ServerTypeGroup[];
}
export interface ServersMap {
  groups: ServerGroup[];
  count: number;
}

const NAME_MAX = 128;
const LOGIN_MAX = 64;
const SECRET_MAX = 16_384;

// Input fields come from ./fields.ts (numbers as JSON numbers or decimal digits only, text without
// control or zero-width characters); see docs/architecture.md "Strict input".

/** An IPv4 or IPv6 address a server can have (not 0.0.0.0, 255.255.255.255 or ::), or empty (not set). */
export const addressField = address;

export const serverIdField = id();

/** A node agent's base URL: empty (the default) or http(s)://host[:port][/path] without query, fragment or credentials. */
export const agentUrlField = text('Agent URL', 255)
  .transform((v) => v.trim().replace(/\/+$/, ''))
  .refine((v) => v === '' || (isHttpUrl(v) && /^https?:\/\/[^@/?#\s]+(\/[^?#\s]*)?$/i.test(v)), 'Agent URL must be an http:// or https:// base URL without query or credentials (empty: the default)');

/**
 * A server name: 1-128 characters without control or zero-width characters, and not 'FREE' in any case
 * (the map's group of servers without a parent, FREE_GROUP).
 */
export const serverNameField = text('Name', NAME_MAX, { min: 1 }).refine(
  (v) => v.toUpperCase() !== FREE_GROUP,
  `Name '${FREE_GROUP}' is reserved for the map's group of servers without a parent`,
);

/**
 * srv.save_server / POST /srv/save_server. Without Id: a new server (name and type required).
 * With Id: only the fields given change ({Id, status}, {Id, read_nginx_log_firewall}, {Id, balance_web}
 * or the whole form). Secrets: a non-empty `sshpass` / `private_key` / `cluster_key` replaces the stored one,
 * empty or absent keeps it, `*_clear: true` removes it.
 */
export const ServerSaveArgs = z
  .object({
    Id: serverIdField.optional(),
    name: serverNameField.optional(),
    type: choice(SERVER_TYPE_IDS, 'Type').optional(),
    cod: int(0, INT_MAX, 'Parent').optional(),
    status: flag('Status').optional(),
    ip: addressField('IP').optional(),
    ip_local: addressField('Local IP').optional(),
    sshlogin: text('SSH login', LOGIN_MAX).regex(/^[A-Za-z0-9._-]*$/, 'SSH login may hold letters, digits and . _ -').optional(),
    sshport: int(1, 65535, 'SSH port').optional(),
    sshpass: z.string().max(1024, 'SSH password is at most 1024 characters').optional(),
    sshpass_clear: flag('sshpass_clear').optional(),
    /** A private key (OpenSSH or PEM) for key-based login; named so the audit log masks it. */
    private_key: z.string().max(SECRET_MAX, 'Private key is too long').optional(),
    private_key_pass: z.string().max(1024).optional(),
    private_key_clear: flag('private_key_clear').optional(),
    cluster_key: z.string().max(1024, 'Cluster key is at most 1024 characters').optional(),
    cluster_key_clear: flag('cluster_key_clear').optional(),
    number_in_nginx: int(0, 1_000_000, 'Number in nginx').optional(),
    balance_db: choice([0, 1, 2], 'DB balance').optional(),
    balance_cache: choice([0, 1, 2], 'Cache balance').optional(),
    balance_memcache: choice([0, 1, 2], 'MemCache balance').optional(),
    balance_web: flag('Web balancer').optional(),
    read_nginx_log_firewall: flag('Firewall log').optional(),
    nginx_log: text('Nginx log', 255, { min: 1 }).regex(NGINX_LOG_PATH, 'Nginx log must be an absolute path of letters, digits and . _ - /').optional(),
    /** The node agent's base URL (http:// or https://, no query, no credentials); empty: the default. */
    agent_url: agentUrlField.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.Id !== undefined) return;
    if (v.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: 'Name is required' });
    if (v.type === undefined) ctx.addIssue({ code: 'custom', path: ['type'], message: 'Type is required' });
  });
export type ServerSaveArgs = z.output<typeof ServerSaveArgs>;

export const ServerIdArgs = z.object({ Id: serverIdField });
/** `{type}`: one server type or a non-empty list of them; `[]`, `{}`, `null` and the like are refused. */
export const ServerListArgs = z
  .object({ type: oneOrMany(choice(SERVER_TYPE_IDS, 'Type'), 'Type', SERVER_TYPE_IDS.length).optional() })
  .default({});
export const ServerRemoveArgs = z.object({ Id: serverIdField, get_map: flag('get_map').optional() });
export const ServerCloneArgs = z.object({
  clone_by: id('clone_by'),
  name: serverNameField.optional(),
});
export const AcceptHostKeyArgs = z.object({
  Id: serverIdField,
  /** The fingerprint the admin was shown; the key is accepted only if it is still the one offered. */
  fingerprint: text('fingerprint', 128).optional(),
});

/** 'Connectn OK' answer of the SSH test. Failures are error envelopes (502 'http') whose fields.reason is one of SshFailure. */
export interface SshTestResult {
  message: 'Connectn OK';
  Id: number;
  host: string;
  port: number;
  hostname: string;
  uname: string;
  /** Connect + authenticate + run, in ms; connect_ms is the connect and authentication part. */
  latency_ms: number;
  connect_ms: number;
  fingerprint: string;
  /** True when this connect pinned the host key (first successful connect). */
  pinned_now: boolean;
}
export type SshFailure = 'refused' | 'timeout' | 'auth' | 'hostkey' | 'unreachable' | 'config' | 'error';
/** Why a server was not reached: an SshFailure, or `no_credentials` when it was not tried (no address, login, or password/key). */
export type SshReason = SshFailure | 'no_credentials';
/** The sentence a screen shows for each reason, beside the server's own message and a link to its dialog (serverEditPath). */
export const SSH_REASON_TEXT: Record<SshReason, string> = {
  no_credentials: 'Not tried: no SSH address, login, or password/private key is stored for it. Add them in the server dialog.',
  hostkey: 'Its host key changed and the new key is not accepted yet: check it, then accept it in the server dialog.',
  auth: 'SSH refused the stored login: check the login and the password or key in the server dialog.',
  refused: 'Nothing listens on its SSH port (connection refused): check the port in the server dialog and that sshd runs.',
  timeout: 'No answer in time: the server is down, or a firewall drops SSH.',
  unreachable: 'Its address cannot be reached from the console: check the address in the server dialog.',
  config: 'Its SSH settings cannot be used: fix them in the server dialog.',
  error: 'SSH failed: see the message.',
};
/** The server dialog on the server map (/srv/srv_map?edit=Id), where its address, login, password and host key are fixed. */
export const serverEditPath = (Id: number) => `/srv/srv_map?edit=${Id}`;
/** What a server lacks to be reached over SSH (no address, login, or password/key), or null when it has it all. */
export function missingSshCredential(s: { ip: string; ip_local: string; sshlogin: string; has_sshpass: boolean; has_private_key: boolean }): string | null {
  if (!(s.ip || s.ip_local)) return 'No IP address is set for this server';
  if (!s.sshlogin) return 'No SSH login is set for this server';
  if (!s.has_sshpass && !s.has_private_key) return 'No SSH password or private key is stored for this server';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Nginx upstream preview (000 §9)

export interface UpstreamServer { Id: number; name: string; address: string; status: number }
export interface UpstreamPreview {
  servers: UpstreamServer[];
  text: string;
}

/** The nginx upstream blocks for the web servers with the balancer on; a server switched off is marked down. */
export function renderUpstream(servers: UpstreamServer[], name = 'web'): string {
  const { max_fails, fail_timeout, weight, ports } = NGINX_UPSTREAM;
  return ports
    .map((port) => {
      const lines = servers.map((s) => `    server ${s.address.includes(':') ? `[${s.address}]` : s.address}:${port} max_fails=${max_fails} fail_timeout=${fail_timeout} weight=${weight}${s.status ? '' : ' down'}; # ${s.name}`);
      return [`upstream ${name}_${port} {`, ...lines, '}'].join('\n');
    })
    .join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// SSL hosts (000 §3, §5)

export interface SslHostView {
  Id: number;
  /** Host name or address, optionally with a port ('example.com:8443'; 443 when absent). */
  host: string;
  /** Whole days until the certificate expires (negative once expired); null until checked. */
  day_last: number | null;
  not_check: number;
  /** Last check attempt (ISO time), null until checked. */
  ts_check: string | null;
  /** Certificate expiry (ISO time) as read at the last successful check. */
  expires_at: string | null;
  /** 1 when the chain verified against the system's CAs and matched the host, 0 when not, null until checked. */
  chain_valid: number | null;
  /** Why the chain did not verify (e.g. DEPTH_ZERO_SELF_SIGNED_CERT); null when it did. */
  chain_error: string | null;
  /** Why the last check failed (day_last then keeps the last known value); null after a good check. */
  error: string | null;
  /** `error` classified (SSL_REASON_TEXT says it as a sentence; the raw text stays in `error`); null without an error. */
  error_reason: SslReason | null;
  /** `chain_error` classified the same way; null when the chain verified or was not checked. */
  chain_reason: SslReason | null;
}

/** Why an SSL check failed or a chain did not verify, classified from the TLS stack's text (srv/ssl.service.ts sslReasonOf). */
export type SslReason =
  | 'wrong_version' | 'expired' | 'not_yet_valid' | 'self_signed' | 'untrusted' | 'name_mismatch' | 'handshake' | 'no_certificate'
  | 'refused' | 'timeout' | 'not_found' | 'unreachable' | 'reset' | 'bad_host' | 'other';
/** The sentence each reason is shown as (the raw OpenSSL or system text goes behind a details toggle). */
export const SSL_REASON_TEXT: Record<SslReason, string> = {
  wrong_version: 'The port does not speak TLS (wrong version number): it answers plain HTTP or another protocol. Check the port (HTTPS is usually 443).',
  expired: 'The certificate has expired: renew it.',
  not_yet_valid: "The certificate is not valid yet: its start date is in the future (or the server's clock is wrong).",
  self_signed: 'The certificate is self-signed: no trusted authority vouches for it.',
  untrusted: 'The chain does not lead to a trusted authority: the server may not send its intermediate certificates.',
  name_mismatch: 'The certificate is for another name than this host.',
  handshake: "The TLS handshake failed: the server refused the console's TLS versions or ciphers.",
  no_certificate: 'The server sent no certificate.',
  refused: 'Nothing listens on that port (connection refused).',
  timeout: 'No answer in time: the host is down, or a firewall drops the port.',
  not_found: 'The host name does not resolve (DNS).',
  unreachable: 'The address cannot be reached from the console.',
  reset: 'The server closed the connection during the TLS handshake.',
  bad_host: 'Not a valid host: edit it.',
  other: 'The check failed: see the details.',
};

/** 000 §5: the alert lists hosts with day_last below 5 and not_check equal to 0. */
export const sslAlertHosts = <T extends Pick<SslHostView, 'day_last' | 'not_check'>>(rows: T[]): T[] =>
  rows.filter((r) => r.day_last !== null && r.day_last < SSL_ALERT_DAYS && !r.not_check);

/**
 * Splits 'host[:port]' (also '[v6]:port'); null when not a valid host: a host name whose last label is
 * not a number (isHostName: not '7', '0x7f000001', '999.1.1.1') or an address a peer can have (not
 * 0.0.0.0, 255.255.255.255 or ::).
 */
export function parseSslHost(raw: string): { host: string; port: number } | null {
  let s = raw.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  let port = 443;
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(s);
  if (v6) {
    if (!isIPv6(v6[1]) || !isUsableAddress(v6[1])) return null;
    port = v6[2] ? Number(v6[2]) : 443;
    return port >= 1 && port <= 65535 ? { host: v6[1], port } : null;
  }
  const m = /^(.*):(\d+)$/.exec(s);
  if (m) {
    s = m[1];
    port = Number(m[2]);
  }
  if (!(port >= 1 && port <= 65535)) return null;
  if (!isHostName(s) && !isUsableAddress(s)) return null;
  return { host: s, port };
}

/** The stored form: lower case, no scheme or path, ':443' dropped. */
export function normalizeSslHost(raw: string): string | null {
  const p = parseSslHost(raw);
  if (!p) return null;
  const h = p.host.includes(':') ? `[${p.host}]` : p.host;
  return p.port === 443 ? h : `${h}:${p.port}`;
}

const sslHostField = text('Host', 190, { min: 1 })
  .refine((v) => parseSslHost(v) !== null, 'Host must be a host name or address, optionally with :port (1-65535); not a bare number')
  .transform((v) => normalizeSslHost(v)!);

export const SslUpdateArgs = z.object({
  Id: serverIdField.optional(),
  host: sslHostField.optional(),
  not_check: flag('not_check').optional(),
}).superRefine((v, ctx) => {
  if (v.Id === undefined && v.host === undefined) ctx.addIssue({ code: 'custom', path: ['host'], message: 'Host is required' });
});
export const SslIdArgs = z.object({ Id: serverIdField });

// ---------------------------------------------------------------------------------------------
// Cluster configs and domains (000 §3, §4)

export interface ClusterConfigView {
  Id: number;
  type: string;
  value: string;
}
/** Client-side row state of 000 §4: new rows insert, edited rows update, deleted rows remove. */
export type ConfigRowState = 'insert' | 'update' | 'remove';

/**
 * Known config types: firewall_used_ip_drop, cluster_host ('base URL|...'), domain (one row per domain),
 * and those of docs/deploy.md: deploy_web, deploy_web_test (deploy commands), console_app ('name|/log/path[|types]').
 */
export const CONFIG_TYPES = ['cluster_host', 'console_app', 'deploy_web', 'deploy_web_test', 'domain', 'firewall_used_ip_drop'] as const;
/** Config rows of this type are the domain list (GET /cfg/domains, cfg.getDomains). */
export const DOMAIN_CONFIG_TYPE = 'domain';
export const CONFIG_BATCH_MAX = 500;
export const CONFIG_VALUE_MAX = 10_000;

export interface DomainView { domain: string }

const configType = z
  .string({ error: 'type is required' })
  .trim()
  .min(1, 'type is required')
  .max(64, 'type is at most 64 characters')
  .regex(/^[A-Za-z0-9_.-]+$/, 'type may hold letters, digits and _ . -');
/** Multi-line text (tab and line breaks kept, as written); other control and zero-width characters are refused. */
const configValue = text('value', CONFIG_VALUE_MAX, { multiline: true, trim: false });

const checkRow = (row: { type?: string; value?: string }, ctx: z.RefinementCtx) => {
  if (row.type === DOMAIN_CONFIG_TYPE && row.value !== undefined && !isHostName(row.value.trim())) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'A domain must be a host name (example.com), not a number or an address' });
  }
  if (row.type === 'cluster_host' && row.value !== undefined && !isHttpUrl(row.value.trim().split('|')[0])) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: "cluster_host must start with a base URL (http://host:port|...)" });
  }
  if (row.type === CONSOLE_CONFIG_TYPE && row.value !== undefined && !parseConsoleApp(row.value)) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'console_app must be name|/absolute/log/path (optionally |server types, e.g. |8,9)' });
  }
};

export const ConfigInsertRow = z.object({ type: configType, value: configValue }).superRefine(checkRow);
export const ConfigUpdateRow = z.object({ Id: serverIdField, type: configType, value: configValue }).superRefine(checkRow);

/** A batch is a list, or {list}. */
const batch = <T extends z.ZodType>(row: T) =>
  z.preprocess(
    (v) => (Array.isArray(v) ? { list: v } : v),
    z.object({ list: z.array(row).min(1, 'list is empty').max(CONFIG_BATCH_MAX, `at most ${CONFIG_BATCH_MAX} rows per call`) }),
  );
export const ConfigInsertBatch = batch(ConfigInsertRow);
export const ConfigUpdateBatch = batch(ConfigUpdateRow);
/** Removals: Ids, or rows with Id (only rows that have an Id are sent, 000 §4). */
export const ConfigRemoveBatch = batch(z.preprocess((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as { Id?: unknown }).Id : v), serverIdField));
export const ConfigListArgs = z.object({ type: text('type', 64).optional() }).default({});

export { SSH_DEFAULT_PORT, SSL_ALERT_DAYS, NGINX_UPSTREAM };
