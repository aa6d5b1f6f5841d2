import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { Paged } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import {
  SONNIK_MSG, SONNIK_PAGE, SONNIK_POSTS_PAGE, SonnikGetCatArgs, SonnikGetPostsArgs, SonnikUpdateCatArgs,
  type SonnikCatRow, type SonnikCatView, type SonnikLetter, type SonnikPostView,
} from '../../contracts/sonnik.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { cleanHtml } from '../../core/content/sanitize.js';
import { notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SonnikCatEntity } from './sonnik.entities.js';

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const catView = (r: SonnikCatEntity): SonnikCatView => ({ Id: r.Id, letter: r.letter, uri: r.uri, name: r.name, body: str(r.body) });

/**
 * Sonnik, the dream book (001 §2 "Sonnik", §7 sonnik.getCat, sonnik.getPosts, sonnik.updateCat): role
 * 10 and stronger (001 §6). Categories and posts come from the network through content.import; the
 * editor changes a category's letter, uri, name and body (stored through cleanHtml).
 */
@Injectable()
export class SonnikService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get charLength() { return this.db.options.type === 'better-sqlite3' ? 'LENGTH' : 'CHAR_LENGTH'; }

  @Rpc('sonnik.getCat', {
    role: Role.content, input: SonnikGetCatArgs,
    summary: `{Id}: one category {Id, letter, uri, name, body} ('${SONNIK_MSG.notFound}'); without Id the list {p_?, limit? (${SONNIK_PAGE}), letter?}: {list: [{Id, letter, uri, name, body_length, posts}], count, page, limit, letters: [{letter, cats}]}`,
  })
  async getCat(a: z.output<typeof SonnikGetCatArgs> = {}): Promise<SonnikCatView | (Paged<SonnikCatRow> & { letters: SonnikLetter[] })> {
    if (a.Id) {
      const row = await this.db.getRepository(SonnikCatEntity).findOneBy({ Id: a.Id });
      if (!row) throw notFound(SONNIK_MSG.notFound);
      return catView(row);
    }
    const limit = a.limit ?? SONNIK_PAGE;
    const page = a.p_ ?? 1;
    const w = a.letter !== undefined ? 'WHERE c.letter = ?' : '';
    const params = a.letter !== undefined ? [a.letter] : [];
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM sonnik_cats c ${w}`, params);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT c.Id, c.letter, c.uri, c.name, ${this.charLength}(COALESCE(c.body, '')) AS body_length,
         (SELECT COUNT(*) FROM sonnik_posts p WHERE p.Id_cat = c.Id) AS posts
       FROM sonnik_cats c ${w} ORDER BY c.Id LIMIT ? OFFSET ?`, [...params, limit, (page - 1) * limit],
    );
    const letters: Record<string, unknown>[] = await this.db.query('SELECT letter, COUNT(*) AS n FROM sonnik_cats GROUP BY letter ORDER BY letter');
    return {
      list: rows.map((r) => ({ Id: num(r.Id), letter: str(r.letter), uri: str(r.uri), name: str(r.name), body_length: num(r.body_length), posts: num(r.posts) })),
      count: num(n), page, limit,
      letters: letters.map((r) => ({ letter: str(r.letter), cats: num(r.n) })),
    };
  }

  @Rpc('sonnik.getPosts', {
    role: Role.content, input: SonnikGetPostsArgs,
    summary: `{Id_cat, p_?}: the category's posts, ${SONNIK_POSTS_PAGE} per page by Id: {list: [{Id, Id_cat, views, title, title_ai}], count, page, limit}`,
  })
  async getPosts(a: z.output<typeof SonnikGetPostsArgs>): Promise<Paged<SonnikPostView>> {
    const page = a.p_ ?? 1;
    const [{ n }] = await this.db.query('SELECT COUNT(*) AS n FROM sonnik_posts WHERE Id_cat = ?', [a.Id_cat]);
    const rows: Record<string, unknown>[] = await this.db.query(
      'SELECT Id, Id_cat, views, title, title_ai FROM sonnik_posts WHERE Id_cat = ? ORDER BY Id LIMIT ? OFFSET ?',
      [a.Id_cat, SONNIK_POSTS_PAGE, (page - 1) * SONNIK_POSTS_PAGE],
    );
    const list = rows.map((r) => ({ Id: num(r.Id), Id_cat: num(r.Id_cat), views: num(r.views), title: str(r.title), title_ai: str(r.title_ai) }));
    return { list, count: num(n), page, limit: SONNIK_POSTS_PAGE };
  }

  @Rpc('sonnik.updateCat', {
    role: Role.content, write: true, input: SonnikUpdateCatArgs,
    summary: `{Id, letter?, uri?, name?, body?}: changes the fields given (body sanitised: no script, event handler or javascript: link survives); answers {Id, message: '${SONNIK_MSG.commitOk}', cat}`,
  })
  async updateCat(a: z.output<typeof SonnikUpdateCatArgs>): Promise<{ Id: number; message: string; cat: SonnikCatView }> {
    const repo = this.db.getRepository(SonnikCatEntity);
    const cur = await repo.findOneBy({ Id: a.Id });
    if (!cur) throw notFound(SONNIK_MSG.notFound);
    auditTarget('sonnik category', cur.name, cur.Id);
    const patch: Partial<SonnikCatEntity> = {};
    if (a.letter !== undefined) patch.letter = a.letter;
    if (a.uri !== undefined) patch.uri = a.uri;
    if (a.name !== undefined) patch.name = a.name;
    if (a.body !== undefined) patch.body = cleanHtml(a.body);
    if (Object.keys(patch).length) await repo.update({ Id: a.Id }, patch);
    return { Id: a.Id, message: SONNIK_MSG.commitOk, cat: catView((await repo.findOneBy({ Id: a.Id }))!) };
  }
}
