import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A comment a site reported (migration 1806100000000): one row per (site, the site's comment id). */
@Entity('comments')
@Unique('UQ_comments_site_ext', ['site_id', 'ext_id'])
@Index('IDX_comments_status', ['status', 'reported_at'])
export class CommentEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) site_id: number;
  @Column({ type: 'varchar', length: 64 }) ext_id: string;
  @Column({ type: 'integer', nullable: true }) Id_book: number | null;
  @Column({ type: 'varchar', length: 500, default: '' }) url: string;
  @Column({ type: 'varchar', length: 100, default: '' }) author: string;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'varchar', length: 200, default: '' }) reason: string;
  @Column({ type: 'datetime', precision: 3 }) written_at: Date;
  @Column({ type: 'datetime', precision: 3 }) reported_at: Date;
  @Column({ type: 'integer', default: 1 }) reports: number;
  @Column({ type: 'integer', default: 0 }) status: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) decided_at: Date | null;
  @Column({ type: 'integer', nullable: true }) decided_by: number | null;
}

/** A moderation decision the site reads back (GET /api/comments/decisions?after=Id), kept COMMENT_DECISION_KEEP_DAYS. */
@Entity('comment_decisions')
@Index('IDX_comment_decisions_site', ['site_id', 'Id'])
@Index('IDX_comment_decisions_at', ['at'])
export class CommentDecisionEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) site_id: number;
  @Column({ type: 'varchar', length: 64 }) ext_id: string;
  @Column({ type: 'varchar', length: 16 }) decision: string;
  @Column({ type: 'datetime', precision: 3 }) at: Date;
}
