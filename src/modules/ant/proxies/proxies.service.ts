import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ANT_PROXY_ASIDE_MS, ANT_PROXY_MAX_FAILS, type AntProxy, type ProxyAddRow, type ProxyAddResult, type ProxyView, type UsedProxyStatus } from '../../../contracts/ant.js';
import { SECRET_MASK } from '../../../contracts/secrets.js';
import { SecretBox } from '../../../core/crypto/secret-box.js';
import { AntProxyEntity } from '../ant.entities.js';

/**
 * Proxies of the ants (001 §3 Proxy; docs/ant.md "Proxies"): imported in batches (same ip:port
 * updates), passwords sealed and answered masked, handed to the ants with their tasks ('Used': least
 * recently used first; 'Used unique': one ant holds a proxy until it disconnects), set aside after
 * ANT_PROXY_MAX_FAILS failures in a row for ANT_PROXY_ASIDE_MS with the last error, then retried.
 */
@Injectable()
export class ProxiesService {
  constructor(@InjectDataSource() private readonly db: DataSource, private readonly box: SecretBox) {}

  private get repo() {
    return this.db.getRepository(AntProxyEntity);
  }

  async add(rows: ProxyAddRow[]): Promise<ProxyAddResult> {
    // The last line of a batch wins for an address given twice.
    const byIp = new Map<string, ProxyAddRow>();
    for (const r of rows) byIp.set(r.ip.trim(), r);
    let inserted = 0;
    let updated = 0;
    for (const [ip, r] of byIp) {
      const values = { login: r.login, pass_sealed: this.box.sealOptional(r.pass), fail_count: 0, aside_until: 0, last_error: null };
      const found = await this.repo.findOneBy({ ip });
      if (found) {
        await this.repo.update({ Id: found.Id }, values);
        updated++;
      } else {
        try {
          await this.repo.insert({ ip, ...values });
          inserted++;
        } catch {
          await this.repo.update({ ip }, values); // inserted meanwhile by another call
          updated++;
        }
      }
    }
    return { message: `Insert ok! inserted ${inserted}, updated ${updated}`, inserted, updated, total: byIp.size };
  }

  async list(): Promise<ProxyView[]> {
    const rows = await this.repo.find({ order: { Id: 'ASC' } });
    return rows.map((p) => ({
      Id: p.Id, ip: p.ip, login: p.login, pass: p.pass_sealed ? SECRET_MASK : '',
      fail_count: p.fail_count, aside_until: p.aside_until, last_error: p.last_error,
    }));
  }

  /**
   * A proxy for connection `owner` under `mode` (null with mode 0, or when none is usable). Mode 2
   * keeps the one it holds, else takes a free one with a conditional UPDATE (one holder at a time).
   */
  async pick(owner: string, mode: UsedProxyStatus): Promise<AntProxy | null> {
    if (mode === 0) return null;
    const now = Date.now();
    if (mode === 2) {
      const held = await this.repo.findOneBy({ held_by: owner });
      if (held && held.aside_until <= now) return this.open(held);
      if (held) await this.repo.update({ Id: held.Id }, { held_by: '' });
      const free = await this.repo.createQueryBuilder('p').where("p.held_by = ''").andWhere('p.aside_until <= :now', { now }).orderBy('p.used_at', 'ASC').addOrderBy('p.Id', 'ASC').limit(8).getMany();
      for (const p of free) {
        const r = await this.repo.createQueryBuilder().update(AntProxyEntity).set({ held_by: owner, used_at: now }).where("Id = :Id AND held_by = ''", { Id: p.Id }).execute();
        if ((r.affected ?? 0) === 1) return this.open(p);
      }
      return null;
    }
    const p = await this.repo.createQueryBuilder('p').where('p.aside_until <= :now', { now }).orderBy('p.used_at', 'ASC').addOrderBy('p.Id', 'ASC').getOne();
    if (!p) return null;
    await this.repo.update({ Id: p.Id }, { used_at: now });
    return this.open(p);
  }

  private open(p: AntProxyEntity): AntProxy {
    return { Id: p.Id, ip: p.ip, login: p.login, pass: p.pass_sealed ? this.box.open(p.pass_sealed) : '' };
  }

  /** A task failed because of proxy `Id`: counted; set aside at ANT_PROXY_MAX_FAILS in a row. */
  async failed(Id: number, error: string): Promise<void> {
    const p = await this.repo.findOneBy({ Id });
    if (!p) return;
    const fails = p.fail_count + 1;
    const aside = fails >= ANT_PROXY_MAX_FAILS;
    await this.repo.update({ Id }, { fail_count: aside ? 0 : fails, last_error: error.slice(0, 1000), ...(aside ? { aside_until: Date.now() + ANT_PROXY_ASIDE_MS, held_by: '' } : {}) });
  }

  /** A task through proxy `Id` succeeded: its failure streak ends. */
  async worked(Id: number): Promise<void> {
    await this.repo.createQueryBuilder().update(AntProxyEntity).set({ fail_count: 0 }).where('Id = :Id AND fail_count > 0', { Id }).execute();
  }

  /** Connection `owner` is gone: its unique proxy is free again. */
  async releaseOwner(owner: string): Promise<void> {
    await this.repo.update({ held_by: owner }, { held_by: '' });
  }
}
