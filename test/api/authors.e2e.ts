/**
 * Authors end to end (docs/authors.md) on the real app and database (SQLite, or MariaDB with
 * TEST_DATABASE_URL): GET /author/get_list?only_double=1 lists authors with their candidates and the
 * reasons; POST /author/update_list saves the Yes/No decisions with the 001 §5 rules (trim, de-duplicate,
 * drop empty, 'not same' out of new_relay), all or none; a merge moves the books in one transaction and
 * its undo puts authors and books back; roles (100 reads, cannot change) and bad input; the candidate
 * index's worker thread replaced when it dies, and never served from a build begun before a write.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import { threadId, Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import { AuthorIndexService } from '../../src/modules/authors/author-index.service.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
let ds: DataSource;

const AUTHORS: [number, string][] = [
  [1, 'Толстой Лев Николаевич'],
  [2, 'Л. Н. Толстой'],
  [3, 'лев толстой'],
  [4, 'Алексей Толстой'],
  [5, 'Фёдор Достоевский'],
  [6, 'Достоевский, Федор'],
  [7, 'Антон Чехов'],
];
/** Books: author 1 has 101-102, author 2 has 201-203, author 3 has 301, author 7 has 701. */
const BOOKS: [number, number][] = [[101, 1], [102, 1], [201, 2], [202, 2], [203, 2], [301, 3], [701, 7]];

const owners = async () => Object.fromEntries((await ds.query('SELECT Id_book, book_owner FROM books ORDER BY Id_book')).map((r: any) => [Number(r.Id_book), Number(r.book_owner)]));
const author = async (id: number) => (await ds.query('SELECT Id_author, a_fio, new_relay, not_relay, relay_marge, opublic FROM authors WHERE Id_author = ?', [id]))[0];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query(`INSERT INTO authors (Id_author, a_fio) VALUES ${AUTHORS.map(() => '(?, ?)').join(', ')}`, AUTHORS.flat());
  await ds.query(`INSERT INTO books (Id_book, book_title, book_owner) VALUES ${BOOKS.map(() => "(?, 'Книга', ?)").join(', ')}`, BOOKS.flat());
});
afterAll(async () => { await t?.close(); });

describe(`authors (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('GET /author/get_list?only_double=1&page=1: {list, count}, each author with its candidates and reasons', async () => {
    const r = await t.rest<any>(user, 'GET', '/author/get_list?only_double=1&page=1');
    expect(r.status).toBe(200);
    const { list, count } = r.body.result;
    expect(count).toBe(5); // 1, 2, 3 (Толстой), 5, 6 (Достоевский); not 4 or 7
    expect(list.map((a: any) => a.Id_author)).toEqual([1, 2, 3, 5, 6]);
    expect(list[0]).toMatchObject({ Id_author: 1, a_fio: 'Толстой Лев Николаевич', count_books: 2 });
    expect(list[0].candidates).toEqual([
      { Id_author: 2, a_fio: 'Л. Н. Толстой', reasons: ['initials'], count_books: 3 },
      { Id_author: 3, a_fio: 'лев толстой', reasons: ['middle name missing'], count_books: 1 },
    ]);
    expect(list[3].candidates).toEqual([{ Id_author: 6, a_fio: 'Достоевский, Федор', reasons: ['ё/е', 'punctuation', 'word order'], count_books: 0 }]);
    // Paging: 2 per page, page 3 holds the last.
    const p3 = await t.rest<any>(user, 'GET', '/author/get_list?only_double=1&page=3&limit=2');
    expect(p3.body.result.list.map((a: any) => a.Id_author)).toEqual([6]);
    // Without only_double: every author, default limit 10, with joinItems.
    const all = await t.ok(user, 'author.getList', { joinItems: 1, getCount: 1 });
    expect(all.count).toBe(7);
    expect(all.list.find((a: any) => a.Id_author === 2).items.map((b: any) => b.Id_book)).toEqual([201, 202, 203]);
    expect((await t.ok(user, 'author.getList', { a_fio: 'Чехов' })).list.map((a: any) => a.Id_author)).toEqual([7]);
    expect((await t.ok(user, 'author.getList', { a_fio: '100%' })).count).toBe(0);
    expect((await t.rest(null, 'GET', '/author/get_list')).status).toBe(401);
    expect((await t.rest(user, 'GET', '/author/get_list?page=0')).status).toBe(422);
    expect((await t.rest(user, 'GET', '/author/get_list?limit=1000')).status).toBe(422);
    expect((await t.rest(user, 'GET', '/author/get_list?only_double=yes')).status).toBe(422);
  });

  test('the candidate index lives in a worker thread; a thread that dies is replaced and the index built again', async () => {
    const svc = t.app.get(AuthorIndexService);
    const before = await t.ok(user, 'author.getList', { only_double: 1 });
    const thread = (svc as unknown as { worker: Worker | null }).worker;
    expect(thread).toBeInstanceOf(Worker);
    expect(thread!.threadId).not.toBe(threadId);
    await thread!.terminate();
    expect(await t.ok(user, 'author.getList', { only_double: 1 })).toEqual(before);
    expect((svc as unknown as { worker: Worker | null }).worker).not.toBe(thread);
  });

  test('a read after a write is never served by a build begun before that write', async () => {
    const svc = t.app.get(AuthorIndexService);
    type Inner = { build: (fp: string, generation: number) => Promise<{ doubles: number[] }> };
    const inner = svc as unknown as Inner;
    const build = inner.build.bind(svc);
    let after: Promise<{ doubles: number[] }> | undefined;
    // While the first build is under way (it has read the table), another author is added and the index invalidated.
    const spy = jest.spyOn(inner, 'build').mockImplementationOnce(async (fp, generation) => {
      const built = await build(fp, generation);
      await ds.query("INSERT INTO authors (Id_author, a_fio) VALUES (90, 'антон чехов')");
      svc.invalidate();
      after = svc.get();
      return built;
    });
    try {
      svc.invalidate();
      expect((await svc.get()).doubles).not.toContain(90);
      expect((await after!).doubles).toEqual(expect.arrayContaining([7, 90]));
      expect((await t.ok(user, 'author.candidates', { Id_author: 7 })).map((c: any) => c.Id_author)).toEqual([90]);
    } finally {
      spy.mockRestore();
      await ds.query('DELETE FROM authors WHERE Id_author = 90');
      svc.invalidate();
    }
  });

  test('POST /author/update_list: roles, bad input, all or none', async () => {
    const rec = [{ Id_author: 1, new_relay: '2,3' }];
    expect((await t.rest(user, 'POST', '/author/update_list', rec)).status).toBe(403);
    expect((await t.rest(null, 'POST', '/author/update_list', rec)).status).toBe(401);
    for (const bad of [{ Id_author: 1 }, [], [{ Id_author: 'x' }], [{ Id_author: 1, new_relay: '2,abc' }], [{ Id_author: 1, a_fio: '   ' }]]) {
      const r = await t.rest<any>(content, 'POST', '/author/update_list', bad);
      expect([r.status, r.body.status]).toEqual([422, 'rules']);
    }
    // An unknown author in the list: 404 and the good record before it is not written either.
    const r = await t.rest<any>(content, 'POST', '/author/update_list', [{ Id_author: 1, new_relay: '2' }, { Id_author: 999, new_relay: '1' }]);
    expect([r.status, r.body.message]).toEqual([404, 'Author 999 not found']);
    expect((await author(1)).new_relay ?? '').toBe('');
  });

  test("update_list trims names, de-duplicates ids, drops empty ones and removes 'not same' ids from new_relay", async () => {
    const r = await t.rest<any>(content, 'POST', '/author/update_list', [
      { Id_author: 1, a_fio: '  Толстой Лев Николаевич  ', new_relay: '2, 2,,3,1, 4', not_relay: ['4', '', 4] },
      { Id_author: 5, not_relay: '6' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({ message: 'Saved ok!', saved: 2 });
    expect(await author(1)).toMatchObject({ a_fio: 'Толстой Лев Николаевич', new_relay: '2,3', not_relay: '4' });
    // 5 and 6 marked not same: neither is offered any more (both ways).
    const list = (await t.ok(user, 'author.getList', { only_double: 1, limit: 20 })).list;
    expect(list.map((a: any) => a.Id_author)).toEqual([1, 2, 3]);
    expect((await t.ok(user, 'author.candidates', { Id_author: 1 })).map((c: any) => c.Id_author)).toEqual([2, 3]);
  });

  let mergeId: number;
  test('a merge moves the books to the kept author in one transaction and records it', async () => {
    expect((await t.rpc(user, 'author.merge', { Id_author: 1 })).status).toBe(403);
    expect((await t.rpc(content, 'author.merge', { Id_author: 7 })).env).toMatchObject({ status: 'rules', code: 422 });
    expect((await t.rpc(content, 'author.merge', { Id_author: 1, ids: [2, 999] })).env).toMatchObject({ code: 404, message: 'Author 999 not found' });
    expect(await owners()).toMatchObject({ 201: 2, 301: 3 }); // the refused merge moved nothing

    const m = await t.ok(content, 'author.merge', { Id_author: 1 }); // its new_relay: 2, 3
    mergeId = m.Id;
    expect(m).toMatchObject({ kept_id: 1, kept_fio: 'Толстой Лев Николаевич', books_count: 4, user_name: 'User user10', undone_at: null });
    expect(m.merged).toEqual([{ Id_author: 2, a_fio: 'Л. Н. Толстой' }, { Id_author: 3, a_fio: 'лев толстой' }]);
    expect(await owners()).toEqual({ 101: 1, 102: 1, 201: 1, 202: 1, 203: 1, 301: 1, 701: 7 });
    expect(await author(2)).toBeUndefined();
    expect(await author(1)).toMatchObject({ relay_marge: '2,3', new_relay: '' });
    expect((await t.ok(user, 'author.getList', { only_double: 1 })).count).toBe(0);
    const h = await t.ok(user, 'author.mergeHistory', {});
    expect(h).toMatchObject({ count: 1, limit: 10 });
    expect(h.list[0].Id).toBe(mergeId);
  });

  test('undo puts the authors and their books back; a second undo is refused', async () => {
    // A book moved on after the merge stays where it is now.
    await ds.query('UPDATE books SET book_owner = 7 WHERE Id_book = 203');
    expect((await t.rpc(user, 'author.undoMerge', { Id: mergeId })).status).toBe(403);
    const u = await t.ok(content, 'author.undoMerge', { Id: mergeId });
    expect(u).toMatchObject({ Id: mergeId, books_restored: 3 });
    expect(u.undone_at).not.toBeNull();
    expect(await owners()).toEqual({ 101: 1, 102: 1, 201: 2, 202: 2, 203: 7, 301: 3, 701: 7 });
    expect(await author(2)).toMatchObject({ a_fio: 'Л. Н. Толстой' });
    expect(await author(1)).toMatchObject({ relay_marge: '', new_relay: '2,3' });
    expect((await t.ok(user, 'author.getList', { only_double: 1 })).list.map((a: any) => a.Id_author)).toEqual([1, 2, 3]);
    expect((await t.rpc(content, 'author.undoMerge', { Id: mergeId })).env).toMatchObject({ code: 409 });
    expect((await t.rpc(content, 'author.undoMerge', { Id: 12345 })).env).toMatchObject({ code: 404 });
  });

  test('set_block and getAuthors_id', async () => {
    expect((await t.rest(user, 'POST', '/author/set_block', { Id_author: 7, opublic: 10 })).status).toBe(403);
    const r = await t.rest<any>(content, 'POST', '/author/set_block', { Id_author: 7, opublic: 10 });
    expect(r.body.result).toEqual({ affectedRows: 1, message: 'Save ok' });
    expect((await author(7)).opublic).toBe(10);
    expect((await t.rest(content, 'POST', '/author/set_block', { Id_author: 999, opublic: 1 })).status).toBe(404);
    const ids = await t.rest<any>(user, 'GET', '/author/getAuthors_id?ids=7,5,999');
    expect(ids.body.result.map((a: any) => [a.Id_author, a.opublic])).toEqual([[7, 10], [5, 0]]);
    expect((await t.rest(user, 'GET', '/author/getAuthors_id?ids=x')).status).toBe(422);
    expect(admin).toBeTruthy();
  });
});
