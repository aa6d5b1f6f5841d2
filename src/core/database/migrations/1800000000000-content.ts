import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Content I (issue 13, 001 §3, docs/content.md "Tables"): books, their pages, book categories and the
 * book-category relation, authors, the category/book stat rows, and the block records (which range,
 * which mail body, who, when, which ids) with one row per blocked item so that a book's page can
 * answer "why is this book blocked".
 *
 * Ids of books, categories and authors come from the network (import upserts by id), so the primary
 * keys accept explicit values; categories and authors still auto-increment for rows made here.
 *
 * Full-text search on book titles: MariaDB gets a FULLTEXT index (FT_books_title, declared on the
 * entity too). On SQLite the same-named index is a plain b-tree (TypeORM does not compare the fulltext
 * flag there) and an external-content FTS5 table `books_fts` (rowid = Id_book) is kept in sync by the
 * three triggers below (indexing the title with ё written е, as the service writes its queries); a later migration that rebuilds `books` on SQLite must recreate them.
 */
export class Content1800000000000 implements MigrationInterface {
  name = 'Content1800000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'books',
      columns: [
        col.int('Id_book', { isPrimary: true }),
        col.str('book_title', 255, { default: "''" }),
        col.text('book_description'),
        col.str('cover', 255, { default: "''" }),
        col.int('book_owner', { default: 0 }),
        col.int('show_procent', { default: 0 }),
        col.int('views', { default: 0 }),
        col.int('book_pages', { default: 0 }),
        col.int('book_cat', { default: 0 }),
        col.str('git', 190, { default: "''" }),
        col.int('git_public', { default: 0 }),
        col.int('public', { default: 0 }),
        col.time('time_update'),
      ],
      indices: [
        { name: 'FT_books_title', columnNames: ['book_title'], isFulltext: true },
        { name: 'IDX_books_owner', columnNames: ['book_owner', 'Id_book'] },
        { name: 'IDX_books_cat', columnNames: ['book_cat', 'Id_book'] },
        { name: 'IDX_books_public', columnNames: ['public', 'Id_book'] },
        { name: 'IDX_books_git', columnNames: ['git'] },
        { name: 'IDX_books_views', columnNames: ['views', 'Id_book'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'pages',
      columns: [
        col.int('bid', { isPrimary: true }),
        col.int('num', { isPrimary: true }),
        col.text('body'),
      ],
    }));
    await q.createTable(new Table({
      name: 'book_cats',
      columns: [
        col.id('Id_cat'),
        col.str('cat_title', 255, { default: "''" }),
        col.str('cat_short_title', 255, { default: "''" }),
        col.text('cat_description'),
        col.text('cat_body'),
        col.str('cat_h1', 255, { default: "''" }),
        col.str('meta_title', 255, { default: "''" }),
        col.str('meta_h1', 255, { default: "''" }),
        col.text('meta_description'),
        col.int('count_books', { default: 0 }),
        col.int('cat_views', { default: 0 }),
        col.int('rating_day', { default: 0 }),
        col.time('time_update'),
        col.time('cron_time'),
        col.text('SI'),
        col.text('codeShow'),
        col.text('codeClick'),
      ],
      indices: [{ name: 'IDX_book_cats_title', columnNames: ['cat_title'] }],
    }));
    await q.createTable(new Table({
      name: 'book_cat_relay',
      columns: [
        col.int('Id_cat', { isPrimary: true }),
        col.int('Id_book', { isPrimary: true }),
        col.int('pos', { default: 0 }),
      ],
      indices: [{ name: 'IDX_book_cat_relay_book', columnNames: ['Id_book'] }],
    }));
    await q.createTable(new Table({
      name: 'authors',
      columns: [
        col.id('Id_author'),
        col.str('a_fio', 190, { default: "''" }),
        col.int('opublic', { default: 0 }),
        col.text('new_relay'),
        col.text('relay_marge'),
        col.text('not_relay'),
        col.str('agit', 190, { default: "''" }),
        col.int('agit_public', { default: 0 }),
      ],
      indices: [
        { name: 'IDX_authors_fio', columnNames: ['a_fio'] },
        { name: 'IDX_authors_agit', columnNames: ['agit'] },
      ],
    }));
    // Stat rows of 001 §3 (time, type, res2, res3, Id, items, item, item2, time_update): `Id` is the
    // category (or book) the row is about, `time` an epoch hour or day per `type`; `sid` is the row key.
    await q.createTable(new Table({
      name: 'content_stats',
      columns: [
        col.id('sid'),
        col.int('time'),
        col.int('type'),
        col.int('res2', { default: 0 }),
        col.int('res3', { default: 0 }),
        col.int('Id'),
        col.text('items'),
        col.int('item', { default: 0 }),
        col.int('item2', { default: 0 }),
        col.time('time_update'),
      ],
      indices: [{ name: 'IDX_content_stats_id_type_time', columnNames: ['Id', 'type', 'time'] }],
    }));
    await q.createTable(new Table({
      name: 'content_blocks',
      columns: [
        col.id(),
        col.str('kind', 16),
        col.str('variant', 16),
        col.int('block_range'),
        col.text('mail_body'),
        col.text('ids'),
        col.int('affected', { default: 0 }),
        col.int('uid', { default: 0 }),
        col.str('user_name', 190, { default: "''" }),
        col.time('created_at', { isNullable: false }),
      ],
      indices: [{ name: 'IDX_content_blocks_created', columnNames: ['created_at'] }],
    }));
    await q.createTable(new Table({
      name: 'content_block_items',
      columns: [
        col.int('block_id', { isPrimary: true }),
        col.str('item_type', 16, { isPrimary: true }),
        col.int('item_id', { isPrimary: true }),
      ],
      indices: [{ name: 'IDX_content_block_items_item', columnNames: ['item_type', 'item_id'] }],
    }));
    if (q.connection.options.type === 'better-sqlite3') {
      await q.query(`CREATE VIRTUAL TABLE books_fts USING fts5(book_title, content='books', content_rowid='Id_book', tokenize='unicode61 remove_diacritics 2')`);
      await q.query(`CREATE TRIGGER books_fts_ai AFTER INSERT ON books BEGIN INSERT INTO books_fts(rowid, book_title) VALUES (new.Id_book, replace(replace(new.book_title, 'ё', 'е'), 'Ё', 'Е')); END`);
      await q.query(`CREATE TRIGGER books_fts_ad AFTER DELETE ON books BEGIN INSERT INTO books_fts(books_fts, rowid, book_title) VALUES ('delete', old.Id_book, replace(replace(old.book_title, 'ё', 'е'), 'Ё', 'Е')); END`);
      await q.query(`CREATE TRIGGER books_fts_au AFTER UPDATE OF book_title ON books BEGIN INSERT INTO books_fts(books_fts, rowid, book_title) VALUES ('delete', old.Id_book, replace(replace(old.book_title, 'ё', 'е'), 'Ё', 'Е')); INSERT INTO books_fts(rowid, book_title) VALUES (new.Id_book, replace(replace(new.book_title, 'ё', 'е'), 'Ё', 'Е')); END`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'better-sqlite3') {
      for (const t of ['books_fts_ai', 'books_fts_ad', 'books_fts_au']) await q.query(`DROP TRIGGER IF EXISTS ${t}`);
      await q.query('DROP TABLE IF EXISTS books_fts');
    }
    for (const t of ['content_block_items', 'content_blocks', 'content_stats', 'authors', 'book_cat_relay', 'book_cats', 'pages', 'books']) await q.dropTable(t);
  }
}
