import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import { Role } from '../../contracts/roles.js';
import {
  maskedMysqlUrl, parseMysqlUrl, parseSourceConnect, SEARCH_MSG, SearchHostIdArgs, SearchHostInsertArgs, SearchHostUpdateArgs,
  type MysqlUrl, type SearchHostRow, type SearchHostView,
} from '../../contracts/search-nodes.js';
import { SECRET_MASK } from '../../contracts/secrets.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { SecretBox } from '../../core/crypto/secret-box.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SearchHostEntity, SearchSourceEntity, type StoredConnect } from './search-nodes.entities.js';

type ConnectInput = z.output<typeof SearchHostInsertArgs>['connect'];

const storedOf = (h: SearchHostEntity): StoredConnect[] => {
  if (!h.connect) return [];
  try {
    const v = JSON.parse(h.connect) as StoredConnect[];
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};
const view = (h: SearchHostEntity): SearchHostView => ({ Id: h.Id, name: h.name, connect: storedOf(h).map((c) => ({ name: c.name, query: c.query })) });

/**
 * Search hosts (001 §2 /search, /search/add_host, /search/edit_host/{Id}; §3 Search host; §5; §7
 * hosts.*): named sets of database connections the sources read from. Reads for every signed-in user
 * (001 §6: the /search item has no role), passwords masked; writes for admins. The password of each
 * connection URL is sealed (SecretBox) and the URL is stored and answered with `***` in its place;
 * a `***` saved back keeps the stored password of the connection of the same name, as long as the
 * host and port did not change ("type it again for the new address": a stored password only goes
 * where it was meant to go).
 */
@Injectable()
export class SearchHostsService {
  constructor(
    @InjectRepository(SearchHostEntity) private readonly hosts: Repository<SearchHostEntity>,
    @InjectRepository(SearchSourceEntity) private readonly sources: Repository<SearchSourceEntity>,
    private readonly box: SecretBox,
  ) {}

  private async entity(Id: number): Promise<SearchHostEntity> {
    const h = await this.hosts.findOneBy({ Id });
    if (!h) throw notFound(SEARCH_MSG.hostNotFound);
    auditTarget('search host', h.name, h.Id);
    return h;
  }

  @Rpc('hosts.get', { role: Role.user, summary: 'Search hosts by name: [{Id, name, connections, connect: [{name, query}]}], each query with its password masked (mysql://user:***@host:port/db)' })
  async list(): Promise<SearchHostRow[]> {
    const rows = await this.hosts.find({ order: { name: 'ASC', Id: 'ASC' } });
    return rows.map((h) => {
      const v = view(h);
      return { ...v, connections: v.connect.length };
    });
  }

  @Rpc('hosts.getById', { role: Role.user, input: SearchHostIdArgs, summary: `{Id}: one search host {Id, name, connect: [{name, query}]} (passwords masked); 404 '${SEARCH_MSG.hostNotFound}'` })
  async getById(a: z.output<typeof SearchHostIdArgs>): Promise<SearchHostView> {
    return view(await this.entity(a.Id));
  }

  @Rpc('hosts.insert', {
    role: Role.admin, write: true, input: SearchHostInsertArgs,
    summary: `{name, connect: [{name, query: 'mysql://user:password@host:port/db'}]}: a new search host (each password sealed); answers {Id, message: '${SEARCH_MSG.insertOk}'}`,
  })
  async insert(a: z.output<typeof SearchHostInsertArgs>): Promise<{ Id: number; message: string }> {
    const connect = this.resolve(a.connect, []);
    const saved = await this.hosts.save(this.hosts.create({ name: a.name, connect: JSON.stringify(connect) }));
    auditTarget('search host', saved.name, saved.Id);
    return { Id: saved.Id, message: SEARCH_MSG.insertOk };
  }

  @Rpc('hosts.update', {
    role: Role.admin, write: true, input: SearchHostUpdateArgs,
    summary: "{Id, name?, connect?}: changes what is given; a query whose password is *** keeps the stored one (same connection name, same host and port); a connection a source uses cannot be dropped; answers 'ok'",
  })
  async update(a: z.output<typeof SearchHostUpdateArgs>): Promise<'ok'> {
    const h = await this.entity(a.Id);
    const patch: Partial<SearchHostEntity> = {};
    if (a.name !== undefined) patch.name = a.name;
    if (a.connect !== undefined) {
      const old = storedOf(h);
      const next = this.resolve(a.connect, old);
      const kept = new Set(next.map((c) => c.name));
      const used = (await this.sources.find({ order: { source: 'ASC' } })).filter((s) => {
        const c = parseSourceConnect(s.connect);
        return c && c.hostId === h.Id && !kept.has(c.name);
      });
      if (used.length) {
        const msg = `Connect: ${used.map((s) => `'${parseSourceConnect(s.connect)!.name}' is used by source '${s.source}'`).join('; ')}`;
        throw invalid(msg, { connect: msg });
      }
      patch.connect = JSON.stringify(next);
    }
    if (Object.keys(patch).length) await this.hosts.update({ Id: h.Id }, patch);
    return 'ok';
  }

  /** The stored form of the connections given: masked URLs, passwords sealed; `***` keeps a stored one. */
  private resolve(list: ConnectInput, old: StoredConnect[]): StoredConnect[] {
    return list.map((c, i) => {
      const u = parseMysqlUrl(c.query) as MysqlUrl; // the schema checked it
      const field = `connect.${i}.query`;
      let pass: string | null;
      if (u.password === SECRET_MASK) {
        const was = old.find((o) => o.name === c.name);
        const wasUrl = was ? parseMysqlUrl(was.query) : null;
        if (!was || !was.pass || !wasUrl || 'error' in wasUrl) {
          const msg = `Connect query: the password shows ${SECRET_MASK} but connection '${c.name}' has none stored: type it`;
          throw invalid(msg, { [field]: msg });
        }
        if (wasUrl.host.toLowerCase() !== u.host.toLowerCase() || wasUrl.port !== u.port) {
          const msg = `Connect query: the stored password of '${c.name}' is only sent to ${wasUrl.host}:${wasUrl.port}: type it again for the new address`;
          throw invalid(msg, { [field]: msg });
        }
        pass = was.pass;
      } else pass = u.password === null ? null : this.box.seal(u.password);
      return { name: c.name, query: maskedMysqlUrl(u, pass !== null), pass };
    });
  }

  /** Whether a host has a connection of that name (source.insert/update check `connect` with it). */
  async hasConnection(hostId: number, name: string): Promise<boolean> {
    const h = await this.hosts.findOneBy({ Id: hostId });
    return !!h && storedOf(h).some((c) => c.name === name);
  }

  /**
   * Every host's connections with their passwords opened, keyed `{hostId}-{name}`, for the config
   * file. A password that cannot be opened (SECRET_KEY changed) is a 500 naming the host.
   */
  async openConnections(): Promise<Map<string, MysqlUrl>> {
    const out = new Map<string, MysqlUrl>();
    for (const h of await this.hosts.find()) {
      for (const c of storedOf(h)) {
        const u = parseMysqlUrl(c.query);
        if ('error' in u) throw new AppError(500, `Search host '${h.name}': stored connection '${c.name}' ${u.error}`, 'error');
        let password: string | null = null;
        if (c.pass) {
          try { password = this.box.open(c.pass); } catch { throw new AppError(500, `The stored password of connection '${c.name}' of search host '${h.name}' cannot be decrypted (was SECRET_KEY changed?)`, 'error'); }
        }
        out.set(`${h.Id}-${c.name}`, { ...u, password });
      }
    }
    return out;
  }
}
