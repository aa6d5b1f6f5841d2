/**
 * Book categories end to end on the real app and database (SQLite, or MariaDB with TEST_DATABASE_URL):
 * book_cats.get (the /book/categories list, 20 per page, role 10), cat.get (one category or the /book_cat
 * filter, default limit 18), cat.read (the category's books, 50 per page), cat.update (role 10, every
 * editable field of 001 §3), GET /cat/list (select, limit false); roles and bad input.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let content: string;
let user: string;
let admin: string;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  admin = (await t.session(1)).hash;
  const ds = t.app.get<DataSource>(getDataSourceToken());
  // 45 categories; category 1 holds 120 books: 60 placed through the relation (positions 60..1), 60 by book_cat.
  const cats = Array.from({ length: 45 }, (_, i) => [i + 1, `Категория ${String(i + 1).padStart(2, '0')}`, 100 - i, i * 3]);
  await ds.query(`INSERT INTO book_cats (Id_cat, cat_title, count_books, cat_views, SI) VALUES ${cats.map(() => "(?, ?, ?, ?, '{\"items\":[1,2],\"time_update\":5}')").join(', ')}`, cats.flat());
  const books = Array.from({ length: 120 }, (_, i) => [i + 1, `Книга ${i + 1}`, i < 60 ? 2 : 1, i]);
  await ds.query(`INSERT INTO books (Id_book, book_title, book_cat, views) VALUES ${books.map(() => '(?, ?, ?, ?)').join(', ')}`, books.flat());
  const rel = Array.from({ length: 60 }, (_, i) => [1, i + 1, 60 - i]);
  await ds.query(`INSERT INTO book_cat_relay (Id_cat, Id_book, pos) VALUES ${rel.map(() => '(?, ?, ?)').join(', ')}`, rel.flat());
});
afterAll(async () => { await t?.close(); });

describe(`categories (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('book_cats.get: 20 per page with every field; role 10 and stronger', async () => {
    const p1 = await t.ok(content, 'book_cats.get', {});
    expect(p1).toMatchObject({ count: 45, page: 1, limit: 20 });
    expect(p1.list).toHaveLength(20);
    expect(p1.list[0]).toMatchObject({ Id_cat: 1, cat_title: 'Категория 01', count_books: 100, cat_views: 0, rating_day: 0, cron_time: null, SI: { items: [1, 2], time_update: 5 } });
    expect(Object.keys(p1.list[0]).sort()).toEqual(['Id_cat', 'SI', 'cat_body', 'cat_description', 'cat_h1', 'cat_short_title', 'cat_title', 'cat_views', 'codeClick', 'codeShow', 'count_books', 'cron_time', 'meta_description', 'meta_h1', 'meta_title', 'rating_day', 'time_update', 'weight']);
    expect((await t.ok(content, 'book_cats.get', { p_: 3 })).list.map((c: any) => c.Id_cat)).toEqual([41, 42, 43, 44, 45]);
    expect((await t.ok(content, 'book_cats.get', { sort: 'views_desc', limit: 2 })).list.map((c: any) => c.Id_cat)).toEqual([45, 44]);
    expect((await t.ok(content, 'book_cats.get', { cat_title: 'ия 4' })).count).toBe(6);
    expect((await t.ok(content, 'book_cats.get', { cat_title: '100%' })).count).toBe(0);
    expect((await t.rpc(user, 'book_cats.get', {})).status).toBe(403);
    expect((await t.rpc(content, 'book_cats.get', { sort: 'drop table' })).env).toMatchObject({ code: 422 });
  });

  test('cat.get: one category, or the /book_cat filter with limit 18', async () => {
    expect(await t.ok(user, 'cat.get', { Id_cat: 2 })).toMatchObject({ Id_cat: 2, cat_title: 'Категория 02' });
    expect((await t.rpc(user, 'cat.get', { Id_cat: 999 })).env).toMatchObject({ status: 'empty', code: 404, message: 'Cat not found!' });
    const list = await t.ok(user, 'cat.get', {});
    expect(list).toMatchObject({ count: 45, limit: 18 });
    expect(list.list).toHaveLength(18);
    expect((await t.rpc(null, 'cat.get', {})).status).toBe(401);
  });

  test('cat.read: the category books, placed ones by position first, 50 per page', async () => {
    const p1 = await t.ok(user, 'cat.read', { Id_cat: 1 });
    expect(p1).toMatchObject({ count: 120, page: 1, limit: 50 });
    expect(p1.cat.Id_cat).toBe(1);
    expect(p1.list.slice(0, 3).map((b: any) => b.Id_book)).toEqual([60, 59, 58]);
    const p3 = await t.ok(user, 'cat.read', { Id_cat: 1, p_: 3 });
    expect(p3.list.map((b: any) => b.Id_book)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i));
    expect(p3.list[0]).toEqual({ Id_book: 101, book_title: 'Книга 101', views: 100, public: 0, book_pages: 0 });
    expect((await t.rpc(user, 'cat.read', { Id_cat: 999 })).env).toMatchObject({ code: 404, message: 'Cat not found!' });
    expect((await t.rpc(user, 'cat.read', {})).env).toMatchObject({ code: 422 });
  });

  test('cat.update: role 10 saves every editable field; creates without Id_cat; refusals', async () => {
    const fields = {
      cat_title: 'Фэнтези', cat_short_title: 'Фэнт', cat_description: 'Описание\nв две строки', cat_body: '<p>Текст</p>', cat_h1: 'H1',
      meta_title: 'MT', meta_h1: 'MH1', meta_description: 'MD', codeShow: '<script>show()</script>', codeClick: 'click()',
    };
    expect((await t.rpc(user, 'cat.update', { Id_cat: 3, ...fields })).status).toBe(403);
    expect(await t.ok(content, 'cat.update', { Id_cat: 3, ...fields })).toEqual({ Id_cat: 3, message: 'Save ok!' });
    const saved = await t.ok(user, 'cat.get', { Id_cat: 3 });
    expect(saved).toMatchObject(fields);
    expect(saved.time_update).not.toBeNull();
    expect((await t.rpc(content, 'cat.update', { Id_cat: 999, cat_title: 'x' })).env).toMatchObject({ code: 404, message: 'Cat not found!' });
    expect((await t.rpc(content, 'cat.update', { Id_cat: 3, cat_title: '' })).env).toMatchObject({ code: 422 });
    await t.ok(content, 'cat.update', { Id_cat: 3, count_books: 5 }); // counters come from the network: ignored
    expect((await t.ok(user, 'cat.get', { Id_cat: 3 })).count_books).toBe(98);
    expect((await t.rpc(content, 'cat.update', { cat_short_title: 'no title' })).env).toMatchObject({ code: 422 });
    const made = await t.ok(content, 'cat.update', { cat_title: 'Новая' });
    expect((await t.ok(user, 'cat.get', { Id_cat: made.Id_cat })).cat_title).toBe('Новая');
  });

  test('cat.update and the categories import store cat_body through the one sanitiser', async () => {
    const evil = '<p>ok <b>bold</b></p><script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">x</a>';
    await t.ok(content, 'cat.update', { Id_cat: 3, cat_body: evil });
    const saved = (await t.ok(content, 'cat.get', { Id_cat: 3 })).cat_body as string;
    expect(saved).toContain('<b>bold</b>');
    expect(saved).not.toMatch(/script|onerror|javascript:/i);
    await t.ok(admin, 'content.import', { entity: 'categories', rows: [{ Id_cat: 3, cat_title: 'Категория 03', cat_body: evil }] });
    expect((await t.ok(content, 'cat.get', { Id_cat: 3 })).cat_body).not.toMatch(/script|onerror|javascript:/i);
  });

  test('GET /cat/list: select and limit false', async () => {
    const all = await t.rest<any>(user, 'GET', '/cat/list?select=Id_cat,cat_title&limit=false');
    expect(all.status).toBe(200);
    expect(all.body.result).toHaveLength(46);
    expect(all.body.result[0]).toEqual({ Id_cat: 1, cat_title: 'Категория 01' });
    const two = await t.rest<any>(user, 'GET', '/cat/list?limit=2');
    expect(two.body.result.map((c: any) => Object.keys(c))).toEqual([['Id_cat', 'cat_title', 'count_books', 'cat_views', 'rating_day', 'cron_time'], expect.any(Array)]);
    expect((await t.rest(user, 'GET', '/cat/list?select=password')).status).toBe(422);
    expect((await t.rest(user, 'GET', '/cat/list?limit=-1')).status).toBe(422);
    expect((await t.rest(null, 'GET', '/cat/list')).status).toBe(401);
  });
});
