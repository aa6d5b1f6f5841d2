import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createConnection } from 'mysql2/promise';
import { setMaxListeners } from 'node:events';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import { Role } from '../../contracts/roles.js';
import {
  CreateSphinxConfArgs, SEARCH_MSG, SEARCH_SERVER_TYPE, SPHINX_CONFIG_ROWS, SPHINX_DEFAULTS, SPHINX_PATH, SPHINX_ROTATE_TIMEOUT_S, SPHINXQL_TIMEOUT_MS,
  type RotateNodeResult, type SourceLive, type SphinxConfNodeResult, type SphinxConfResult,
} from '../../contracts/search-nodes.js';
import type { ServerView } from '../../contracts/srv.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { invalid } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SshService } from '../../core/ssh/ssh.service.js';
import { CfgConfigsService } from '../cfg-configs/cfg-configs.service.js';
import { SrvService } from '../srv/srv.service.js';
import { SearchHostsService } from './search-hosts.service.js';
import { SearchSourceEntity } from './search-nodes.entities.js';
import { CONF_REFUSED_EXIT, CONF_WRITTEN, parseIndexerOutput, rotateCommand, writeConfCommand } from './sphinx-commands.js';
import { renderSphinxConf, SphinxConfError, type ConfSource } from './sphinx-conf.js';

export interface SphinxSettings {
  confPath: string;
  dataDir: string;
  port: number;
  sphinxqlPort: number;
}

type Actor = RpcContext['actor'] | null;

/** The address the console reaches a server at (as SshService does: the public ip, else the local one). */
const addressOf = (s: Pick<ServerView, 'ip' | 'ip_local'>) => s.ip || s.ip_local;

/**
 * The Search servers' side (001 §7 sphinx_control.createSphinxConf; docs/search-nodes.md): where the
 * config lives (cluster config rows sphinx_conf_path, sphinx_data_dir, sphinx_port, sphinxql_port),
 * which servers are Search servers (type 3, switched on), writing the config to each over SSH,
 * running `indexer --rotate` on each, and reading an index's live figures over SphinxQL.
 */
@Injectable()
export class SphinxControlService {
  private readonly log = new Logger('SphinxControl');

  constructor(
    @InjectRepository(SearchSourceEntity) private readonly sources: Repository<SearchSourceEntity>,
    private readonly hosts: SearchHostsService,
    private readonly srv: SrvService,
    private readonly ssh: SshService,
    private readonly cfgs: CfgConfigsService,
  ) {}

  /** The cluster config rows of the search config, defaults where a row is absent or empty. */
  async settings(): Promise<SphinxSettings> {
    const read = async (type: string) => ((await this.cfgs.firstValue(type)) ?? '').trim();
    const pathOf = async (type: string, dflt: string) => {
      const v = (await read(type)) || dflt;
      if (!SPHINX_PATH.test(v)) throw invalid(`Cluster config ${type}: '${v}' is not an absolute path of letters, digits, '.', '_', '-' and '/'`, { [type]: 'not an absolute path' });
      return v.length > 1 ? v.replace(/\/+$/, '') : v;
    };
    const portOf = async (type: string, dflt: number) => {
      const v = await read(type);
      if (!v) return dflt;
      if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw invalid(`Cluster config ${type}: '${v}' is not a port (1-65535)`, { [type]: 'not a port' });
      return Number(v);
    };
    return {
      confPath: await pathOf(SPHINX_CONFIG_ROWS.confPath, SPHINX_DEFAULTS.confPath),
      dataDir: await pathOf(SPHINX_CONFIG_ROWS.dataDir, SPHINX_DEFAULTS.dataDir),
      port: await portOf(SPHINX_CONFIG_ROWS.port, SPHINX_DEFAULTS.port),
      sphinxqlPort: await portOf(SPHINX_CONFIG_ROWS.sphinxqlPort, SPHINX_DEFAULTS.sphinxqlPort),
    };
  }

  /** The Search servers (type 3) that are switched on, by name. */
  async searchNodes(): Promise<ServerView[]> {
    return (await this.srv.getList({ type: SEARCH_SERVER_TYPE })).filter((s) => s.status === 1);
  }

  /** The whole config text (passwords in it: never answered, never logged). */
  async render(settings: SphinxSettings): Promise<{ text: string; sources: number }> {
    const conns = await this.hosts.openConnections();
    const rows = await this.sources.find({ order: { Id: 'ASC' } });
    const list: ConfSource[] = rows.map((s) => {
      const conn = conns.get(s.connect);
      if (!conn) throw invalid(`Source '${s.source}': its connection '${s.connect}' does not exist (choose another one on the source)`, { connect: `source '${s.source}'` });
      return { source: s.source, index: s.index, attribute: s.attribute, query: s.query ?? '', conn };
    });
    try {
      return { text: renderSphinxConf(list, settings), sources: list.length };
    } catch (err) {
      if (err instanceof SphinxConfError) throw invalid(`The search config cannot be written: ${err.message}`);
      throw err;
    }
  }

  @Rpc('sphinx_control.createSphinxConf', {
    role: Role.admin, write: true, input: CreateSphinxConfArgs,
    summary: `{}: renders sphinx.conf (a source + index per source, indexer, searchd on sphinx_port 9312 and sphinxql_port 9306:mysql41) and writes it (mode 0600, checked by indextool) to every Search server (type 3, on) at cluster config sphinx_conf_path (default /etc/sphinxsearch/sphinx.conf), index files under sphinx_data_dir (default /var/lib/sphinxsearch/data); answers {path, data_dir, sources, nodes: [{Id, node, ok, message}]} (no Search server: nodes [] and message '${SEARCH_MSG.noSearchServers}'), the file itself never`,
  })
  async createSphinxConf(_a: z.output<typeof CreateSphinxConfArgs> = {}, ctx?: Pick<RpcContext, 'actor' | 'signal'>): Promise<SphinxConfResult> {
    const settings = await this.settings();
    const nodes = await this.searchNodes();
    const { text, sources } = await this.render(settings);
    // No Search server: nothing to write, which is not a failure of the call (a scheduled rebuild on a
    // cluster without search nodes runs ok and says so).
    if (!nodes.length) return { path: settings.confPath, data_dir: settings.dataDir, sources, nodes: [], message: SEARCH_MSG.noSearchServers };
    if (ctx?.signal) setMaxListeners(0, ctx.signal);
    const command = writeConfCommand(settings.confPath, settings.dataDir);
    const results = await this.ssh.fanOut(nodes, async (n): Promise<SphinxConfNodeResult> => {
      const target = await this.srv.sshTarget(n.Id);
      const r = await this.ssh.exec(target, command, { actor: ctx?.actor ?? null, signal: ctx?.signal, stdin: text });
      const m = new RegExp(`^${CONF_WRITTEN} (\\d) (\\d+)$`, 'm').exec(r.stdout);
      if (r.code === 0 && m) {
        const checked = m[1] === '1' ? 'checked by indextool' : 'not checked: indextool not found';
        return { Id: n.Id, node: n.name, ok: true, message: `Written ${settings.confPath} (${m[2]} bytes, ${checked})` };
      }
      const err = (r.stderr || r.stdout).trim().slice(0, 1000);
      if (r.code === CONF_REFUSED_EXIT) return { Id: n.Id, node: n.name, ok: false, message: `indextool refused the config, the file in place was kept: ${err}` };
      return { Id: n.Id, node: n.name, ok: false, message: `Not written (exit ${r.code ?? r.signal}): ${err}` };
    }, { signal: ctx?.signal });
    auditTarget('search config', settings.confPath);
    const out = results.map((r): SphinxConfNodeResult => (r.ok ? r.value : { Id: r.item.Id, node: r.item.name, ok: false, message: r.error }));
    for (const r of out) if (!r.ok) this.log.warn(`createSphinxConf ${r.node}: ${r.message}`);
    return { path: settings.confPath, data_dir: settings.dataDir, sources, nodes: out };
  }

  /** `indexer --rotate <index>` on each node; one result per node, never throws for a node's failure. */
  async rotateOn(nodes: ServerView[], settings: SphinxSettings, index: string, opts: { actor: Actor; signal?: AbortSignal }): Promise<RotateNodeResult[]> {
    if (opts.signal) setMaxListeners(0, opts.signal);
    const command = rotateCommand(settings.confPath, index);
    const results = await this.ssh.fanOut(nodes, async (n): Promise<RotateNodeResult> => {
      const target = await this.srv.sshTarget(n.Id);
      const r = await this.ssh.exec(target, command, { actor: opts.actor, signal: opts.signal, commandTimeoutMs: SPHINX_ROTATE_TIMEOUT_S * 1000 });
      const o = parseIndexerOutput(r.code, r.stdout);
      const message = o.ok ? `total ${o.docs ?? 0} docs, ${o.bytes ?? 0} bytes` : o.error!;
      return { Id: n.Id, node: n.name, ok: o.ok, code: r.code, docs: o.docs, bytes: o.bytes, message };
    }, { signal: opts.signal });
    return results.map((r) => (r.ok ? r.value : { Id: r.item.Id, node: r.item.name, ok: false, code: null, docs: null, bytes: null, message: r.error }));
  }

  /**
   * `SHOW INDEX <name> STATUS` over SphinxQL on each node (one connection per node, every index on
   * it): mysql2's query(), never execute() (searchd has no prepared statements). Answers per index the
   * figures of each node, or its error.
   */
  async live(nodes: ServerView[], settings: SphinxSettings, indexes: string[]): Promise<Map<string, SourceLive[]>> {
    const out = new Map<string, SourceLive[]>(indexes.map((i) => [i, []]));
    const perNode = await Promise.all(nodes.map((n) => this.liveOn(n, settings.sphinxqlPort, indexes)));
    perNode.forEach((figures) => figures.forEach((f, i) => out.get(indexes[i])!.push(f)));
    return out;
  }

  private async liveOn(n: ServerView, port: number, indexes: string[]): Promise<SourceLive[]> {
    const host = addressOf(n);
    const fail = (message: string) => indexes.map((): SourceLive => ({ Id: n.Id, node: n.name, ok: false, message }));
    if (!host) return fail('the server has no address');
    let conn: Awaited<ReturnType<typeof createConnection>> | null = null;
    try {
      conn = await createConnection({ host, port, connectTimeout: SPHINXQL_TIMEOUT_MS });
    } catch (err) {
      return fail(`SphinxQL ${host}:${port} not reached: ${(err as Error).message}`);
    }
    const res: SourceLive[] = [];
    try {
      for (const index of indexes) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(index)) { res.push({ Id: n.Id, node: n.name, ok: false, message: 'not a Sphinx name' }); continue; }
        try {
          const [rows] = await conn.query({ sql: `SHOW INDEX ${index} STATUS`, timeout: SPHINXQL_TIMEOUT_MS });
          const v: Record<string, string> = {};
          for (const r of rows as Array<{ Variable_name: string; Value: string }>) v[r.Variable_name] = r.Value;
          const num = (k: string) => (v[k] === undefined ? undefined : Number(v[k]));
          res.push({ Id: n.Id, node: n.name, ok: true, indexed_documents: num('indexed_documents'), indexed_bytes: num('indexed_bytes'), ram_bytes: num('ram_bytes'), disk_bytes: num('disk_bytes') });
        } catch (err) {
          const e = err as { message: string; fatal?: boolean };
          res.push({ Id: n.Id, node: n.name, ok: false, message: /requires an existing index/.test(e.message) ? 'not served by searchd (never rotated, or not in its config)' : e.message });
          if (e.fatal) { for (let k = res.length; k < indexes.length; k++) res.push({ Id: n.Id, node: n.name, ok: false, message: e.message }); break; }
        }
      }
    } finally {
      conn.destroy();
    }
    return res;
  }
}

