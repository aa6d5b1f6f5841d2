import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Author merge history (issue 13, docs/authors.md "Merge and undo"): one row per merge (kept author,
 * merged ids, the kept author's relays before, who, when, and once undone who and when), the merged
 * authors' rows as they were (one JSON row each), and the books moved with their previous owner (one
 * row per book, so a prolific author's merge is no single huge value).
 */
export class AuthorMerges1802000000000 implements MigrationInterface {
  name = 'AuthorMerges1802000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'author_merges',
      columns: [
        col.id(),
        col.int('kept_id'),
        col.text('merged_ids', { isNullable: false }),
        col.text('kept_before', { isNullable: false }),
        col.int('books_count', { default: 0 }),
        col.int('uid', { default: 0 }),
        col.str('user_name', 190, { default: "''" }),
        col.time('created_at', { isNullable: false }),
        col.time('undone_at'),
        col.int('undone_uid', { isNullable: true }),
      ],
      indices: [
        { name: 'IDX_author_merges_kept', columnNames: ['kept_id'] },
        { name: 'IDX_author_merges_created', columnNames: ['created_at'] },
      ],
    }));
    await q.createTable(new Table({
      name: 'author_merge_authors',
      columns: [col.int('merge_id', { isPrimary: true }), col.int('Id_author', { isPrimary: true }), col.text('snapshot', { isNullable: false })],
    }));
    await q.createTable(new Table({
      name: 'author_merge_books',
      columns: [col.int('merge_id', { isPrimary: true }), col.int('Id_book', { isPrimary: true }), col.int('prev_owner')],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['author_merge_books', 'author_merge_authors', 'author_merges']) await q.dropTable(t);
  }
}
