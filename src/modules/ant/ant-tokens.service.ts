import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AntCreateTokenResult, AntTokenView } from '../../contracts/ant.js';
import { sha256 } from '../../core/crypto/secret-box.js';
import { notFound } from '../../core/errors.js';
import { AntTokenEntity } from './ant.entities.js';

/** Ant tokens (docs/ant.md "Tokens"): 32 random bytes shown once; only their sha256 is stored. */
@Injectable()
export class AntTokensService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(AntTokenEntity);
  }

  private view(t: AntTokenEntity): AntTokenView {
    return { Id: t.Id, name: t.name, created: t.created, last_used: t.last_used, revoked: !!t.revoked };
  }

  async create(name: string): Promise<AntCreateTokenResult> {
    const token = `ant_${randomBytes(32).toString('base64url')}`;
    const r = await this.repo.insert({ name, token_hash: sha256(token), created: Date.now(), last_used: 0, revoked: 0 });
    return { Id: Number(r.identifiers[0].Id), name, token };
  }

  async list(): Promise<AntTokenView[]> {
    return (await this.repo.find({ order: { Id: 'ASC' } })).map((t) => this.view(t));
  }

  async revoke(Id: number): Promise<AntTokenView> {
    const t = await this.repo.findOneBy({ Id });
    if (!t) throw notFound('Ant token not found');
    await this.repo.update({ Id }, { revoked: 1 });
    return this.view({ ...t, revoked: 1 });
  }

  /** The live token of this text, or null (unknown or revoked). */
  async verify(token: unknown): Promise<AntTokenEntity | null> {
    if (typeof token !== 'string' || token.length < 10 || token.length > 200) return null;
    const t = await this.repo.findOneBy({ token_hash: sha256(token) });
    if (!t || t.revoked) return null;
    await this.repo.update({ Id: t.Id }, { last_used: Date.now() });
    return t;
  }
}
