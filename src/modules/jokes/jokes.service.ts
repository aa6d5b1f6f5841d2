import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { JOKE_CATS_PAGE, JOKE_EDITABLE, JOKE_MSG, JokeListQuery, JokeUpdateArgs, type JokeCatRow, type JokeCatView } from '../../contracts/jokes.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { cleanHtml } from '../../core/content/sanitize.js';
import { invalid, notFound } from '../../core/errors.js';
import { JokeCatEntity } from './jokes.entities.js';

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export const jokeView = (r: JokeCatEntity): JokeCatView => ({
  cid: r.cid, title: r.title, meta_title: r.meta_title, meta_h1: r.meta_h1, meta_description: str(r.meta_description), cat_body: str(r.cat_body),
});

/**
 * Joke categories (001 §2 "/content/cat_jokes", §7 /jokes/cat/*): role 10 and stronger. Rows come
 * from the network through content.import; the editor changes them. cat_body is stored through
 * cleanHtml, whatever the client sent.
 */
@Injectable()
export class JokesService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** {list: [{cid, title, meta_title, meta_h1, body_length}], count, page, limit}, by cid, 15 per page. */
  async list(a: z.output<typeof JokeListQuery>): Promise<{ list: JokeCatRow[]; count?: number; page: number; limit: number }> {
    const limit = a.limit ?? JOKE_CATS_PAGE;
    const page = a.page ?? 1;
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT cid, title, meta_title, meta_h1, ${this.db.options.type === 'better-sqlite3' ? 'LENGTH' : 'CHAR_LENGTH'}(COALESCE(cat_body, '')) AS body_length FROM joke_cats ORDER BY cid LIMIT ? OFFSET ?`,
      [limit, (page - 1) * limit],
    );
    const list = rows.map((r) => ({ cid: num(r.cid), title: str(r.title), meta_title: str(r.meta_title), meta_h1: str(r.meta_h1), body_length: num(r.body_length) }));
    if (a.getCount === 0) return { list, page, limit };
    const [{ n }] = await this.db.query('SELECT COUNT(*) AS n FROM joke_cats');
    return { list, count: num(n), page, limit };
  }

  async get(cid: number): Promise<JokeCatView> {
    const row = await this.db.getRepository(JokeCatEntity).findOneBy({ cid });
    if (!row) throw notFound(JOKE_MSG.notFound);
    return jokeView(row);
  }

  /** Changes the fields given (cat_body sanitised); answers {cid, message: 'Update success', cat} with what was stored. */
  async update(cid: number, a: z.output<typeof JokeUpdateArgs>): Promise<{ cid: number; message: string; cat: JokeCatView }> {
    if (a.cid !== undefined && a.cid !== cid) throw invalid(JOKE_MSG.cidMismatch, { cid: JOKE_MSG.cidMismatch });
    const repo = this.db.getRepository(JokeCatEntity);
    const cur = await repo.findOneBy({ cid });
    if (!cur) throw notFound(JOKE_MSG.notFound);
    auditTarget('joke category', cur.title, cid);
    const patch: Partial<JokeCatEntity> = {};
    for (const f of JOKE_EDITABLE) if (a[f] !== undefined) (patch as Record<string, unknown>)[f] = f === 'cat_body' ? cleanHtml(a[f]) : a[f];
    if (Object.keys(patch).length) await repo.update({ cid }, patch);
    return { cid, message: JOKE_MSG.updateOk, cat: await this.get(cid) };
  }
}
