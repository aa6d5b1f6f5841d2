/**
 * content.import, rows naming the same id in one call (issue 18 "Import: never drop a row",
 * docs/content.md "Import"): rows apply in order, the last one for an id wins, and the answer counts
 * each row once (inserted when its id is new to the table and to the call, updated otherwise). One
 * test per entity: books, pages, categories, authors.
 */
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
const db = () => (process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite');

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
});
afterAll(async () => { await t?.close(); });

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
const load = (entity: string, rows: unknown[]) => ok('content.import', { entity, rows });

describe(`content.import, one id twice in a call, on ${db()}`, () => {
  test('books: a new id named twice is inserted with the first row and updated by the second; an existing one takes both in order', async () => {
    const r = await load('books', [{ Id_book: 990001, book_title: 'FIRST title' }, { Id_book: 990001, book_title: 'SECOND title', views: 7 }]);
    expect(r).toEqual({ inserted: 1, updated: 1, refused: [] });
    expect(await ok('book.get', { Id_book: 990001 })).toMatchObject({ book_title: 'SECOND title', views: 7 });
    // An existing book, three rows: fields of earlier rows stay unless a later row names them; with a new book between.
    const again = await load('books', [
      { Id_book: 990001, views: 8, public: 3 }, { Id_book: 990002, book_title: 'Other' }, { Id_book: 990001, views: 9, book_title: 'THIRD title' },
    ]);
    expect(again).toEqual({ inserted: 1, updated: 2, refused: [] });
    expect(await ok('book.get', { Id_book: 990001 })).toMatchObject({ book_title: 'THIRD title', views: 9, public: 3 });
    expect(await ok('book.get', { Id_book: 990002 })).toMatchObject({ book_title: 'Other', views: 0 });
  });

  test('pages: the last body for (bid, num) wins, other pages of the book untouched', async () => {
    await load('books', [{ Id_book: 990101, book_title: 'Paged' }]);
    const r = await load('pages', [
      { bid: 990101, num: 1, body: 'first body' }, { bid: 990101, num: 2, body: 'page two' }, { bid: 990101, num: 1, body: 'second body' },
    ]);
    expect(r).toEqual({ inserted: 2, updated: 1, refused: [] });
    expect((await ok('book.getPages', { Id: 990101, num: 1 })).body).toBe('second body');
    expect((await ok('book.getPages', { Id: 990101, num: 2 })).body).toBe('page two');
    const again = await load('pages', [{ bid: 990101, num: 2, body: 'two again' }, { bid: 990101, num: 2, body: 'two last' }]);
    expect(again).toEqual({ inserted: 0, updated: 2, refused: [] });
    expect((await ok('book.getPages', { Id: 990101, num: 2 })).body).toBe('two last');
  });

  test('categories: the second row of a new id is applied, not only counted', async () => {
    const r = await load('categories', [{ Id_cat: 990201, cat_title: 'First cat' }, { Id_cat: 990201, cat_title: 'Second cat', cat_views: 5 }]);
    expect(r).toEqual({ inserted: 1, updated: 1, refused: [] });
    expect(await ok('cat.get', { Id_cat: 990201 })).toMatchObject({ Id_cat: 990201, cat_title: 'Second cat', cat_views: 5 });
  });

  test("authors: a block (opublic: 3) in the row after the author's first row is applied", async () => {
    const r = await load('authors', [{ Id_author: 990301, a_fio: 'Первый Автор' }, { Id_author: 990301, opublic: 3 }]);
    expect(r).toEqual({ inserted: 1, updated: 1, refused: [] });
    const [a] = await ok('author.getAuthors_id', { ids: [990301] });
    expect(a).toMatchObject({ Id_author: 990301, a_fio: 'Первый Автор', opublic: 3 });
    // A refused row in between does not break the order of the good ones.
    const again = await load('authors', [{ Id_author: 990301, opublic: 0 }, { Id_author: 990301, opublic: -1 }, { Id_author: 990301, a_fio: 'Второй Автор' }]);
    expect(again).toMatchObject({ inserted: 0, updated: 2, refused: [{ row: 2 }] });
    const [b] = await ok('author.getAuthors_id', { ids: [990301] });
    expect(b).toMatchObject({ a_fio: 'Второй Автор', opublic: 0 });
  });
});
