import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Content tables of 001 §3 (migration 1800000000000-content.ts, docs/content.md "Tables"). Field names
 * are the spec's. Other areas use ContentService, never these repositories.
 */

/** Book of 001 §3. `public`: 0 = public, otherwise blocked (the block range). */
@Entity('books')
@Index('FT_books_title', ['book_title'], { fulltext: true })
@Index('IDX_books_owner', ['book_owner', 'Id_book'])
@Index('IDX_books_cat', ['book_cat', 'Id_book'])
@Index('IDX_books_public', ['public', 'Id_book'])
@Index('IDX_books_views', ['views', 'Id_book'])
export class BookEntity {
  @PrimaryColumn({ type: 'integer' }) Id_book: number;
  @Column({ type: 'varchar', length: 255, default: '' }) book_title: string;
  @Column({ type: 'text', nullable: true }) book_description: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) cover: string;
  @Column({ type: 'integer', default: 0 }) book_owner: number;
  @Column({ type: 'integer', default: 0 }) show_procent: number;
  @Column({ type: 'integer', default: 0 }) views: number;
  @Column({ type: 'integer', default: 0 }) book_pages: number;
  @Column({ type: 'integer', default: 0 }) book_cat: number;
  @Index('IDX_books_git')
  @Column({ type: 'varchar', length: 190, default: '' }) git: string;
  @Column({ type: 'integer', default: 0 }) git_public: number;
  @Column({ type: 'integer', default: 0 }) public: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

/** Page of 001 §3: page `num` of book `bid`. */
@Entity('pages')
export class PageEntity {
  @PrimaryColumn({ type: 'integer' }) bid: number;
  @PrimaryColumn({ type: 'integer' }) num: number;
  @Column({ type: 'text', nullable: true }) body: string | null;
}

/** Book category of 001 §3. `SI` holds JSON {items, time_update}; codeShow/codeClick the site codes. */
@Entity('book_cats')
@Index('IDX_book_cats_weight', ['weight', 'Id_cat'])
export class BookCatEntity {
  @PrimaryGeneratedColumn() Id_cat: number;
  @Index('IDX_book_cats_title')
  @Column({ type: 'varchar', length: 255, default: '' }) cat_title: string;
  @Column({ type: 'varchar', length: 255, default: '' }) cat_short_title: string;
  @Column({ type: 'text', nullable: true }) cat_description: string | null;
  @Column({ type: 'text', nullable: true }) cat_body: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) cat_h1: string;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_title: string;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_h1: string;
  @Column({ type: 'text', nullable: true }) meta_description: string | null;
  @Column({ type: 'integer', default: 0 }) count_books: number;
  @Column({ type: 'integer', default: 0 }) cat_views: number;
  @Column({ type: 'integer', default: 0 }) rating_day: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) cron_time: Date | null;
  @Column({ type: 'text', nullable: true }) SI: string | null;
  @Column({ type: 'text', nullable: true }) codeShow: string | null;
  @Column({ type: 'text', nullable: true }) codeClick: string | null;
  /** The /content/cat_weight_sort order (migration 1806000000000): lower first, then Id_cat. */
  @Column({ type: 'integer', default: 0 }) weight: number;
}

/** A book placed in a category, at position `pos`. */
@Entity('book_cat_relay')
export class BookCatRelayEntity {
  @PrimaryColumn({ type: 'integer' }) Id_cat: number;
  @Index('IDX_book_cat_relay_book')
  @PrimaryColumn({ type: 'integer' }) Id_book: number;
  @Column({ type: 'integer', default: 0 }) pos: number;
}

/** Author of 001 §3. new_relay, relay_marge, not_relay: comma lists of author ids. */
@Entity('authors')
export class AuthorEntity {
  @PrimaryGeneratedColumn() Id_author: number;
  @Index('IDX_authors_fio')
  @Column({ type: 'varchar', length: 190, default: '' }) a_fio: string;
  @Column({ type: 'integer', default: 0 }) opublic: number;
  @Column({ type: 'text', nullable: true }) new_relay: string | null;
  @Column({ type: 'text', nullable: true }) relay_marge: string | null;
  @Column({ type: 'text', nullable: true }) not_relay: string | null;
  @Index('IDX_authors_agit')
  @Column({ type: 'varchar', length: 190, default: '' }) agit: string;
  @Column({ type: 'integer', default: 0 }) agit_public: number;
}

/** Stat row of 001 §3: `Id` the category or book, `time` an epoch hour (type 1) or day (type 2). */
@Entity('content_stats')
@Index('IDX_content_stats_id_type_time', ['Id', 'type', 'time'])
export class ContentStatEntity {
  @PrimaryGeneratedColumn() sid: number;
  @Column({ type: 'integer' }) time: number;
  @Column({ type: 'integer' }) type: number;
  @Column({ type: 'integer', default: 0 }) res2: number;
  @Column({ type: 'integer', default: 0 }) res3: number;
  @Column({ type: 'integer' }) Id: number;
  @Column({ type: 'text', nullable: true }) items: string | null;
  @Column({ type: 'integer', default: 0 }) item: number;
  @Column({ type: 'integer', default: 0 }) item2: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
}

/** One block action (book.blocked / author.blocked and their _id twins): range, mail body, who, when. */
@Entity('content_blocks')
export class ContentBlockEntity {
  @PrimaryGeneratedColumn() Id: number;
  /** 'book' or 'author'. */
  @Column({ type: 'varchar', length: 16 }) kind: string;
  /** 'block' (/book/block: public, opublic) or 'git' (/book/block_git: git_public, agit_public). */
  @Column({ type: 'varchar', length: 16 }) variant: string;
  @Column({ type: 'integer' }) block_range: number;
  @Column({ type: 'text', nullable: true }) mail_body: string | null;
  /** The numeric ids asked for, comma separated. */
  @Column({ type: 'text', nullable: true }) ids: string | null;
  @Column({ type: 'integer', default: 0 }) affected: number;
  @Column({ type: 'integer', default: 0 }) uid: number;
  @Column({ type: 'varchar', length: 190, default: '' }) user_name: string;
  @Index('IDX_content_blocks_created')
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
}

/** The items of a block action, so a book's or author's blocks are found by id. */
@Entity('content_block_items')
@Index('IDX_content_block_items_item', ['item_type', 'item_id'])
export class ContentBlockItemEntity {
  @PrimaryColumn({ type: 'integer' }) block_id: number;
  @PrimaryColumn({ type: 'varchar', length: 16 }) item_type: string;
  @PrimaryColumn({ type: 'integer' }) item_id: number;
}

export const CONTENT_ENTITIES = [BookEntity, PageEntity, BookCatEntity, BookCatRelayEntity, AuthorEntity, ContentStatEntity, ContentBlockEntity, ContentBlockItemEntity];
