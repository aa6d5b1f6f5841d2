/**
 * /content/cat_weight_sort end to end (issue 19 "Worker list and small tools"; SQLite, or MariaDB with
 * TEST_DATABASE_URL): cat.getWeights answers every category in the weight order; cat.setWeights stores the
 * dragged order as weights (the categories not listed follow in their previous order) and every category
 * read (book_cats.get, cat.get's filter, GET /cat/list) then answers in that order; unknown or repeated
 * ids are refused by name and change nothing; role 10 and stronger; the save is audited.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let content: string;
let user: string;
let admin: string;
let ds: DataSource;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
  const cats = [1, 2, 3, 4, 5].map((i) => [i, `Категория ${i}`, i * 10]);
  await ds.query(`INSERT INTO book_cats (Id_cat, cat_title, count_books) VALUES ${cats.map(() => '(?, ?, ?)').join(', ')}`, cats.flat());
});
afterAll(async () => { await t?.close(); });

const weightOrder = async () => (await t.ok<any[]>(content, 'cat.getWeights', {})).map((c) => c.Id_cat);

describe(`category weight sort (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('unsorted categories come by Id; a saved order is stored as weights and answered by every category read', async () => {
    expect(await weightOrder()).toEqual([1, 2, 3, 4, 5]);
    expect((await t.ok<any[]>(content, 'cat.getWeights', {}))[0]).toEqual({ Id_cat: 1, cat_title: 'Категория 1', count_books: 10, weight: 0 });

    expect(await t.ok(content, 'cat.setWeights', { ids: [4, 2, 5, 1, 3] })).toEqual({ count: 5, message: 'Order saved' });
    expect(await weightOrder()).toEqual([4, 2, 5, 1, 3]);
    const rows: { Id_cat: unknown; weight: unknown }[] = await ds.query('SELECT Id_cat, weight FROM book_cats ORDER BY Id_cat');
    expect(rows.map((r) => [Number(r.Id_cat), Number(r.weight)])).toEqual([[1, 4], [2, 2], [3, 5], [4, 1], [5, 3]]);

    expect((await t.ok(content, 'book_cats.get', {})).list.map((c: any) => c.Id_cat)).toEqual([4, 2, 5, 1, 3]);
    expect((await t.ok(content, 'book_cats.get', {})).list[0].weight).toBe(1);
    expect((await t.ok(user, 'cat.get', { p_: 1 })).list.map((c: any) => c.Id_cat)).toEqual([4, 2, 5, 1, 3]);
    const list = await t.rest<any>(user, 'GET', '/cat/list?select=Id_cat,weight&limit=false');
    expect(list.body.result).toEqual([{ Id_cat: 4, weight: 1 }, { Id_cat: 2, weight: 2 }, { Id_cat: 5, weight: 3 }, { Id_cat: 1, weight: 4 }, { Id_cat: 3, weight: 5 }]);
    // the other sorts still work
    expect((await t.ok(content, 'book_cats.get', { sort: 'id_asc' })).list.map((c: any) => c.Id_cat)).toEqual([1, 2, 3, 4, 5]);
  });

  test('a partial order puts the listed first; the others follow in their previous order; a new category comes first until placed', async () => {
    await t.ok(content, 'cat.setWeights', { ids: [3, 1] });
    expect(await weightOrder()).toEqual([3, 1, 4, 2, 5]);
    const created = await t.ok(content, 'cat.update', { cat_title: 'Новая' });
    expect(await weightOrder()).toEqual([created.Id_cat, 3, 1, 4, 2, 5]);
    await t.ok(content, 'cat.setWeights', { ids: [3, 1, 4, 2, 5, created.Id_cat] });
    expect(await weightOrder()).toEqual([3, 1, 4, 2, 5, created.Id_cat]);
  });

  test('unknown, repeated or malformed ids are refused by name and change nothing', async () => {
    const before = await weightOrder();
    const unknown = await t.rpc<any>(content, 'cat.setWeights', { ids: [2, 999, 998] });
    expect(unknown.env).toMatchObject({ status: 'rules', code: 422, message: 'Unknown categories: 999, 998', fields: { ids: 'Unknown categories' } });
    const twice = await t.rpc<any>(content, 'cat.setWeights', { ids: [2, 2] });
    expect(twice.env).toMatchObject({ code: 422, message: expect.stringMatching(/listed twice/) });
    for (const ids of [[], [true], ['0x17'], 5, null]) {
      expect((await t.rpc<any>(content, 'cat.setWeights', { ids })).env).toMatchObject({ code: 422 });
    }
    expect(await weightOrder()).toEqual(before);
  });

  test('roles: content (10) and admin may read and save the order; a user (100) may not; the save is audited', async () => {
    expect((await t.rpc(user, 'cat.getWeights', {})).env).toMatchObject({ code: 403 });
    expect((await t.rpc(user, 'cat.setWeights', { ids: [1] })).env).toMatchObject({ code: 403 });
    expect((await t.rpc(null, 'cat.setWeights', { ids: [1] })).status).toBe(401);
    await t.ok(admin, 'cat.setWeights', { ids: [1] });
    expect((await weightOrder())[0]).toBe(1);
    const audit = await t.ok<any>(admin, 'audit.getList', { method: 'cat.setWeights' });
    expect(audit.list.length).toBeGreaterThanOrEqual(3);
    expect(audit.list.map((r: any) => r.uid)).toEqual(expect.arrayContaining([(await t.session(10)).uid, (await t.session(1)).uid]));
  });
});
