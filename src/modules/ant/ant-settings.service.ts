import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { formatOnlyStep, parseOnlyStep, type AntWorkerStatus, type UsedProxyStatus } from '../../contracts/ant.js';
import { AntSettingEntity } from './ant.entities.js';

/**
 * The hub's settings, in the database so every console instance reads the same (docs/ant.md
 * "Settings"): the worker switch (hand-out on/off, with the time it was set), only-step, proxy usage.
 */
@Injectable()
export class AntSettingsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(AntSettingEntity);
  }

  private async read(name: string): Promise<AntSettingEntity | null> {
    return this.repo.findOneBy({ name });
  }

  private async write(name: string, value: string): Promise<number> {
    const time = Date.now();
    const r = await this.repo.update({ name }, { value, time });
    if (!r.affected) {
      try {
        await this.repo.insert({ name, value, time });
      } catch {
        await this.repo.update({ name }, { value, time });
      }
    }
    return time;
  }

  /**
   * What a hand-out needs (the worker switch, only-step, proxy usage) in one plain query: every ant's
   * every request for a task reads it, so it costs one round trip, not three ORM lookups.
   */
  async handOut(): Promise<{ worker: boolean; onlyStep: number[]; usedProxy: UsedProxyStatus }> {
    const rows = (await this.db.query("SELECT name, value FROM ant_settings WHERE name IN ('worker', 'only_step', 'used_proxy')")) as Array<{ name: string; value: string | null }>;
    const v = new Map(rows.map((r) => [r.name, r.value]));
    const n = Number(v.get('used_proxy') ?? 0);
    return { worker: v.get('worker') === 'ok', onlyStep: parseOnlyStep(v.get('only_step')), usedProxy: (n === 1 || n === 2 ? n : 0) as UsedProxyStatus };
  }

  async worker(instance: string): Promise<AntWorkerStatus> {
    const s = await this.read('worker');
    return { status: s?.value === 'ok' ? 'ok' : 'stop', time: s?.time ?? 0, instance };
  }

  async setWorker(on: boolean, instance: string): Promise<AntWorkerStatus> {
    const time = await this.write('worker', on ? 'ok' : 'stop');
    return { status: on ? 'ok' : 'stop', time, instance };
  }

  async onlyStep(): Promise<string> {
    return formatOnlyStep(parseOnlyStep((await this.read('only_step'))?.value));
  }

  async setOnlyStep(text: string): Promise<string> {
    const v = formatOnlyStep(parseOnlyStep(text));
    await this.write('only_step', v);
    return v;
  }

  async usedProxy(): Promise<UsedProxyStatus> {
    const n = Number((await this.read('used_proxy'))?.value ?? 0);
    return (n === 1 || n === 2 ? n : 0) as UsedProxyStatus;
  }

  async setUsedProxy(status: UsedProxyStatus): Promise<UsedProxyStatus> {
    await this.write('used_proxy', String(status));
    return status;
  }
}
