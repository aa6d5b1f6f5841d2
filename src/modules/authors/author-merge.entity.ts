import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** One merge of authors (docs/authors.md "Merge and undo"); migration 1802000000000. */
@Entity('author_merges')
@Index('IDX_author_merges_kept', ['kept_id'])
@Index('IDX_author_merges_created', ['created_at'])
export class AuthorMergeEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) kept_id: number;
  /** The merged ids, comma separated. */
  @Column({ type: 'text' }) merged_ids: string;
  /** JSON {new_relay, relay_marge}: the kept author's relays as they were. */
  @Column({ type: 'text' }) kept_before: string;
  @Column({ type: 'integer', default: 0 }) books_count: number;
  @Column({ type: 'integer', default: 0 }) uid: number;
  @Column({ type: 'varchar', length: 190, default: '' }) user_name: string;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
  @Column({ type: 'datetime', precision: 3, nullable: true }) undone_at: Date | null;
  @Column({ type: 'integer', nullable: true }) undone_uid: number | null;
}

/** A merged author's row as it was (JSON), to put back on undo. */
@Entity('author_merge_authors')
export class AuthorMergeAuthorEntity {
  @PrimaryColumn({ type: 'integer' }) merge_id: number;
  @PrimaryColumn({ type: 'integer' }) Id_author: number;
  @Column({ type: 'text' }) snapshot: string;
}

/** A book moved by a merge, with the owner it had. */
@Entity('author_merge_books')
export class AuthorMergeBookEntity {
  @PrimaryColumn({ type: 'integer' }) merge_id: number;
  @PrimaryColumn({ type: 'integer' }) Id_book: number;
  @Column({ type: 'integer' }) prev_owner: number;
}

export const AUTHOR_MERGE_ENTITIES = [AuthorMergeEntity, AuthorMergeAuthorEntity, AuthorMergeBookEntity];
