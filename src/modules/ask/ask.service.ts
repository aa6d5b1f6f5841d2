import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource } from 'typeorm';
import type { z } from 'zod';
import { ASK_MSG, ASK_PAGE, AskGetQuery, AskListQuery, AskSetArgs, type AskRow, type AskView } from '../../contracts/ask.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { invalid, notFound } from '../../core/errors.js';
import { AskAnswerEntity, AskEntity } from './ask.entities.js';

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/**
 * Q&A (001 §2 "/content/ask", §7 /ask/list, /ask/get/{Id}, /ask/set). Reads for every signed-in user
 * (the menu gives Ask no role), writes for role 10 and stronger (docs/content.md "Q&A").
 */
@Injectable()
export class AskService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** {list: [{Id, question, answers}], count}, newest first, 20 per page. */
  async list(a: z.output<typeof AskListQuery>): Promise<{ list: AskRow[]; count?: number; page: number; limit: number }> {
    const limit = a.limit ?? ASK_PAGE;
    const page = a.page ?? 1;
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT a.Id, a.question, (SELECT COUNT(*) FROM ask_answers x WHERE x.Id_ask = a.Id) AS answers
       FROM asks a ORDER BY a.Id DESC LIMIT ? OFFSET ?`, [limit, (page - 1) * limit],
    );
    const list = rows.map((r) => ({ Id: num(r.Id), question: String(r.question ?? ''), answers: num(r.answers) }));
    if (a.getCount === 0) return { list, page, limit };
    const [{ n }] = await this.db.query('SELECT COUNT(*) AS n FROM asks');
    return { list, count: num(n), page, limit };
  }

  /** {Id, question} and with joinAnswer the answers in order [{Id, answer}]; 404 'Ask not found'. */
  async get(Id: number, a: z.output<typeof AskGetQuery>): Promise<AskView> {
    const ask = await this.db.getRepository(AskEntity).findOneBy({ Id });
    if (!ask) throw notFound(ASK_MSG.notFound);
    const out: AskView = { Id: ask.Id, question: ask.question };
    if (a.joinAnswer) {
      const answers = await this.db.getRepository(AskAnswerEntity).find({ where: { Id_ask: Id }, order: { Id: 'ASC' } });
      out.answer = answers.map((x) => ({ Id: x.Id, answer: x.answer }));
    }
    return out;
  }

  /**
   * One transaction: the question saved (created without Id), answers with Id changed, new ones added,
   * those marked `del` or named in del_list deleted (deleting wins). An answer id not of this question
   * is refused (422) and nothing is written. Answers {Id, message}.
   */
  async set(a: z.output<typeof AskSetArgs>): Promise<{ Id: number; message: string }> {
    return this.db.transaction(async (m) => {
      const asks = m.getRepository(AskEntity);
      const answers = m.getRepository(AskAnswerEntity);
      let Id: number;
      if (a.ask.Id) {
        const cur = await asks.findOneBy({ Id: a.ask.Id });
        if (!cur) throw notFound(ASK_MSG.notFound);
        Id = cur.Id;
        await asks.update({ Id }, { question: a.ask.question });
      } else {
        Id = (await asks.save(asks.create({ question: a.ask.question }))).Id;
      }
      auditTarget('ask', a.ask.question.slice(0, 80), Id);
      const own = new Set((await answers.find({ select: { Id: true }, where: { Id_ask: Id } })).map((x) => x.Id));
      const list = a.answer ?? [];
      const del = new Set([...(a.del_list ?? []), ...list.filter((x) => x.del && x.Id).map((x) => x.Id!)]);
      const fields: Record<string, string> = {};
      list.forEach((x, i) => { if (x.Id && !own.has(x.Id)) fields[`answer.${i}.Id`] = ASK_MSG.foreignAnswer(x.Id); });
      (a.del_list ?? []).forEach((d, i) => { if (!own.has(d)) fields[`del_list.${i}`] = ASK_MSG.foreignAnswer(d); });
      if (Object.keys(fields).length) throw invalid(Object.values(fields)[0], fields);
      for (const x of list) {
        if (x.del) continue;
        if (x.Id) { if (!del.has(x.Id)) await answers.update({ Id: x.Id }, { answer: x.answer }); }
        else await answers.insert({ Id_ask: Id, answer: x.answer });
      }
      if (del.size) await answers.delete({ Id: In([...del]), Id_ask: Id });
      return { Id, message: ASK_MSG.saveOk };
    });
  }
}
