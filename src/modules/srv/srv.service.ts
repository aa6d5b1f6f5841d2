import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import ssh2 from 'ssh2';
import { Brackets, In, type Repository } from 'typeorm';
import type { z } from 'zod';
import {
  AcceptHostKeyArgs, FREE_GROUP, PARENT_TYPE, ServerCloneArgs, ServerIdArgs, ServerListArgs, ServerRemoveArgs, ServerSaveArgs,
  AGENT_NODE_TYPES, DEFAULT_NGINX_LOG, WEB_CLUSTER_TYPE, WEB_TYPE, renderUpstream, serverTypeName, type AgentTarget,
  type ServerGroup, type ServersMap, type ServerTypeGroup, type ServerView, type SshTestResult, type UpstreamPreview,
} from '../../contracts/srv.js';
import { MSG } from '../../contracts/messages.js';
import type { SrvChangedEvent } from '../../contracts/events.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { SecretBox } from '../../core/crypto/secret-box.js';
import { prefixPattern } from '../../core/database/like.js';
import { AppError, notFound } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SshError, SshService, type SshTarget, type HostKeyInfo } from '../../core/ssh/ssh.service.js';
import { ServerEntity } from './server.entity.js';

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const byName = (a: { name: string }, b: { name: string }) => collator.compare(a.name, b.name) || 0;
/** A 422 naming one field, like parseInput's. */
const invalid = (field: string, message: string) => new AppError(422, `${field}: ${message}`, 'rules', { [field]: message });
const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';

/** The address the console connects to: the public ip, else the local one. */
export const sshHostOf = (s: Pick<ServerEntity, 'ip' | 'ip_local'>) => s.ip || s.ip_local;

const FIELDS = ['type', 'cod', 'name', 'status', 'ip', 'ip_local', 'sshlogin', 'sshport', 'number_in_nginx', 'balance_db', 'balance_cache', 'balance_memcache', 'balance_web', 'read_nginx_log_firewall', 'nginx_log', 'agent_url'] as const;

/** Servers (000 §2 "/srv/srv_map", §3 Server): inventory, map, SSH test, clone, nginx upstream. Admin only. */
@Injectable()
export class SrvService {
  constructor(
    @InjectRepository(ServerEntity) private readonly servers: Repository<ServerEntity>,
    private readonly box: SecretBox,
    private readonly ssh: SshService,
    private readonly realtime: RealtimeService,
  ) {}

  // ------------------------------------------------------------------------------------------
  // Reading

  private toView(s: ServerEntity, keys: Map<string, HostKeyInfo>): ServerView {
    const key = keys.get(`${sshHostOf(s)}|${s.sshport}`);
    return {
      Id: s.Id, type: s.type, cod: s.cod, name: s.name, status: s.status, ip: s.ip, ip_local: s.ip_local,
      sshlogin: s.sshlogin, sshport: s.sshport, number_in_nginx: s.number_in_nginx,
      balance_db: s.balance_db, balance_cache: s.balance_cache, balance_memcache: s.balance_memcache,
      balance_web: s.balance_web, read_nginx_log_firewall: s.read_nginx_log_firewall, nginx_log: s.nginx_log,
      agent_url: s.agent_url ?? '',
      has_sshpass: !!s.sshpass, has_private_key: !!s.sshkey, has_cluster_key: !!s.cluster_key,
      host_key: key?.fingerprint ?? null, host_key_pending: key?.pending_fingerprint ?? null,
    };
  }

  private async views(rows: ServerEntity[]): Promise<ServerView[]> {
    const keys = await this.ssh.hostKeys(rows.map((s) => ({ host: sshHostOf(s), port: s.sshport })));
    return rows.map((s) => this.toView(s, keys));
  }

  private async entity(Id: number): Promise<ServerEntity> {
    const s = await this.servers.findOne({ where: { Id } });
    if (!s) throw notFound(`Server ${Id} not found`);
    auditTarget('server', s.name, s.Id); // the audit entry of the call names the server
    return s;
  }

  @Rpc('srv.get', { role: Role.admin, input: ServerIdArgs, summary: '{Id}: one server (no secrets: has_sshpass, has_private_key, has_cluster_key, pinned host_key)' })
  async get(a: z.output<typeof ServerIdArgs>): Promise<ServerView> {
    return (await this.views([await this.entity(a.Id)]))[0];
  }

  @Rpc('srv.getList', { role: Role.admin, input: ServerListArgs, summary: '{type?: number | number[]}: servers by name, no secrets' })
  async getList(a: z.output<typeof ServerListArgs> = {}): Promise<ServerView[]> {
    const types = a.type === undefined ? undefined : Array.isArray(a.type) ? a.type : [a.type];
    const rows = await this.servers.find({ where: types ? { type: In(types) } : {} });
    return (await this.views(rows)).sort(byName);
  }

  @Rpc('srv.servers_map', { role: Role.admin, summary: "Servers grouped by parent (type 0) then by type: {groups: [{Id, name, parent, types: [{type, type_name, list}]}], count}; unknown parents under 'FREE'" })
  async serversMap(): Promise<ServersMap> {
    const all = await this.views(await this.servers.find());
    return buildMap(all);
  }

  @Rpc('srv.nginxUpstream', { role: Role.admin, summary: 'Nginx upstream preview from web servers (type 8) with balance_web 1: {servers, text}; max_fails=10 fail_timeout=120s weight=5, ports 443 and 80' })
  async nginxUpstream(): Promise<UpstreamPreview> {
    const rows = await this.servers.find({ where: { type: WEB_TYPE, balance_web: 1 } });
    const servers = rows
      .filter((s) => s.ip_local || s.ip)
      .sort(byName)
      .map((s) => ({ Id: s.Id, name: s.name, address: s.ip_local || s.ip, status: s.status }));
    return { servers, text: renderUpstream(servers) };
  }

  // ------------------------------------------------------------------------------------------
  // Writing

  @Rpc('srv.save_server', {
    role: Role.admin, write: true, input: ServerSaveArgs,
    summary: 'Without Id: creates (name, type required) and answers {Id}. With Id: changes only the fields given ({Id, status}, {Id, read_nginx_log_firewall}, {Id, balance_web} or the form). sshpass/private_key(+private_key_pass)/cluster_key: non-empty replaces, *_clear removes',
  })
  async save(a: ServerSaveArgs): Promise<{ Id: number }> {
    const current = a.Id !== undefined ? await this.entity(a.Id) : null;
    const patch: Partial<ServerEntity> = {};
    for (const f of FIELDS) if (a[f] !== undefined) (patch as Record<string, unknown>)[f] = a[f];

    if (a.sshpass_clear) patch.sshpass = null;
    else if (a.sshpass) patch.sshpass = this.box.seal(a.sshpass);
    if (a.private_key_clear) { patch.sshkey = null; patch.sshkey_pass = null; }
    else if (a.private_key?.trim()) {
      checkPrivateKey(a.private_key, a.private_key_pass);
      patch.sshkey = this.box.seal(a.private_key.trim() + '\n');
      patch.sshkey_pass = this.box.sealOptional(a.private_key_pass);
    }
    if (a.cluster_key_clear) patch.cluster_key = null;
    else if (a.cluster_key?.trim()) patch.cluster_key = this.box.seal(a.cluster_key.trim());

    if (patch.name !== undefined) await this.checkNameFree(patch.name, current?.Id);
    if (patch.cod !== undefined && current && patch.cod === current.Id) throw invalid('cod', 'A server cannot be its own parent');

    if (!current) {
      const row = this.servers.create({ cod: 0, status: 1, ip: '', ip_local: '', sshlogin: '', sshport: 20001, number_in_nginx: 0, balance_db: 0, balance_cache: 0, balance_memcache: 0, balance_web: 0, read_nginx_log_firewall: 0, nginx_log: DEFAULT_NGINX_LOG, agent_url: '', sshpass: null, sshkey: null, sshkey_pass: null, cluster_key: null, ...patch });
      const saved = await this.servers.save(row);
      this.changed('create', saved);
      auditTarget('server', saved.name, saved.Id);
      return { Id: saved.Id };
    }
    const keys = Object.keys(patch);
    if (keys.length) {
      await this.servers.update({ Id: current.Id }, patch);
      if (keys.length === 1 && patch.status !== undefined) this.changed('status', current, { status: patch.status });
      else this.changed('save', { Id: current.Id, name: patch.name ?? current.name });
    }
    return { Id: current.Id };
  }

  @Rpc('srv.clone_server', { role: Role.admin, write: true, input: ServerCloneArgs, aliases: ['srv.clone_srv'], summary: '{clone_by, name?}: copies a server (secrets included) under a new name (default "<name>-clone"); answers {Id, name}' })
  async clone(a: z.output<typeof ServerCloneArgs>): Promise<{ Id: number; name: string }> {
    const src = await this.entity(a.clone_by);
    let name = a.name;
    if (name) await this.checkNameFree(name);
    else name = await this.freeName(`${src.name}-clone`);
    const { Id: _drop, ...rest } = src;
    const saved = await this.servers.save(this.servers.create({ ...rest, name }));
    this.changed('clone', saved);
    return { Id: saved.Id, name };
  }

  @Rpc('srv.remove_server_by_id', { role: Role.admin, write: true, input: ServerRemoveArgs, summary: '{Id, get_map?}: removes a server; answers the new map when get_map is truthy, else {Id, message}. Its children go under FREE' })
  async remove(a: z.output<typeof ServerRemoveArgs>): Promise<ServersMap | { Id: number; message: string }> {
    const s = await this.entity(a.Id);
    await this.servers.delete({ Id: s.Id });
    this.changed('remove', s);
    return truthy(a.get_map) ? this.serversMap() : { Id: s.Id, message: MSG.deleteOk };
  }

  // ------------------------------------------------------------------------------------------
  // SSH

  /** Login details of a server with its secrets opened, for SSH users (terminals, deploy, logs). */
  async sshTarget(Id: number): Promise<SshTarget> {
    return this.targetOf(await this.entity(Id));
  }

  /** The opened cluster key of a server (type 2), for the node-agent calls of the deploy area; null when not set. */
  async clusterKey(Id: number): Promise<string | null> {
    const s = await this.entity(Id);
    if (!s.cluster_key) return null;
    try { return this.box.open(s.cluster_key); } catch { throw new AppError(500, `The stored cluster key of ${s.name} cannot be decrypted (was SECRET_KEY changed?)`, 'error'); }
  }

  /**
   * Where the agents of some servers listen and the key they take (docs/agent.md): `agent_url`, else
   * http://{ip_local or ip}:{defaultPort}; the server's own cluster_key, else its WEB cluster's (the type 2
   * server under the same parent, `cod`; the first by name when there are several). Ids absent: every
   * node (WEB, type 8, and Node, type 9), by name.
   */
  async agentTargets(defaultPort: number, Ids?: number[]): Promise<AgentTarget[]> {
    const rows = Ids ? await this.servers.find({ where: { Id: In(Ids) } }) : await this.servers.find({ where: { type: In(AGENT_NODE_TYPES) } });
    if (Ids) for (const id of Ids) if (!rows.some((r) => r.Id === id)) throw notFound(`Server ${id} not found`);
    const clusters = (await this.servers.find({ where: { type: WEB_CLUSTER_TYPE } })).sort(byName);
    const open = (s: ServerEntity) => {
      if (!s.cluster_key) return null;
      try { return this.box.open(s.cluster_key); } catch { throw new AppError(500, `The stored cluster key of ${s.name} cannot be decrypted (was SECRET_KEY changed?)`, 'error'); }
    };
    return rows.sort(byName).map((s) => {
      const cluster = s.type === WEB_CLUSTER_TYPE ? s : clusters.find((c) => c.cod === s.cod) ?? null;
      const addr = s.ip_local || s.ip;
      const url = s.agent_url || (addr ? `http://${addr.includes(':') ? `[${addr}]` : addr}:${defaultPort}` : '');
      return {
        Id: s.Id, name: s.name, type: s.type, ip: addr, url,
        key: open(s) ?? (cluster ? open(cluster) : null),
        cluster: cluster ? { Id: cluster.Id, name: cluster.name } : null,
      };
    });
  }

  private targetOf(s: ServerEntity): SshTarget {
    const open = (v: string | null) => {
      if (!v) return null;
      try { return this.box.open(v); } catch { throw new SshError('config', `A stored SSH secret of ${s.name} cannot be decrypted (was SECRET_KEY changed?)`); }
    };
    return { host: sshHostOf(s), port: s.sshport, username: s.sshlogin, password: open(s.sshpass), privateKey: open(s.sshkey), passphrase: open(s.sshkey_pass), label: s.name };
  }

  @Rpc('srv.test_connect_ssh', { role: Role.admin, write: true, input: ServerIdArgs, summary: "{Id}: connects with the stored credentials and runs `uname -a`: {message: 'Connectn OK', hostname, uname, latency_ms, fingerprint, pinned_now}; failure: 502/504 'http' with fields.reason refused|timeout|auth|hostkey|unreachable|config" })
  async testConnect(a: z.output<typeof ServerIdArgs>, ctx: Pick<RpcContext, 'actor' | 'signal'>): Promise<SshTestResult> {
    const s = await this.entity(a.Id);
    const target = this.targetOf(s);
    let r: Awaited<ReturnType<SshService['test']>>;
    try {
      r = await this.ssh.test(target, { actor: ctx.actor, signal: ctx.signal });
    } catch (err) {
      // A changed host key is now pending: the map shows it with the accept button.
      if (err instanceof SshError && err.reason === 'hostkey') this.changed('hostkey', s);
      throw err;
    }
    if (r.pinned_now) this.changed('hostkey', s);
    return { message: MSG.connectOk as 'Connectn OK', Id: s.Id, host: target.host, port: target.port, ...r };
  }

  @Rpc('srv.acceptHostKey', { role: Role.admin, write: true, input: AcceptHostKeyArgs, summary: '{Id, fingerprint?}: pins the changed host key the server offered at the last refused connect (audited as ssh.hostkey.accept); answers {fingerprint, previous}' })
  async acceptHostKey(a: z.output<typeof AcceptHostKeyArgs>, ctx: RpcContext) {
    const s = await this.entity(a.Id);
    const r = await this.ssh.acceptPending(sshHostOf(s), s.sshport, a.fingerprint, ctx.actor);
    this.changed('hostkey', s);
    return r;
  }

  // ------------------------------------------------------------------------------------------

  /** Every admin's open map re-reads (issue 7: operators see each other's changes live). */
  private changed(action: SrvChangedEvent['action'], s: { Id: number; name: string }, extra: Pick<SrvChangedEvent, 'status'> = {}) {
    this.realtime.emit('srv.changed', { action, Id: s.Id, name: s.name, ...extra, at: Date.now() }, Role.admin);
  }

  private async checkNameFree(name: string, exceptId?: number) {
    const qb = this.servers.createQueryBuilder('s').where('LOWER(s.name) = LOWER(:name)', { name });
    if (exceptId !== undefined) qb.andWhere(new Brackets((w) => w.where('s.Id <> :id', { id: exceptId })));
    if (await qb.getExists()) throw new AppError(409, `name: A server named '${name}' already exists`, 'rules', { name: `A server named '${name}' already exists` });
  }

  private async freeName(base: string): Promise<string> {
    const taken = new Set(
      (await this.servers.createQueryBuilder('s').select('s.name', 'name').where("LOWER(s.name) LIKE LOWER(:p) ESCAPE '!'", { p: prefixPattern(base) }).getRawMany<{ name: string }>())
        .map((r) => r.name.toLowerCase()),
    );
    if (!taken.has(base.toLowerCase())) return base;
    for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`.toLowerCase())) return `${base}-${i}`;
  }
}

/** Groups servers by parent (type 0) then type; parents by name, FREE last; rows by name within a type. */
export function buildMap(all: ServerView[]): ServersMap {
  const parents = all.filter((s) => s.type === PARENT_TYPE).sort(byName);
  const parentIds = new Set(parents.map((p) => p.Id));
  const children = new Map<number | null, ServerView[]>();
  for (const s of all) {
    if (s.type === PARENT_TYPE) continue;
    const key = parentIds.has(s.cod) ? s.cod : null;
    const list = children.get(key);
    if (list) list.push(s);
    else children.set(key, [s]);
  }
  const byType = (list: ServerView[] = []): ServerTypeGroup[] => {
    const m = new Map<number, ServerView[]>();
    for (const s of list) {
      const l = m.get(s.type);
      if (l) l.push(s);
      else m.set(s.type, [s]);
    }
    return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([type, l]) => ({ type, type_name: serverTypeName(type), list: l.sort(byName) }));
  };
  const groups: ServerGroup[] = parents.map((p) => ({ Id: p.Id, name: p.name, parent: p, types: byType(children.get(p.Id)) }));
  const free = children.get(null);
  if (free?.length) groups.push({ Id: null, name: FREE_GROUP, parent: null, types: byType(free) });
  return { groups, count: all.length };
}

/** A private key ssh2 can use (with its passphrase), else a 422 naming the field. */
function checkPrivateKey(key: string, passphrase?: string) {
  const parsed = ssh2.utils.parseKey(key.trim(), passphrase || undefined);
  const k = Array.isArray(parsed) ? parsed[0] : parsed;
  if (k instanceof Error || !k) {
    const msg = /passphrase|decrypt|bad decrypt/i.test((k as Error)?.message ?? '') ? 'The passphrase does not open this private key' : `Not a usable private key: ${(k as Error)?.message ?? 'unknown format'}`;
    throw invalid('private_key', msg);
  }
  if (!k.isPrivateKey()) throw invalid('private_key', 'This is a public key: paste the private key');
}
