/**
 * /comments end to end (issue 19; docs/content.md "Comments"; SQLite, or MariaDB with TEST_DATABASE_URL):
 * a site reports comments in an ingestion batch under `comments` (validated; a batch sent again counts
 * nothing twice; a comment reported again counts one more report); admins list the queue and approve,
 * hide or delete (audited); the site reads the decisions back with its token; roles.
 */
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let token: string;
const now = () => Math.floor(Date.now() / 1000);

async function ingest(tok: string | null, body: unknown) {
  const res = await fetch(`${t.url}/api/input_stream/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(tok ? { 'X-Site-Token': tok } : {}) }, body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
async function decisions(tok: string | null, after?: number) {
  const res = await fetch(`${t.url}/api/comments/decisions${after !== undefined ? `?after=${after}` : ''}`, { headers: tok ? { 'X-Site-Token': tok } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  token = (await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' })).token;
});
afterAll(async () => { await t?.close(); });

const queue = async (status?: number) => t.ok<any>(admin, 'comments.getList', status === undefined ? {} : { status });

describe(`comments (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('a site reports comments through ingestion; they wait in the queue, newest report first; a batch sent again counts nothing', async () => {
    const batch = {
      batch_id: 'c-1', events: [],
      comments: [
        { id: 'c100', url: 'https://books.example/book/5', Id_book: 5, author: 'Иван', text: 'Купите дешёвые часы!', time: now() - 60, reason: 'spam' },
        { id: 'c101', text: 'Плохая книга,\nне читайте', time: now() - 30 },
      ],
    };
    expect((await ingest(token, batch)).body.result).toEqual({ batch_id: 'c-1', accepted: 2, duplicate: false });
    expect((await ingest(token, batch)).body.result).toMatchObject({ accepted: 0, duplicate: true });
    const q = await queue();
    expect(q).toMatchObject({ count: 2, page: 1, limit: 20 });
    expect(q.list.find((c: any) => c.ext_id === 'c100')).toMatchObject({
      site: 'books.example', url: 'https://books.example/book/5', Id_book: 5, author: 'Иван', text: 'Купите дешёвые часы!', reason: 'spam', reports: 1, status: 0, decided_at: null,
    });
    expect(q.list.find((c: any) => c.ext_id === 'c101')).toMatchObject({ text: 'Плохая книга,\nне читайте', Id_book: null, url: '', author: '' });
  });

  test('bad records are refused by name and nothing is stored', async () => {
    const bad = await ingest(token, { batch_id: 'c-bad', events: [], comments: [{ id: 'x', text: '', time: now() }, { id: 'y', text: 'ok', time: now(), url: 'javascript:alert(1)' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.fields).toMatchObject({ 'comments.0.text': expect.any(String), 'comments.1.url': expect.any(String) });
    expect((await ingest(token, { batch_id: 'c-bad2', events: [], comments: 'x' })).status).toBe(422);
    expect((await queue()).count).toBe(2);
  });

  test('approve, hide and delete: the queue empties, each decision is audited and read back by the site', async () => {
    const q = (await queue()).list;
    const id100 = q.find((c: any) => c.ext_id === 'c100').Id;
    const id101 = q.find((c: any) => c.ext_id === 'c101').Id;
    expect(await t.ok(admin, 'comments.moderate', { ids: [id101], action: 'approve' })).toEqual({ count: 1, message: 'Comment approved' });
    expect(await t.ok(admin, 'comments.moderate', { ids: [id100], action: 'hide' })).toEqual({ count: 1, message: 'Comment hidden' });
    expect((await queue()).count).toBe(0);
    expect((await queue(1)).list.map((c: any) => c.ext_id)).toEqual(['c101']);
    expect((await queue(2)).list[0]).toMatchObject({ ext_id: 'c100', status: 2, decided_by: (await t.session(1)).uid });
    expect(await t.ok(admin, 'comments.moderate', { ids: [id100], action: 'delete' })).toEqual({ count: 1, message: 'Comment deleted' });
    expect((await queue(2)).count).toBe(0);

    const d = await decisions(token);
    expect(d.status).toBe(200);
    expect(d.body.result.list.map((x: any) => [x.id, x.decision])).toEqual([['c101', 'approved'], ['c100', 'hidden'], ['c100', 'deleted']]);
    const after = d.body.result.list[1].Id;
    expect((await decisions(token, after)).body.result.list.map((x: any) => x.decision)).toEqual(['deleted']);
    expect((await decisions(token, d.body.result.last)).body.result).toEqual({ list: [], last: d.body.result.last });
    expect((await decisions(null)).status).toBe(401);
    expect((await decisions('ist_wrong')).status).toBe(401);
    expect((await decisions(admin)).status).toBe(401); // a session is no site token

    const audit = await t.ok<any>(admin, 'audit.getList', { method: 'comments.moderate' });
    expect(audit.list.map((r: any) => r.target)).toEqual(expect.arrayContaining(['comment c100 (Иван) (#' + id100 + ')']));
    expect((await t.rpc(admin, 'comments.moderate', { ids: [999999], action: 'hide' })).env).toMatchObject({ code: 404 });
    expect((await t.rpc(admin, 'comments.moderate', { ids: [id101], action: 'burn' })).env).toMatchObject({ code: 422, fields: { action: expect.any(String) } });
  });

  test('a comment reported again counts a report; with a changed text it returns to the queue', async () => {
    await ingest(token, { batch_id: 'c-2', events: [], comments: [{ id: 'c101', text: 'Плохая книга,\nне читайте', time: now() }] });
    expect((await queue(1)).list[0]).toMatchObject({ ext_id: 'c101', reports: 2, status: 1 });
    await ingest(token, { batch_id: 'c-3', events: [], comments: [{ id: 'c101', text: 'Теперь со ссылкой http://spam.example', time: now() }] });
    expect((await queue()).list[0]).toMatchObject({ ext_id: 'c101', reports: 3, status: 0, decided_at: null });
  });

  test('admins only', async () => {
    for (const role of [10, 100]) {
      const h = (await t.session(role)).hash;
      expect((await t.rpc(h, 'comments.getList', {})).env).toMatchObject({ code: 403 });
      expect((await t.rpc(h, 'comments.moderate', { ids: [1], action: 'approve' })).env).toMatchObject({ code: 403 });
    }
  });
});
