import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { In, type DataSource, type Repository } from 'typeorm';
import type { z } from 'zod';
import type { ConfigsChangedEvent } from '../../contracts/events.js';
import { MSG } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import {
  ConfigInsertBatch, ConfigListArgs, ConfigRemoveBatch, ConfigUpdateBatch, DOMAIN_CONFIG_TYPE,
  type ClusterConfigView, type DomainView,
} from '../../contracts/srv.js';
import { notFound } from '../../core/errors.js';
import { RealtimeService } from '../../core/realtime/realtime.service.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { ClusterConfigEntity } from './cluster-config.entity.js';

const view = (r: ClusterConfigEntity): ClusterConfigView => ({ Id: r.Id, type: r.type, value: r.value });
const clean = (type: string, value: string) => (type === DOMAIN_CONFIG_TYPE ? value.trim().toLowerCase() : value);

/**
 * Cluster configs (000 §2 /srv/configs_global, §3 Cluster config, §4 config rows) and the domain
 * list (000 §3 Domain): domains are the config rows of type 'domain', one domain per row. Admin only.
 */
@Injectable()
export class CfgConfigsService {
  constructor(
    @InjectRepository(ClusterConfigEntity) private readonly configs: Repository<ClusterConfigEntity>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly realtime: RealtimeService,
  ) {}

  /** Every admin's open configs page learns of it (issue 7: operators see each other's changes live). */
  private changed(action: ConfigsChangedEvent['action'], count: number) {
    if (count) this.realtime.emit('cfg.configs_changed', { action, count }, Role.admin);
  }

  @Rpc('cfg.getConfigs', { role: Role.admin, input: ConfigListArgs, summary: '{type?}: cluster configs [{Id, type, value}] by type, then Id' })
  async getConfigs(a: z.output<typeof ConfigListArgs> = {}): Promise<ClusterConfigView[]> {
    const rows = await this.configs.find({ where: a.type ? { type: a.type } : {}, order: { type: 'ASC', Id: 'ASC' } });
    return rows.map(view);
  }

  /** The value of the first config row of a type (e.g. cluster_host), for other areas. */
  async firstValue(type: string): Promise<string | null> {
    return (await this.configs.findOne({ where: { type }, order: { Id: 'ASC' } }))?.value ?? null;
  }

  @Rpc('cfg.getDomains', { role: Role.admin, summary: "Domains [{domain}], sorted, from the cluster config rows of type 'domain'" })
  async getDomains(): Promise<DomainView[]> {
    const rows = await this.configs.find({ where: { type: DOMAIN_CONFIG_TYPE } });
    return [...new Set(rows.map((r) => r.value.trim().toLowerCase()).filter(Boolean))].sort().map((domain) => ({ domain }));
  }

  @Rpc('cfg.insertConfigsBatch', { role: Role.admin, write: true, input: ConfigInsertBatch, summary: "[{type, value}] (or {list}): inserts rows; answers {message: 'Insert ok!', count, list: rows with their new Id}" })
  async insertBatch(a: z.output<typeof ConfigInsertBatch>) {
    const list = await this.db.transaction(async (m) => {
      const repo = m.getRepository(ClusterConfigEntity);
      const out: ClusterConfigEntity[] = [];
      for (const r of a.list) out.push(await repo.save(repo.create({ type: r.type, value: clean(r.type, r.value) })));
      return out;
    });
    this.changed('insert', list.length);
    return { message: MSG.insertOk, count: list.length, list: list.map(view) };
  }

  @Rpc('cfg.updateConfigsBatch', { role: Role.admin, write: true, input: ConfigUpdateBatch, summary: "[{Id, type, value}] (or {list}): updates rows, all or none (unknown Id: 404); answers {message: 'Update ok!', count}" })
  async updateBatch(a: z.output<typeof ConfigUpdateBatch>) {
    await this.db.transaction(async (m) => {
      const repo = m.getRepository(ClusterConfigEntity);
      const ids = [...new Set(a.list.map((r) => r.Id))];
      const found = new Set((await repo.find({ select: { Id: true }, where: { Id: In(ids) } })).map((r) => r.Id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length) throw notFound(`Config rows not found: ${missing.join(', ')}`);
      for (const r of a.list) await repo.update({ Id: r.Id }, { type: r.type, value: clean(r.type, r.value) });
    });
    this.changed('update', a.list.length);
    return { message: MSG.updateOk, count: a.list.length };
  }

  @Rpc('cfg.removeConfigs', { role: Role.admin, write: true, input: ConfigRemoveBatch, summary: "[Id] or [{Id}] (or {list}): removes rows; answers {message: 'Delete ok!', count} (count = rows that existed)" })
  async removeBatch(a: z.output<typeof ConfigRemoveBatch>) {
    const ids = [...new Set(a.list)];
    const r = await this.configs.delete({ Id: In(ids) });
    const count = r.affected ?? ids.length;
    this.changed('remove', count);
    return { message: MSG.deleteOk, count };
  }
}
