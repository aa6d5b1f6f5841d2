import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AiAccountView } from '../../../contracts/ant.js';
import { SECRET_MASK } from '../../../contracts/secrets.js';
import { SecretBox } from '../../../core/crypto/secret-box.js';
import { notFound } from '../../../core/errors.js';
import { AntAiAccountEntity } from '../ant.entities.js';

/**
 * AI accounts (001 §3: Id, login, pass, last_error, ttl_start, connects; docs/ant.md "AI accounts"):
 * stored with the password sealed and listed masked. No ant step uses them yet, so "preload" only
 * re-reads the list: what it would check against the AI service is not specified (docs/ant.md).
 */
@Injectable()
export class AiAccountsService {
  constructor(@InjectDataSource() private readonly db: DataSource, private readonly box: SecretBox) {}

  private get repo() {
    return this.db.getRepository(AntAiAccountEntity);
  }

  private view(a: AntAiAccountEntity): AiAccountView {
    return { Id: a.Id, login: a.login, pass: a.pass_sealed ? SECRET_MASK : '', last_error: a.last_error, ttl_start: a.ttl_start, connects: a.connects };
  }

  async list(): Promise<AiAccountView[]> {
    return (await this.repo.find({ order: { Id: 'ASC' } })).map((a) => this.view(a));
  }

  async add(login: string, pass: string): Promise<AiAccountView> {
    const found = await this.repo.findOneBy({ login });
    if (found) await this.repo.update({ Id: found.Id }, { pass_sealed: this.box.sealOptional(pass) });
    else await this.repo.insert({ login, pass_sealed: this.box.sealOptional(pass), ttl_start: 0, connects: 0 });
    return this.view((await this.repo.findOneBy({ login }))!);
  }

  async resetError(Id: number): Promise<AiAccountView> {
    const a = await this.repo.findOneBy({ Id });
    if (!a) throw notFound('AI account not found');
    await this.repo.update({ Id }, { last_error: null, ttl_start: 0 });
    return this.view({ ...a, last_error: null, ttl_start: 0 });
  }
}
