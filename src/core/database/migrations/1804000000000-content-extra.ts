import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Content II, Q&A, joke categories and sonnik (issue 19, 001 §3 Ask, Joke category, Sonnik category
 * and Post; docs/content.md "Q&A, joke categories, sonnik"). Joke categories, sonnik categories and
 * posts come from the network through content.import, which keeps their given ids (the keys still
 * auto-increment). Answers belong to their question (deleted with it by the service, in one
 * transaction); posts to their sonnik category by Id_cat.
 */
export class ContentExtra1804000000000 implements MigrationInterface {
  name = 'ContentExtra1804000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(new Table({
      name: 'asks',
      columns: [col.id(), col.text('question', { isNullable: false })],
    }));
    await q.createTable(new Table({
      name: 'ask_answers',
      columns: [col.id(), col.int('Id_ask'), col.text('answer', { isNullable: false })],
      indices: [{ name: 'IDX_ask_answers_ask', columnNames: ['Id_ask', 'Id'] }],
    }));
    await q.createTable(new Table({
      name: 'joke_cats',
      columns: [
        col.id('cid'),
        col.str('title', 255, { default: "''" }),
        col.str('meta_title', 255, { default: "''" }),
        col.str('meta_h1', 255, { default: "''" }),
        col.text('meta_description'),
        col.text('cat_body'),
      ],
    }));
    await q.createTable(new Table({
      name: 'sonnik_cats',
      columns: [
        col.id(),
        col.str('letter', 8, { default: "''" }),
        col.str('uri', 190, { default: "''" }),
        col.str('name', 255, { default: "''" }),
        col.text('body'),
      ],
      indices: [{ name: 'IDX_sonnik_cats_letter', columnNames: ['letter', 'Id'] }],
    }));
    await q.createTable(new Table({
      name: 'sonnik_posts',
      columns: [
        col.id(),
        col.int('Id_cat', { default: 0 }),
        col.int('views', { default: 0 }),
        col.str('title', 255, { default: "''" }),
        col.str('title_ai', 255, { default: "''" }),
      ],
      indices: [{ name: 'IDX_sonnik_posts_cat', columnNames: ['Id_cat', 'Id'] }],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['sonnik_posts', 'sonnik_cats', 'joke_cats', 'ask_answers', 'asks']) await q.dropTable(t);
  }
}
