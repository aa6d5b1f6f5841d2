/**
 * Compilations end to end on the real app and database (SQLite, or MariaDB with TEST_DATABASE_URL):
 * GET /compilation/get_list (one with items in the saved order and relays; the list 20 per page newest
 * first, q, getCount), POST /compilation/save (create, replace, the four titles required, unknown ids
 * listed, HTML sanitised, history kept), POST /compilation/delete, compilation.history / restore,
 * compilation.items (the item-id editor's lookup) and compilation.auto (days 1-90, new / top from the
 * input stream's day rows, category); roles 10 and below, refusals.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let content: string;
let user: string;
let ds: DataSource;
const today = Math.floor(Date.now() / 86_400_000);
const base = { meta_title: 'MT', meta_description: 'MD', meta_h1: 'H1', title_short: 'Short' };

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title) VALUES (1, 'Фэнтези'), (2, 'Детективы')");
  // Books 1..30; views 10*i; book 29 blocked (public 2).
  const books = Array.from({ length: 30 }, (_, i) => [i + 1, `Книга ${i + 1}`, (i + 1) * 10, i + 1 === 29 ? 2 : 0, i < 15 ? 1 : 2]);
  await ds.query(`INSERT INTO books (Id_book, book_title, views, public, book_cat) VALUES ${books.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, books.flat());
  // Input stream day rows: book b read (clicks) b times today in category 1 (books 1..15) or 2; book 3 only 40 days ago; book 20 shown, never clicked.
  const rows: number[][] = [];
  for (let b = 1; b <= 30; b++) {
    if (b === 3) rows.push([1, b, today - 40, 100, 90]);
    else rows.push([b <= 15 ? 1 : 2, b, today, 100, b === 20 ? 0 : b]);
  }
  await ds.query(`INSERT INTO stream_days (Id_cat, Id_book, ts, shows, clicks, pos_sum, pos_n) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, 0, 0)').join(', ')}`, rows.flat());
});
afterAll(async () => { await t?.close(); });

const save = (hash: string, body: unknown) => t.rest<any>(hash, 'POST', '/compilation/save', body);
const get = (hash: string, q: string) => t.rest<any>(hash, 'GET', `/compilation/get_list?${q}`);

describe(`compilations (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('save creates (type 1), get_list answers the items in the saved order with relays; role 10 and stronger', async () => {
    const r = await save(content, { ...base, items: [7, 3, 12, 1, 3], relay: [2, 1] });
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({ Id_compilation: expect.any(Number), message: 'Save ok!' });
    const id = r.body.result.Id_compilation;
    const one = (await get(content, `Id_compilation=${id}&joinItems=1&joinRelay=1`)).body.result;
    expect(one).toMatchObject({ Id_compilation: id, ...base, type: 1, body_top: '', body_bottom: '', items_count: 4 });
    expect(one.items.map((i: any) => i.item_id)).toEqual([7, 3, 12, 1]);
    expect(one.items[0]).toEqual({ item_id: 7, pos: 1, book_title: 'Книга 7', views: 70 });
    expect(one.relay).toEqual([{ id: 1, label: 'Фэнтези' }, { id: 2, label: 'Детективы' }]);
    expect(Date.parse(one.time_update)).toBeGreaterThan(Date.now() - 60_000);
    // Reordered and shortened: stored and answered in the new order.
    expect((await save(content, { ...base, Id_compilation: id, items: [12, 1, 7], relay: [] })).status).toBe(200);
    const again = (await get(content, `Id_compilation=${id}&joinItems=1&joinRelay=1`)).body.result;
    expect(again.items.map((i: any) => i.item_id)).toEqual([12, 1, 7]);
    expect(again.relay).toEqual([]);
    // Roles: 100 refused, no session 401.
    expect((await save(user, base)).status).toBe(403);
    expect((await get(user, `Id_compilation=${id}`)).status).toBe(403);
    expect((await t.rest(null, 'GET', `/compilation/get_list?Id_compilation=${id}`)).status).toBe(401);
    expect((await t.rest(user, 'POST', '/compilation/delete', { Id_compilation: id })).status).toBe(403);
  });

  test('save refuses: the four titles required, unknown item and category ids listed, bad shapes; not found', async () => {
    for (const f of ['meta_title', 'meta_description', 'meta_h1', 'title_short']) {
      const r = await save(content, { ...base, [f]: ' ' });
      expect(r.status).toBe(422);
      expect(r.body.fields[f]).toBe(`${f} is required`);
    }
    const unknown = await save(content, { ...base, items: [1, 9999, 2, 8888], relay: [1, 77] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.fields).toEqual({ items: 'Unknown item ids: 9999, 8888', relay: 'Unknown category ids: 77' });
    expect((await save(content, { ...base, items: ['x'] })).status).toBe(422);
    expect((await save(content, { ...base, items: '1,2' })).status).toBe(422);
    expect((await save(content, { ...base, type: 3 })).status).toBe(422);
    expect((await save(content, { ...base, items: Array.from({ length: 501 }, (_, i) => i + 1) })).status).toBe(422);
    const nf = await save(content, { ...base, Id_compilation: 99999 });
    expect(nf.status).toBe(404);
    expect(nf.body.message).toBe('Compilation not found');
    expect((await get(content, 'Id_compilation=99999')).body).toMatchObject({ status: 'empty', message: 'Compilation not found' });
    expect((await get(content, 'page=0')).status).toBe(422);
    expect((await get(content, 'sort=nope')).status).toBe(422);
  });

  test('body_top and body_bottom are sanitised (known XSS payloads)', async () => {
    const payloads = [
      '<script>alert(1)</script><p>ok</p>', '<img src=x onerror=alert(1)>', '<a href="javascript:alert(1)">x</a>',
      '<svg onload=alert(1)>', '<iframe src="https://evil.example"></iframe>', '<p style="background:url(javascript:alert(1))" onclick="x()">t</p>',
      '<a href="JaVaScRiPt:alert(1)">y</a>', '<img src="data:image/svg+xml;base64,PHN2Zz4=">', '<math><mi xlink:href="javascript:alert(1)">z</mi></math>',
    ];
    const r = await save(content, { ...base, body_top: payloads.join(''), body_bottom: '<p onmouseover="steal()"><strong>Hi</strong></p><script>x</script>' });
    const one = (await get(content, `Id_compilation=${r.body.result.Id_compilation}`)).body.result;
    for (const body of [one.body_top, one.body_bottom]) {
      expect(body).not.toMatch(/<script|onerror|onload|onclick|onmouseover|javascript:|<iframe|<svg|style=|data:/i);
    }
    expect(one.body_top).toContain('<p>ok</p>');
    expect(one.body_bottom).toBe('<p><strong>Hi</strong></p>');
  });

  test('history keeps every replaced version; restore saves one as a new version', async () => {
    const { Id_compilation } = (await save(content, { ...base, meta_title: 'v1', items: [1, 2] })).body.result;
    await save(content, { ...base, Id_compilation, meta_title: 'v2', items: [3] });
    await save(content, { ...base, Id_compilation, meta_title: 'v3', items: [4, 5, 6], body_top: '<p>three</p>' });
    const h = await t.ok(content, 'compilation.history', { Id_compilation });
    expect(h.map((e: any) => [e.meta_title, e.items_count])).toEqual([['v2', 1], ['v1', 2]]);
    expect(Object.keys(h[0]).sort()).toEqual(['Id', 'items_count', 'meta_title', 'ts_update']);
    expect(await t.ok(content, 'compilation.restore', { Id: h[1].Id })).toEqual({ Id_compilation, message: 'Save ok!' });
    const now = (await get(content, `Id_compilation=${Id_compilation}&joinItems=1`)).body.result;
    expect(now).toMatchObject({ meta_title: 'v1', body_top: '' });
    expect(now.items.map((i: any) => i.item_id)).toEqual([1, 2]);
    expect((await t.ok(content, 'compilation.history', { Id_compilation })).map((e: any) => e.meta_title)).toEqual(['v3', 'v2', 'v1']);
    expect((await t.rpc(content, 'compilation.restore', { Id: 99999 })).env).toMatchObject({ code: 404, message: 'Compilation not found' });
    expect((await t.rpc(content, 'compilation.history', { Id_compilation: 99999 })).env).toMatchObject({ code: 404, message: 'Compilation not found' });
    expect((await t.rpc(user, 'compilation.history', { Id_compilation })).status).toBe(403);
    expect((await t.rpc(user, 'compilation.restore', { Id: h[0].Id })).status).toBe(403);
  });

  test('delete answers Compilation delete!, then not found; items and history gone', async () => {
    const { Id_compilation } = (await save(content, { ...base, items: [1, 2, 3], relay: [1] })).body.result;
    await save(content, { ...base, Id_compilation, items: [1] });
    const r = await t.rest<any>(content, 'POST', '/compilation/delete', { Id_compilation });
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({ message: 'Compilation delete!' });
    expect((await get(content, `Id_compilation=${Id_compilation}`)).status).toBe(404);
    for (const [table, col] of [['compilation_items', 'id_compilation'], ['compilation_relay', 'id_compilation'], ['compilation_history', 'Id_compilation']]) {
      expect(Number((await ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${col} = ?`, [Id_compilation]))[0].n)).toBe(0);
    }
    expect((await t.rest<any>(content, 'POST', '/compilation/delete', { Id_compilation })).body).toMatchObject({ message: 'Compilation not found' });
    expect((await t.rest<any>(content, 'POST', '/compilation/delete', {})).status).toBe(422);
  });

  test('the list: 20 per page newest first, q, getCount, p', async () => {
    await ds.query('DELETE FROM compilation_items');
    await ds.query('DELETE FROM compilation_relay');
    await ds.query('DELETE FROM compilation_history');
    await ds.query('DELETE FROM compilations');
    const ids: number[] = [];
    for (let i = 1; i <= 25; i++) ids.push((await save(content, { ...base, meta_title: `Подборка ${i}`, title_short: i === 7 ? 'Особая' : 'S', items: [i] })).body.result.Id_compilation);
    // Saving an older one again makes it the newest.
    await save(content, { ...base, Id_compilation: ids[2], meta_title: 'Подборка 3', items: [3, 4] });
    const p1 = (await get(content, 'page=1&getCount=1&joinItems=0&sort=time_desc')).body.result;
    expect(p1).toMatchObject({ count: 25, page: 1, limit: 20 });
    expect(p1.list).toHaveLength(20);
    expect(p1.list[0]).toMatchObject({ Id_compilation: ids[2], meta_title: 'Подборка 3', items_count: 2 });
    expect(p1.list[0].items).toBeUndefined();
    expect(p1.list.slice(1, 3).map((c: any) => c.meta_title)).toEqual(['Подборка 25', 'Подборка 24']);
    const p2 = (await get(content, 'page=2')).body.result;
    expect(p2.list.map((c: any) => c.meta_title)).toEqual(['Подборка 6', 'Подборка 5', 'Подборка 4', 'Подборка 2', 'Подборка 1']);
    // Pages past the middle are read from the other end of the index: same rows, same order.
    expect((await get(content, 'page=2&limit=10&sort=id_asc')).body.result.list.map((c: any) => c.Id_compilation)).toEqual(ids.slice(10, 20));
    expect((await get(content, 'page=3&limit=10&sort=id_asc')).body.result.list.map((c: any) => c.Id_compilation)).toEqual(ids.slice(20, 25));
    expect((await get(content, 'page=3&limit=10&sort=id_desc')).body.result.list.map((c: any) => c.Id_compilation)).toEqual(ids.slice(0, 5).reverse());
    expect((await get(content, 'page=4&limit=10')).body.result.list).toEqual([]);
    expect((await get(content, `q=${encodeURIComponent('Особая')}`)).body.result).toMatchObject({ count: 1, list: [{ Id_compilation: ids[6] }] });
    expect((await get(content, `q=${encodeURIComponent('ка 1')}`)).body.result.count).toBe(11);
    expect((await get(content, 'q=100%25')).body.result.count).toBe(0);
    expect((await get(content, `q=${ids[9]}`)).body.result.list.map((c: any) => c.Id_compilation)).toContain(ids[9]);
    expect((await get(content, 'getCount=0')).body.result.count).toBeUndefined();
    const withItems = (await get(content, 'joinItems=1&page=2')).body.result;
    expect(withItems.list[0].items.map((i: any) => i.item_id)).toEqual([6]);
    // The count is kept per filter (30 s) and dropped by every save and delete made through the API.
    await ds.query("INSERT INTO compilations (meta_title, meta_h1, title_short, time_update) VALUES ('Прямо в таблицу', 'H', 'S', '2020-01-01 00:00:00.000')");
    expect((await get(content, 'page=1')).body.result.count).toBe(25);
    const extra = (await save(content, { ...base, meta_title: 'Ещё одна' })).body.result.Id_compilation;
    expect((await get(content, 'page=1')).body.result.count).toBe(27);
    await t.rest(content, 'POST', '/compilation/delete', { Id_compilation: extra });
    expect((await get(content, 'page=1')).body.result.count).toBe(26);
  });

  test('compilation.items: found in the order asked, unknown listed', async () => {
    expect(await t.ok(content, 'compilation.items', { ids: [5, 4444, 2, 5] })).toEqual({
      found: [{ item_id: 5, book_title: 'Книга 5', views: 50, public: 0 }, { item_id: 2, book_title: 'Книга 2', views: 20, public: 0 }],
      unknown: [4444],
    });
    expect((await t.rpc(content, 'compilation.items', { ids: [] })).env).toMatchObject({ code: 422 });
    expect((await t.rpc(user, 'compilation.items', { ids: [1] })).status).toBe(403);
  });

  test('compilation.auto: top by reads in the range, new under 50 views newest first, category, the empty message; days 1-90', async () => {
    const top = await t.ok(content, 'compilation.auto', { days: 7, mode: 'top' });
    // Book 30 has the most clicks; 29 is blocked; 3 was read only 40 days ago; 20 never clicked.
    expect(top.list.map((b: any) => b.item_id)).toEqual([30, 28, 27, 26, 25, 24, 23, 22, 21, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9]);
    expect(top.list[0]).toEqual({ item_id: 30, book_title: 'Книга 30', views: 300, public: 0, reads: 30, shows: 100 });
    expect(top.message).toBe('');
    const top60 = await t.ok(content, 'compilation.auto', { days: 60, mode: 'top' });
    expect(top60.list[0].item_id).toBe(3);
    const topCat = await t.ok(content, 'compilation.auto', { days: 7, mode: 'top', Id_cat: 1 });
    expect(topCat.list.map((b: any) => b.item_id)).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 2, 1]);
    const fresh = await t.ok(content, 'compilation.auto', { days: 1, mode: 'new' });
    expect(fresh.list.map((b: any) => b.item_id)).toEqual([4, 2, 1]);
    const empty = await t.ok(content, 'compilation.auto', { days: 1, mode: 'new', Id_cat: 2 });
    expect(empty).toEqual({ list: [], message: 'Ничего не найдено: увеличьте количество дней или добавьте категорию' });
    for (const days of [0, 91, -1, 'x', 1.5]) expect((await t.rpc(content, 'compilation.auto', { days, mode: 'top' })).env).toMatchObject({ code: 422 });
    expect((await t.rpc(content, 'compilation.auto', { days: 90, mode: 'top' })).env.status).toBe('ok');
    expect((await t.rpc(content, 'compilation.auto', { days: 7, mode: 'all' })).env).toMatchObject({ code: 422 });
    expect((await t.rpc(user, 'compilation.auto', { days: 7, mode: 'top' })).status).toBe(403);
  });
});
