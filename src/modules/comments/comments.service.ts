/**
 * /comments (docs/content.md "Comments"): the moderation queue of comments the sites report. Reports
 * arrive through the input stream's ingestion as the record kind `comments` (ingest-kinds.ts), so a
 * batch sent again counts nothing twice and needs no endpoint of its own; an admin approves, hides or
 * deletes them; each decision is logged for the reporting site, which reads it back by its site token
 * (GET /api/comments/decisions?after=) and applies it on its pages.
 */
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, type DataSource, type EntityManager, type Repository } from 'typeorm';
import type { z } from 'zod';
import {
  COMMENT_BATCH_KEY, COMMENT_BATCH_MAX, COMMENT_DECISION_KEEP_DAYS, COMMENT_DECISIONS_MAX, COMMENT_MSG, COMMENT_STATUS, COMMENTS_PAGE,
  CommentListArgs, CommentModerateArgs, CommentReport, type CommentDecision, type CommentDecisionsQuery, type CommentView,
} from '../../contracts/comments.js';
import type { Paged } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { notFound } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import type { StreamSiteEntity } from '../input-stream/input-stream.entities.js';
import { InputStreamService } from '../input-stream/input-stream.service.js';
import { CommentDecisionEntity, CommentEntity } from './comments.entities.js';

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

@Injectable()
export class CommentsService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(CommentDecisionEntity) private readonly decisions: Repository<CommentDecisionEntity>,
    private readonly stream: InputStreamService,
  ) {}

  onModuleInit(): void {
    this.stream.registerKind({
      key: COMMENT_BATCH_KEY,
      record: CommentReport,
      max: COMMENT_BATCH_MAX,
      apply: (m, site, records) => this.report(m, site, records, Date.now()),
      prune: (now) => this.prune(now),
    });
  }

  /**
   * Stores reported comments (inside the batch's transaction): a new one joins the queue; one reported
   * again counts one more report, and when its text changed it goes back to the queue.
   */
  private async report(m: EntityManager, site: StreamSiteEntity, records: CommentReport[], now: number): Promise<void> {
    const repo = m.getRepository(CommentEntity);
    for (const r of records) {
      const cur = await repo.findOne({ where: { site_id: site.Id, ext_id: r.id } });
      const fields = { url: r.url ?? '', Id_book: r.Id_book ?? null, author: r.author ?? '', body: r.text, reason: r.reason ?? '', written_at: new Date(r.time * 1000) };
      if (!cur) {
        await repo.insert({ site_id: site.Id, ext_id: r.id, ...fields, reported_at: new Date(now), reports: 1, status: COMMENT_STATUS.pending });
        continue;
      }
      const changed = cur.body !== r.text;
      await repo.update({ Id: cur.Id }, {
        ...fields, reported_at: new Date(now), reports: cur.reports + 1,
        ...(changed ? { status: COMMENT_STATUS.pending, decided_at: null, decided_by: null } : {}),
      });
    }
  }

  private async prune(now: number): Promise<number> {
    const r = await this.decisions.delete({ at: LessThan(new Date(now - COMMENT_DECISION_KEEP_DAYS * 86_400_000)) });
    return r.affected ?? 0;
  }

  @Rpc('comments.getList', {
    role: Role.admin, input: CommentListArgs,
    summary: `{p_?, status? (0 pending, default | 1 approved | 2 hidden)}: reported comments, newest report first, ${COMMENTS_PAGE} per page: {list: [{Id, site_id, site, ext_id, url, Id_book, author, text, reason, written_at, reported_at, reports, status, decided_at, decided_by}], count, page, limit}`,
  })
  async getList(a: z.output<typeof CommentListArgs> = {}): Promise<Paged<CommentView>> {
    const page = a.p_ ?? 1;
    const status = a.status ?? COMMENT_STATUS.pending;
    const [{ n }] = await this.db.query('SELECT COUNT(*) AS n FROM comments WHERE status = ?', [status]);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT c.*, s.name AS site FROM comments c LEFT JOIN stream_sites s ON s.Id = c.site_id
       WHERE c.status = ? ORDER BY c.reported_at DESC, c.Id DESC LIMIT ? OFFSET ?`,
      [status, COMMENTS_PAGE, (page - 1) * COMMENTS_PAGE],
    );
    const list = rows.map((r): CommentView => ({
      Id: Number(r.Id), site_id: Number(r.site_id), site: String(r.site ?? ''), ext_id: String(r.ext_id), url: String(r.url ?? ''),
      Id_book: r.Id_book === null || r.Id_book === undefined ? null : Number(r.Id_book), author: String(r.author ?? ''), text: String(r.body ?? ''),
      reason: String(r.reason ?? ''), written_at: iso(r.written_at as string)!, reported_at: iso(r.reported_at as string)!, reports: Number(r.reports),
      status: Number(r.status), decided_at: iso((r.decided_at as string) ?? null), decided_by: r.decided_by === null || r.decided_by === undefined ? null : Number(r.decided_by),
    }));
    return { list, count: Number(n), page, limit: COMMENTS_PAGE };
  }

  @Rpc('comments.moderate', {
    role: Role.admin, write: true, input: CommentModerateArgs,
    summary: "{ids: [Id, ...], action: approve|hide|delete}: approves or hides the comments (they leave the queue), or deletes them (the rows go); each decision is logged for its site to read back; answers {count, message}; 404 when none of the ids exists",
  })
  async moderate(a: z.output<typeof CommentModerateArgs>, ctx?: RpcContext): Promise<{ count: number; message: string }> {
    return this.db.transaction(async (m) => {
      const rows = await m.getRepository(CommentEntity).find({ where: { Id: In(a.ids) } });
      if (!rows.length) throw notFound('Comment not found');
      auditTarget('comment', rows.length === 1 ? `${rows[0].ext_id} (${rows[0].author || 'anonymous'})` : `${rows.length} comments`, rows.length === 1 ? rows[0].Id : undefined);
      const now = new Date();
      const decision: CommentDecision = a.action === 'approve' ? 'approved' : a.action === 'hide' ? 'hidden' : 'deleted';
      const ids = rows.map((r) => r.Id);
      if (a.action === 'delete') await m.getRepository(CommentEntity).delete({ Id: In(ids) });
      else {
        await m.getRepository(CommentEntity).update({ Id: In(ids) }, {
          status: a.action === 'approve' ? COMMENT_STATUS.approved : COMMENT_STATUS.hidden, decided_at: now, decided_by: ctx?.actor.uid ?? null,
        });
      }
      await m.getRepository(CommentDecisionEntity).insert(rows.map((r) => ({ site_id: r.site_id, ext_id: r.ext_id, decision, at: now })));
      return { count: rows.length, message: COMMENT_MSG[a.action] };
    });
  }

  /** The site's read (by its token): its decisions after the cursor `after` (a decision Id), oldest first; `last` is the next cursor. */
  async decisionsFor(site: StreamSiteEntity, q: z.output<typeof CommentDecisionsQuery>): Promise<{ list: { Id: number; id: string; decision: string; at: string }[]; last: number }> {
    const after = q.after ?? 0;
    const rows = await this.decisions.createQueryBuilder('d')
      .where('d.site_id = :site AND d.Id > :after', { site: site.Id, after })
      .orderBy('d.Id', 'ASC').limit(COMMENT_DECISIONS_MAX).getMany();
    return { list: rows.map((r) => ({ Id: r.Id, id: r.ext_id, decision: r.decision, at: r.at.toISOString() })), last: rows.length ? rows[rows.length - 1].Id : after };
  }
}
