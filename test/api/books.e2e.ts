/**
 * Content I, books (issue 13; 001 §2 /book/*, §3 Book/Page/Author, §5, §6, §7 book.*, item.*, /book/set_block):
 * content.import (refused rows, all-or-none, upsert), book.getList/get/update/getPages/updatePage/deleteBook,
 * block by ids and ranges (book/author, block and git variants, records), items with similar offers
 * from the mail body's links, roles 1, 10 and 100.
 */
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
const db = () => (process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite');

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10, 'content-ed')).hash;
  user = (await t.session(100, 'plain-user')).hash;
});
afterAll(async () => { await t?.close(); });

const ok = <T = any>(method: string, args?: unknown, who = admin) => t.ok<T>(who, method, args);

const BOOKS = [
  { Id_book: 1001, book_title: 'Тёмные аллеи', book_owner: 501, book_cat: 7, views: 120, book_pages: 2 },
  { Id_book: 1002, book_title: 'Тёмные аллеи и светлые дни', book_owner: 501, views: 30 },
  { Id_book: 1003, book_title: 'Война и мир', book_owner: 502, views: 900 },
  { Id_book: 1004, book_title: 'Мир без войны', book_owner: 502, views: 5 },
  { Id_book: 1005, book_title: 'Сад камней', book_owner: 503, views: 1 },
  { Id_book: 1006, book_title: 'Garden of stones', book_owner: 503, views: 2, public: 1 },
];

describe(`books on ${db()}`, () => {
  test('content.import: good rows written, bad rows refused with their row number; then upsert counts updates', async () => {
    const r = await ok('content.import', { entity: 'books', rows: [...BOOKS, { Id_book: 'abc', book_title: 'x' }, { book_title: 'no id' }, 'not a row', { Id_book: 1007, show_procent: 300 }] });
    expect(r.inserted).toBe(6);
    expect(r.updated).toBe(0);
    expect(r.refused.map((x: any) => x.row)).toEqual([7, 8, 9, 10]);
    expect(r.refused[0].message).toMatch(/Id_book/);
    expect(r.refused[1].message).toMatch(/Id_book is required/);
    expect(r.refused[3].message).toMatch(/show_procent is at most 100/);
    const again = await ok('content.import', { entity: 'books', rows: [{ Id_book: 1005, views: 11 }, { Id_book: 1008, book_title: 'Новая книга' }] });
    expect(again).toEqual({ inserted: 1, updated: 1, refused: [] });
    expect((await ok('book.get', { Id_book: 1005 })).views).toBe(11);
    expect((await ok('book.get', { Id_book: 1005 })).book_title).toBe('Сад камней');
    const a = await ok('content.import', { entity: 'authors', rows: [{ Id_author: 501, a_fio: 'Бунин Иван Алексеевич' }, { Id_author: 502, a_fio: 'Толстой Л. Н.' }, { Id_author: 503, a_fio: 'Сад Автор' }] });
    expect(a).toEqual({ inserted: 3, updated: 0, refused: [] });
    const c = await ok('content.import', { entity: 'categories', rows: [{ Id_cat: 7, cat_title: 'Классика', count_books: '1' }, { Id_cat: 0 }] });
    expect(c.inserted).toBe(1);
    expect(c.refused).toEqual([{ row: 2, message: expect.stringMatching(/Id_cat must be positive/) }]);
    const p = await ok('content.import', { entity: 'pages', rows: [{ bid: 1001, num: 1, body: 'Первая страница' }, { bid: 1001, num: 2, body: 'Вторая' }, { bid: 1001, num: 0, body: 'x' }] });
    expect(p).toMatchObject({ inserted: 2, updated: 0 });
    expect(p.refused[0].row).toBe(3);
  });

  test('content.import all_or_none: one refused row means nothing is written; roles 10 and 100 are refused', async () => {
    const r = await ok('content.import', { entity: 'books', all_or_none: 1, rows: [{ Id_book: 2001, book_title: 'Хорошая' }, { Id_book: -1 }] });
    expect(r).toEqual({ inserted: 0, updated: 0, refused: [{ row: 2, message: expect.any(String) }] });
    expect((await t.rpc(admin, 'book.get', { Id_book: 2001 })).env).toMatchObject({ status: 'empty', message: 'Book not found' });
    expect(await ok('content.import', { entity: 'books', all_or_none: true, rows: [{ Id_book: 2001, book_title: 'Хорошая' }] })).toEqual({ inserted: 1, updated: 0, refused: [] });
    for (const who of [content, user]) expect((await t.rpc(who, 'content.import', { entity: 'books', rows: [] })).status).toBe(403);
    expect((await t.rpc(admin, 'content.import', { entity: 'songs', rows: [] })).env).toMatchObject({ status: 'rules', message: expect.stringMatching(/entity must be one of books, pages, categories, authors/) });
  });

  test('book.getList: newest first, 20 per page on p_, Id_book filter, public filter, full-text title search (ё/е, prefix)', async () => {
    const all = await ok('book.getList', {}, content);
    expect(all.count).toBe(8);
    expect(all.list.map((b: any) => b.Id_book)).toEqual([2001, 1008, 1006, 1005, 1004, 1003, 1002, 1001]);
    expect(all.list[7]).toEqual({ Id_book: 1001, book_title: 'Тёмные аллеи', book_pages: 2, views: 120, public: 0 });
    const pages = [1, 2, 3].map((p_) => ok('book.getList', { p_, limit: 3 }, content));
    expect((await Promise.all(pages)).map((r) => r.list.map((b: any) => b.Id_book))).toEqual([[2001, 1008, 1006], [1005, 1004, 1003], [1002, 1001]]);
    expect((await ok('book.getList', { p_: 4, limit: 3 })).list).toEqual([]);
    expect((await ok('book.getList', { p_: '2', limit: '3', sort: 'id_asc' })).list.map((b: any) => b.Id_book)).toEqual([1004, 1005, 1006]);
    expect((await ok('book.getList', { Id_book: 1004 })).list.map((b: any) => b.Id_book)).toEqual([1004, 1003, 1002, 1001]);
    expect((await ok('book.getList', { public: 1 })).list.map((b: any) => b.Id_book)).toEqual([1006]);
    expect((await ok('book.getList', { book_owner: 502 })).count).toBe(2);
    expect((await ok('book.getList', { book_title: 'темные' })).list.map((b: any) => b.Id_book)).toEqual([1002, 1001]);
    expect((await ok('book.getList', { book_title: 'аллеи свет' })).list.map((b: any) => b.Id_book)).toEqual([1002]);
    expect((await ok('book.getList', { book_title: 'войн' })).list.map((b: any) => b.Id_book)).toEqual([1004, 1003]);
    expect((await ok('book.getList', { book_title: 'нет такого' })).count).toBe(0);
    expect((await ok('book.getList', { sort: 'views_desc', limit: 2 })).list.map((b: any) => b.Id_book)).toEqual([1003, 1001]);
    expect((await t.rpc(user, 'book.getList', {})).status).toBe(403);
    expect((await t.rpc(content, 'book.getList', { limit: 1000 })).env).toMatchObject({ status: 'rules', message: expect.stringMatching(/limit is at most 100/) });
    expect((await t.rpc(content, 'book.getList', { p_: 'x' })).env).toMatchObject({ status: 'rules', code: 422 });
  });

  test('book.getList: a common title word pages in id order from both ends (MariaDB: ordered scan first, FULLTEXT behind it)', async () => {
    // 3001-3060: 3 of 4 titles carry the word (case, prefix, punctuation); 'Прокалолун' holds it inside a word only.
    const kinds = (n: number) => [`Калолун ${n}`, `калолуны и море ${n}`, `Море «КАЛОЛУН», том ${n}`, n % 8 === 3 ? `Прокалолун ${n}` : `Книга ${n}`][n % 4];
    const rows = Array.from({ length: 60 }, (_, i) => ({ Id_book: 3001 + i, book_title: kinds(3001 + i), public: i % 5 === 0 ? 2 : 0 }));
    expect((await ok('content.import', { entity: 'books', rows })).inserted).toBe(60);
    const want = rows.filter((r) => (r.Id_book % 4) !== 3).map((r) => r.Id_book).sort((x, y) => y - x);
    expect(want.length).toBe(45);
    const r1 = await ok('book.getList', { book_title: 'калолун', p_: 1 });
    expect(r1.count).toBe(45);
    const pages = [];
    for (const p_ of [1, 2, 3]) pages.push((await ok('book.getList', { book_title: 'калолун', p_ })).list.map((b: any) => b.Id_book));
    expect(pages).toEqual([want.slice(0, 20), want.slice(20, 40), want.slice(40)]);
    expect((await ok('book.getList', { book_title: 'калолун', p_: 2, limit: 20, sort: 'id_asc' })).list.map((b: any) => b.Id_book)).toEqual([...want].reverse().slice(20, 40));
    expect((await ok('book.getList', { book_title: 'Калолун море', limit: 5 })).list.map((b: any) => b.Id_book)).toEqual(want.filter((id) => id % 4 === 1 || id % 4 === 2).slice(0, 5));
    const blocked = want.filter((id) => (id - 3001) % 5 === 0);
    expect(await ok('book.getList', { book_title: 'калолун', public: 2, limit: 3, p_: 2 })).toMatchObject({ count: blocked.length, list: blocked.slice(3, 6).map((Id_book) => expect.objectContaining({ Id_book })) });
    expect((await ok('book.getList', { book_title: 'калолун', Id_book: 3010, limit: 100 })).list.map((b: any) => b.Id_book)).toEqual(want.filter((id) => id <= 3010));
    expect((await ok('book.getList', { book_title: 'прокалолун' })).list.map((b: any) => b.Id_book)).toEqual(rows.filter((r) => r.book_title.startsWith('Прокалолун')).map((r) => r.Id_book).reverse());
    // Similar offers of every book in the mail body, none skipped.
    const offers = await ok('item.get', { items: want.slice(0, 12).map((id) => ({ type: 'book', id })) });
    expect(offers.every((i: any) => i.offers.length > 0 && !i.offers_skipped)).toBe(true);
    expect(await ok('content.import', { entity: 'books', rows: rows.map((r) => ({ ...r, book_title: 'x', public: 0 })) })).toMatchObject({ updated: 60 });
  });

  test('book.get and book.getPages: fields of 001 §3, pages one by one, Book not found / Page not found', async () => {
    const b = await ok('book.get', { Id_book: 1001 }, content);
    expect(b).toMatchObject({ Id_book: 1001, book_title: 'Тёмные аллеи', book_owner: 501, book_cat: 7, public: 0, show_procent: 0, book_pages: 2, pages: 2, author: 'Бунин Иван Алексеевич', blocks: [] });
    expect(await ok('book.getPages', { Id: 1001, num: 2 }, content)).toEqual({ bid: 1001, num: 2, body: 'Вторая', pages: 2 });
    expect((await ok('book.getPages', { Id: 1001 }, content)).body).toBe('Первая страница');
    expect((await t.rpc(content, 'book.getPages', { Id: 1001, num: 3 })).env).toMatchObject({ status: 'empty', message: 'Page not found' });
    expect((await t.rpc(content, 'book.getPages', { Id: 999999, num: 1 })).env).toMatchObject({ message: 'Book not found' });
    expect((await t.rpc(content, 'book.get', { Id_book: 999999 })).env).toMatchObject({ code: 404 });
    expect((await t.rpc(user, 'book.get', { Id_book: 1001 })).status).toBe(403);
    expect(await ok('book.getBooks_id', { ids: [1003, 999999, 1001] }, content)).toEqual([
      { Id_book: 1003, book_title: 'Война и мир', book_pages: 0, views: 900, public: 0 },
      { Id_book: 1001, book_title: 'Тёмные аллеи', book_pages: 2, views: 120, public: 0 },
    ]);
  });

  test('book.update: role 10 edits the reduced form; show_procent and book_pages, the page body and delete are refused to it by the server', async () => {
    const r = await ok('book.update', { Id_book: 1004, book_title: 'Мир без войны (2-е изд.)', book_cat: 7 }, content);
    expect(r).toMatchObject({ message: 'Save ok!', book: { Id_book: 1004, book_title: 'Мир без войны (2-е изд.)', book_cat: 7 } });
    for (const field of ['show_procent', 'book_pages']) {
      const refused = await t.rpc(content, 'book.update', { Id_book: 1004, book_title: 'changed', [field]: 5 });
      expect(refused.status).toBe(403);
      expect((refused.env as any).message).toContain(field);
    }
    expect((await ok('book.get', { Id_book: 1004 })).book_title).toBe('Мир без войны (2-е изд.)');
    expect((await ok('book.update', { Id_book: 1004, show_procent: 40, book_pages: 12 })).book).toMatchObject({ show_procent: 40, book_pages: 12 });
    expect((await t.rpc(content, 'book.updatePage', { bid: 1004, num: 1, body: 'x' })).status).toBe(403);
    expect(await ok('book.updatePage', { bid: 1004, num: 1, body: 'Страница <b>1</b>' })).toEqual({ message: 'Save ok!' });
    expect(await ok('book.updatePage', { bid: 1004, num: 1, body: 'Страница 1, правка' })).toEqual({ message: 'Save ok!' });
    expect((await ok('book.getPages', { Id: 1004, num: 1 })).body).toBe('Страница 1, правка');
    expect((await t.rpc(admin, 'book.update', { Id_book: 999999, book_title: 'x' })).env).toMatchObject({ status: 'empty', message: 'Book not found' });
    expect((await t.rpc(user, 'book.update', { Id_book: 1004, book_title: 'x' })).status).toBe(403);
    expect((await t.rpc(content, 'book.deleteBook', { Id_book: 1004 })).status).toBe(403);
    expect(await ok('book.deleteBook', { Id_book: 1004 })).toEqual({ message: 'Book delete success' });
    expect((await t.rpc(admin, 'book.get', { Id_book: 1004 })).env).toMatchObject({ code: 404 });
    expect((await t.rpc(admin, 'book.getPages', { Id: 1004, num: 1 })).env).toMatchObject({ code: 404 });
    expect((await t.rpc(admin, 'book.deleteBook', { Id_book: 1004 })).env).toMatchObject({ code: 404 });
    expect((await ok('book.getList', { book_title: 'войны' })).count).toBe(0);
  });

  test('book.blocked / author.blocked by ids and ranges: non-numeric ids skipped, affectedRows, record with range and mail body on the book', async () => {
    const mail = 'Жалоба: https://books.example/read/1001 и https://books.example/view/1003';
    const r = await ok('book.blocked', { ids: [1001, '1003', 'abc', '', 999999], range: 2, mail_body: mail });
    expect(r).toMatchObject({ affectedRows: 2, skipped: 2 });
    const b = await ok('book.get', { Id_book: 1001 }, content);
    expect(b.public).toBe(2);
    expect(b.blocks).toEqual([expect.objectContaining({ kind: 'book', variant: 'block', block_range: 2, range_label: 'a media regulator', mail_body: mail, affected: 2 })]);
    expect((await ok('book.blocked', { ids: [1001], range: 2 })).affectedRows).toBe(0);
    expect((await ok('book.blocked', { ids: ['x', 'y'], range: 3 })).affectedRows).toBe(0);
    expect((await ok('book.getList', { public: 2 })).list.map((x: any) => x.Id_book)).toEqual([1003, 1001]);
    const au = await ok('author.blocked', { ids: ['501'], range: 7, mail_body: 'author complaint' });
    expect(au).toMatchObject({ affectedRows: 1, books: 1 });
    const b2 = await ok('book.get', { Id_book: 1002 });
    expect(b2.public).toBe(7);
    expect(b2.blocks[0]).toMatchObject({ kind: 'author', range_label: 'Author', mail_body: 'author complaint' });
    const git = await ok('book.blocked_id', { ids: [1005], range: 4 });
    expect(git.affectedRows).toBe(1);
    expect(await ok('book.get', { Id_book: 1005 })).toMatchObject({ git_public: 4, public: 0 });
    expect((await ok('author.blocked_id', { ids: [503], range: 10 })).affectedRows).toBe(1);
    expect((await t.rpc(admin, 'book.blocked', { ids: [1005], range: 8 })).env).toMatchObject({ status: 'rules', message: expect.stringMatching(/range must be one of 1, 2, 3, 4, 5, 6, 7, 10/) });
    for (const m of ['book.blocked', 'author.blocked', 'book.blocked_id', 'author.blocked_id']) {
      expect((await t.rpc(content, m, { ids: [1005], range: 1 })).status).toBe(403);
      expect((await t.rpc(user, m, { ids: [1005], range: 1 })).status).toBe(403);
    }
    const rest = await t.rest<any>(admin, 'POST', '/book/set_block', { Id_book: 1001, public: 0 });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ status: 'ok', result: { affectedRows: 1 } });
    expect((await ok('book.get', { Id_book: 1001 })).public).toBe(0);
    expect((await t.rest<any>(admin, 'POST', '/book/set_block', { Id_book: 1001, public: 3 })).body.result.affectedRows).toBe(1);
    expect((await ok('book.get', { Id_book: 1001 })).blocks[0]).toMatchObject({ block_range: 3, range_label: 'court decision' });
    expect((await t.rest(content, 'POST', '/book/set_block', { Id_book: 1001, public: 0 })).status).toBe(403);
    expect((await t.rest(admin, 'POST', '/book/set_block', { Id_book: 999999, public: 0 })).status).toBe(404);
  });

  test('item.getItemsByItem: links of the mail body by the variant patterns, items (Type, Id, View, Public, Title) with similar offers; config rows replace the patterns', async () => {
    const mail = 'See https://books.example/read/1002, https://books.example/author/502 and https://x.example/view/abc and https://x.example/read/424242';
    const r = await ok('item.getItemsByItem', { variant: 'block', mail_body: mail });
    expect(r.links.map((l: any) => [l.kind, l.type, l.id])).toEqual([['read', 'book', '1002'], ['author', 'author', '502'], ['view', 'book', 'abc'], ['read', 'book', '424242']]);
    expect(mail.slice(r.links[0].start, r.links[0].end)).toBe('https://books.example/read/1002');
    const book = r.items.find((i: any) => i.type === 'book' && i.Id === 1002);
    expect(book).toMatchObject({ found: true, views: 30, public: 7, title: 'Тёмные аллеи и светлые дни' });
    expect(book.offers).toEqual([{ external_id: 1001, title: 'Тёмные аллеи', public: 3 }]);
    expect(r.items.find((i: any) => i.Id === 424242)).toMatchObject({ found: false, offers: [] });
    expect(r.items.find((i: any) => i.type === 'author')).toMatchObject({ Id: 502, found: true, title: 'Толстой Л. Н.', views: 900 });
    expect(r.items.some((i: any) => String(i.Id) === 'abc')).toBe(false);
    const war = await ok('item.get', { items: [{ type: 'book', id: 1003 }] });
    expect(war[0].offers).toEqual([]);
    expect((await ok('item.getItemsByItem', { variant: 'git', mail_body: mail })).links.map((l: any) => l.url)).toEqual(['https://x.example/view/abc']);
    const git = await ok('item.getItemsByItem', { variant: 'git', mail_body: 'https://git.example/book/1006 https://git.example/owner/503' });
    expect(git.items.map((i: any) => [i.type, i.Id, i.title])).toEqual([['book', 1006, 'Garden of stones'], ['author', 503, 'Сад Автор']]);
    await ok('cfg.insertConfigsBatch', [{ type: 'content_link_pattern', value: JSON.stringify({ variant: 'block', kind: 'read', type: 'book', pattern: 'lib\\.example/b(\\d+)' }) }, { type: 'content_link_pattern', value: 'not json' }]);
    expect((await ok('content.linkPatterns', { variant: 'block' })).map((p: any) => p.pattern)).toEqual(['lib\\.example/b(\\d+)']);
    expect((await ok('item.getItemsByItem', { variant: 'block', mail_body: `lib.example/b1003 ${mail}` })).links.map((l: any) => l.id)).toEqual(['1003']);
    expect((await t.rpc(admin, 'item.getItemsByItem', { variant: 'block', mail_body: '  ' })).env).toMatchObject({ status: 'rules', message: expect.stringMatching(/Mail body is required/) });
    expect((await t.rpc(content, 'item.getItemsByItem', { variant: 'block', mail_body: mail })).status).toBe(403);
    expect((await t.rpc(user, 'item.get', { items: [] })).status).toBe(403);
  });
});
