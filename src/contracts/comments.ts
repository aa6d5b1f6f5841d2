/**
 * /comments (001 §2 menu, admin; the screen is not described: docs/content.md "Comments"): a moderation
 * queue of comments the network's sites report through the input stream's ingestion (batch key
 * `comments`), with approve / hide / delete; the sites read the decisions back by their site token.
 */
import { z } from 'zod';
import { id, int, INT_MAX, isHttpUrl, text } from './fields.js';

/** Comments per page (the console's list size, 001 §9 has none for comments). */
export const COMMENTS_PAGE = 20;
/** Reported comments in one ingestion batch at most. */
export const COMMENT_BATCH_MAX = 500;
/** Batch key of reported comments in POST /api/input_stream/ingest. */
export const COMMENT_BATCH_KEY = 'comments';
/** Decisions one GET /api/comments/decisions answers at most. */
export const COMMENT_DECISIONS_MAX = 500;
/** Days the sites can read a decision back (then pruned by the input stream's retention job). */
export const COMMENT_DECISION_KEEP_DAYS = 30;

/** 0 waiting in the queue, 1 approved (stays on the site), 2 hidden (the site hides it). Deleted comments leave the table. */
export const COMMENT_STATUS = { pending: 0, approved: 1, hidden: 2 } as const;
export const COMMENT_STATUS_LABEL: Record<number, string> = { 0: 'Pending', 1: 'Approved', 2: 'Hidden' };
export type CommentAction = 'approve' | 'hide' | 'delete';
/** What a site reads back per comment. */
export type CommentDecision = 'approved' | 'hidden' | 'deleted';

/** One reported comment in a batch (`comments: [...]`). */
export const CommentReport = z.object({
  /** The site's own id of the comment (a comment reported again updates the same row). */
  id: text('id', 64, { min: 1 }),
  /** The page it is shown on. */
  url: text('url', 500).refine((v) => v === '' || isHttpUrl(v), 'url must be an http:// or https:// URL').optional(),
  Id_book: id('Id_book').optional(),
  author: text('author', 100).optional(),
  text: text('text', 5000, { min: 1, multiline: true }),
  /** Unix seconds the comment was written. */
  time: int(0, INT_MAX, 'time'),
  /** Why it was reported ('spam', 'reported by 3 visitors'). */
  reason: text('reason', 200).optional(),
});
export type CommentReport = z.output<typeof CommentReport>;

export interface CommentView {
  Id: number;
  site_id: number;
  site: string;
  ext_id: string;
  url: string;
  Id_book: number | null;
  author: string;
  text: string;
  reason: string;
  written_at: string;
  reported_at: string;
  reports: number;
  status: number;
  decided_at: string | null;
  decided_by: number | null;
}

/** comments.getList: the queue (status 0) by default, newest report first. */
export const CommentListArgs = z.object({
  p_: int(1, INT_MAX, 'p_').optional(),
  status: int(0, 2, 'status').optional(),
});

/** comments.moderate: one action on up to 100 comments. */
export const CommentModerateArgs = z.object({
  ids: z.array(id('Id'), { error: 'ids must be a list of comment ids' }).min(1, 'ids is required').max(100, 'ids: at most 100 comments'),
  action: z.enum(['approve', 'hide', 'delete'], { error: 'action must be one of approve, hide, delete' }),
});

/** GET /comments/decisions (site token): the decisions after a cursor. */
export const CommentDecisionsQuery = z.object({ after: int(0, INT_MAX, 'after').optional() });

export const COMMENT_MSG = { approve: 'Comment approved', hide: 'Comment hidden', delete: 'Comment deleted' } as const;
