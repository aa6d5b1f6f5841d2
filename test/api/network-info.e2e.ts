/**
 * Network info end to end (issue 20; 001 §2 "Network info", §3, §7; docs/network-info.md; SQLite, or
 * MariaDB with TEST_DATABASE_URL): hosts, pages and categories over RPC with roles and bad input, the
 * select whitelist, joinHosh and joinCatRelay, insertId, the storage placeholders of bodies, cover
 * validation, page<->category relations in one transaction, the host filter and paging, and
 * GET /api/tpl/get_hosts for an admin session, a site token, and nobody else.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';
import { pass } from '../helpers/passes.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
let token: string;
const ALIAS = 'a'.repeat(32);
const ALIAS2 = '0123456789abcdef0123456789abcdef';
const ids: Record<string, number> = {};

/** One RPC call: `status` is the method's own code (a batch answers HTTP 200 unless every method was refused for the role). */
async function call(method: string, args: unknown, hash = admin) {
  const r = await t.rpc<any>(hash, method, args);
  return { status: r.env.status === 'ok' ? 200 : (r.env.code ?? 0), env: r.env as any };
}
const ok = <T = any>(method: string, args: unknown) => t.ok<T>(admin, method, args);
const db = () => t.app.get<DataSource>(getDataSourceToken());
/** Sets a page's date_update back to 2001, so that "the write set it" does not depend on the clock moving. */
const aged = (Id: number) => db().getRepository('net_pages').update({ Id }, { date_update: new Date('2001-01-01T00:00:00Z') });
async function tplHosts(headers: Record<string, string>) {
  const res = await fetch(`${t.url}/api/tpl/get_hosts`, { headers });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
  token = (await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' })).token;
}, 60_000);
afterAll(async () => { await t?.close(); });

describe(`network info (${pass})`, () => {
  test('the migration made the tables: a page body is long text (LONGTEXT on MariaDB)', async () => {
    if (pass === 'mariadb') {
      const cols: Array<{ COLUMN_NAME: string; DATA_TYPE: string }> = await db().query(
        "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'net_pages' ORDER BY ORDINAL_POSITION",
      );
      expect(Object.fromEntries(cols.map((c) => [c.COLUMN_NAME, c.DATA_TYPE]))).toEqual({
        Id: 'int', host: 'int', title: 'varchar', description: 'text', h1: 'varchar', body: 'longtext', keys_relay: 'text',
        storage: 'int', cover: 'varchar', date: 'datetime', date_update: 'datetime',
      });
    } else {
      const cols: Array<{ name: string; type: string }> = await db().query("PRAGMA table_info('net_pages')");
      expect(cols.map((c) => c.name)).toEqual(['Id', 'host', 'title', 'description', 'h1', 'body', 'keys_relay', 'storage', 'cover', 'date', 'date_update']);
      expect(cols.find((c) => c.name === 'body')?.type.toLowerCase()).toBe('text');
    }
    // The page entity's columns are the table's (the entity is left out of the schema builder's comparison).
    const meta = db().getMetadata('net_pages');
    expect(meta.columns.map((c) => c.databaseName).sort()).toEqual(['Id', 'body', 'cover', 'date', 'date_update', 'description', 'h1', 'host', 'keys_relay', 'storage', 'title'].sort());
  });

  test('every method: 401 without a session, 403 for content and user roles', async () => {
    const methods = ['Host.get', 'Host.insert', 'Host.update', 'Page.get', 'Page.insert', 'Page.update', 'Cats.get', 'Cats.insert', 'Cats.update', 'Cats.setRelayCatAndPage'];
    for (const m of methods) {
      expect((await t.rpc(null, `network_info.${m}`, {})).status).toBe(401);
      for (const h of [content, user]) {
        const r = await t.rpc<any>(h, `network_info.${m}`, {});
        expect([r.status, (r.env as { code?: number }).code]).toEqual([403, 403]);
      }
    }
  });

  test('hosts: insert answers insertId, required fields are 422s naming them, a domain is one host\'s', async () => {
    const r = await ok('network_info.Host.insert', { name: 'Books', domain: 'Books.Example' });
    expect(r).toEqual({ insertId: expect.any(Number), message: 'Insert ok!' });
    expect(r.insertId).toBeGreaterThan(0);
    ids.h1 = r.insertId;
    // code_in_storage defaults to the domain (lower case, as stored)
    expect(await ok('network_info.Host.get', { Id: ids.h1 })).toEqual({ Id: ids.h1, name: 'Books', domain: 'books.example', code_in_storage: 'books.example' });
    ids.h2 = (await ok('network_info.Host.insert', { name: 'Poems', domain: 'poems.example', code_in_storage: 'poems_bucket' })).insertId;

    const none = await call('network_info.Host.insert', {});
    expect([none.status, none.env.status]).toEqual([422, 'rules']);
    expect(none.env.fields).toMatchObject({ name: 'name is required', domain: 'domain is required' });
    const badDomain = await call('network_info.Host.insert', { name: 'x', domain: '127.0.0.1' });
    expect(badDomain.env.fields).toHaveProperty('domain');
    const badCode = await call('network_info.Host.insert', { name: 'x', domain: 'x.example', code_in_storage: '../etc' });
    expect(badCode.env.fields).toHaveProperty('code_in_storage');
    const dup = await call('network_info.Host.insert', { name: 'Again', domain: 'books.example' });
    expect([dup.status, dup.env.fields]).toEqual([409, { domain: 'A host with this domain already exists' }]);

    expect(await ok('network_info.Host.update', { Id: ids.h2, name: 'Poems & verse' })).toEqual({ Id: ids.h2, message: 'Update ok!' });
    expect(await ok('network_info.Host.get', { Id: ids.h2 })).toMatchObject({ name: 'Poems & verse', code_in_storage: 'poems_bucket' });
    expect((await call('network_info.Host.update', { Id: ids.h2, domain: 'books.example' })).status).toBe(409);
    expect((await call('network_info.Host.update', { Id: 99999, name: 'x' })).env).toMatchObject({ code: 404, message: 'Host not found' });
    expect((await call('network_info.Host.get', { Id: 99999 })).env).toMatchObject({ code: 404, message: 'Host not found' });
  });

  test('hosts: list paged with count; select is a whitelist of columns', async () => {
    const all = await ok('network_info.Host.get', {});
    expect(all).toMatchObject({ count: 2, page: 1, limit: 20 });
    expect(all.list.map((h: any) => h.Id)).toEqual([ids.h1, ids.h2]);
    expect(await ok('network_info.Host.get', { select: 'Id, domain', limit: 1, p_: 2 })).toEqual({ list: [{ Id: ids.h2, domain: 'poems.example' }], count: 2, page: 2, limit: 1 });
    expect(await ok('network_info.Host.get', { select: ['name'], Id: ids.h1 })).toEqual({ name: 'Books' });
    const bad = await call('network_info.Host.get', { select: 'Id, password' });
    expect([bad.status, Object.keys(bad.env.fields)]).toEqual([422, ['select']]);
    expect(bad.env.message).toMatch(/unknown column 'password'/);
    expect((await call('network_info.Host.get', { select: 'Id; DROP TABLE net_hosts' })).status).toBe(422);
    expect((await call('network_info.Host.get', { select: ' , ' })).status).toBe(422);
  });

  test('categories: insert, required fields, host must exist, body_bottom placeholders, cover validation', async () => {
    const c = await ok('network_info.Cats.insert', {
      host: ids.h1, title: 'Fantasy', h1: 'Fantasy books',
      body_bottom: `<p>Bottom <img src="https://cdn.other.example/storage/${ALIAS}" onerror="alert(1)"><script>x()</script></p>`,
    });
    expect(c).toEqual({ insertId: expect.any(Number), message: 'Insert ok!' });
    ids.c1 = c.insertId;
    ids.c2 = (await ok('network_info.Cats.insert', { host: ids.h1, title: 'Crime', cover: ALIAS2 })).insertId;
    ids.c3 = (await ok('network_info.Cats.insert', { host: ids.h2, title: 'Sonnets' })).insertId;
    const got = await ok('network_info.Cats.get', { Id: ids.c1 });
    expect(got).toMatchObject({ Id: ids.c1, host: ids.h1, title: 'Fantasy', h1: 'Fantasy books', storage: 1, cover: '', description: '' });
    expect(got.body_bottom).toBe(`<p>Bottom <img src="{storage:${ALIAS}}" /></p>`);

    const none = await call('network_info.Cats.insert', {});
    expect(none.env.fields).toMatchObject({ host: 'host is required', title: 'title is required' });
    const noHost = await call('network_info.Cats.insert', { host: 99999, title: 'x' });
    expect([noHost.status, Object.keys(noHost.env.fields)]).toEqual([422, ['host']]);
    for (const cover of ['abc', 'A'.repeat(32), `${ALIAS}x`, 'g'.repeat(32), 5]) {
      const r = await call('network_info.Cats.insert', { host: ids.h1, title: 'x', cover });
      expect([r.status, Object.keys(r.env.fields ?? {})]).toEqual([422, ['cover']]);
    }
    // TEXT on MariaDB: body_bottom over 65,535 bytes once stored is refused by name, not a database error.
    const big = await call('network_info.Cats.update', { Id: ids.c1, body_bottom: `<p>${'ж'.repeat(40_000)}</p>` });
    expect([big.status, Object.keys(big.env.fields)]).toEqual([422, ['body_bottom']]);

    expect(await ok('network_info.Cats.update', { Id: ids.c2, description: 'Detectives', cover: '' })).toEqual({ Id: ids.c2, message: 'Update ok!' });
    expect(await ok('network_info.Cats.get', { Id: ids.c2, select: 'description,cover' })).toEqual({ description: 'Detectives', cover: '' });
    expect((await call('network_info.Cats.update', { Id: 99999, title: 'x' })).env).toMatchObject({ code: 404, message: 'Category not found' });
    expect(await ok('network_info.Cats.get', { host: ids.h2, select: 'Id,title' })).toEqual({ list: [{ Id: ids.c3, title: 'Sonnets' }], count: 1, page: 1, limit: 20 });
  });

  test('pages: insert answers insertId; a body saved with storage URLs reads back with {storage:<alias>}; date set', async () => {
    const before = Date.now();
    const body = `<p>Intro</p><p><img src="http://anyhost/storage/${ALIAS}" alt="one"></p><p><img src="/storage/${ALIAS2}"></p><p>{storage:${ALIAS}}</p>`;
    const r = await ok('network_info.Page.insert', { host: ids.h1, title: 'First page', body, description: 'About', h1: 'First', keys_relay: 'one, two', categoriesRelay: [ids.c1, ids.c2] });
    expect(r).toEqual({ insertId: expect.any(Number), message: 'Insert ok!' });
    expect(r.insertId).toBeGreaterThan(0);
    ids.p1 = r.insertId;
    const p = await ok('network_info.Page.get', { Id: ids.p1 });
    expect(p).toMatchObject({ Id: ids.p1, host: ids.h1, title: 'First page', description: 'About', h1: 'First', keys_relay: 'one, two', storage: 1, cover: '' });
    expect(p.body).toBe(`<p>Intro</p><p><img src="{storage:${ALIAS}}" alt="one" /></p><p><img src="{storage:${ALIAS2}}" /></p><p>{storage:${ALIAS}}</p>`);
    expect(p.body).not.toMatch(/anyhost|\/storage\//);
    expect(Date.parse(p.date)).toBeGreaterThanOrEqual(before - 1000);
    expect(p.date_update).toBe(p.date);
    // what is stored is the placeholder form too
    const [row] = await db().query(`SELECT body FROM net_pages WHERE ${db().driver.escape('Id')} = ?`, [ids.p1]);
    expect(row.body).toBe(p.body);
    // the form sends the expanded body back: stored the same again
    await ok('network_info.Page.update', { Id: ids.p1, body: p.body.replaceAll(`{storage:${ALIAS}}`, `https://console.example/storage/${ALIAS}`) });
    expect((await ok('network_info.Page.get', { Id: ids.p1, select: 'body' })).body).toBe(p.body);
    // a long body (past TEXT's 65,535 bytes) is kept whole
    const long = `<p>${'Длинная страница. '.repeat(6000)}</p>`;
    expect(Buffer.byteLength(long)).toBeGreaterThan(150_000);
    const Id = (await ok('network_info.Page.insert', { host: ids.h1, title: 'Long', body: long })).insertId;
    const back: string = (await ok('network_info.Page.get', { Id, select: 'body' })).body;
    expect([back.length, back === long]).toEqual([long.length, true]);
    await db().query(`DELETE FROM net_pages WHERE ${db().driver.escape('Id')} = ?`, [Id]);
  });

  test('pages: required fields, host must exist, categories must be the host\'s, cover, nothing half-written', async () => {
    const none = await call('network_info.Page.insert', {});
    expect(none.env.fields).toMatchObject({ host: 'host is required', title: 'title is required' });
    const noHost = await call('network_info.Page.insert', { host: 99999, title: 'x' });
    expect([noHost.status, Object.keys(noHost.env.fields)]).toEqual([422, ['host']]);
    const count = async () => Number((await db().query('SELECT COUNT(*) AS n FROM net_pages'))[0].n);
    const relays = async () => Number((await db().query('SELECT COUNT(*) AS n FROM net_cat_page'))[0].n);
    const [pages0, rel0] = [await count(), await relays()];
    const otherHost = await call('network_info.Page.insert', { host: ids.h1, title: 'x', categoriesRelay: [ids.c1, ids.c3] });
    expect([otherHost.status, Object.keys(otherHost.env.fields)]).toEqual([422, ['categoriesRelay']]);
    expect(otherHost.env.message).toMatch(new RegExp(`another host: ${ids.c3}`));
    const unknown = await call('network_info.Page.insert', { host: ids.h1, title: 'x', categoriesRelay: [ids.c1, 99999] });
    expect(unknown.env.message).toMatch(/unknown categories: 99999/);
    const badCover = await call('network_info.Page.insert', { host: ids.h1, title: 'x', cover: 'not-an-alias' });
    expect([badCover.status, Object.keys(badCover.env.fields)]).toEqual([422, ['cover']]);
    // an update that fails on its categories changes nothing of the page either
    const bad = await call('network_info.Page.update', { Id: ids.p1, title: 'Changed', categoriesRelay: [ids.c3] });
    expect(bad.status).toBe(422);
    expect([await count(), await relays()]).toEqual([pages0, rel0]);
    expect((await ok('network_info.Page.get', { Id: ids.p1, select: 'title' })).title).toBe('First page');
    // moving a page to another host with its categories is refused; with categories of that host it is done
    const move = await call('network_info.Page.update', { Id: ids.p1, host: ids.h2 });
    expect([move.status, Object.keys(move.env.fields)]).toEqual([422, ['host']]);
    expect((await call('network_info.Page.update', { Id: 99999, title: 'x' })).env).toMatchObject({ code: 404, message: 'Network page not found' });
  });

  test('pages: joinHosh, joinCatRelay, select whitelist; update changes date_update and replaces categories', async () => {
    const p = await ok('network_info.Page.get', { Id: ids.p1, select: 'Id,title', joinHosh: 1, joinCatRelay: 1 });
    expect(p).toEqual({
      Id: ids.p1, title: 'First page', name: 'Books', domain: 'books.example', code_in_storage: 'books.example',
      categoriesRelay: [{ Id: ids.c2, title: 'Crime' }, { Id: ids.c1, title: 'Fantasy' }],
    });
    expect(await ok('network_info.Page.get', { Id: ids.p1, select: ['cover'] })).toEqual({ cover: '' });
    const bad = await call('network_info.Page.get', { select: 'title,password_hash' });
    expect([bad.status, Object.keys(bad.env.fields)]).toEqual([422, ['select']]);

    await aged(ids.p1);
    const before = await ok('network_info.Page.get', { Id: ids.p1, select: 'date,date_update' });
    expect(await ok('network_info.Page.update', { Id: ids.p1, title: 'First page (2)', cover: ALIAS, storage: 3, categoriesRelay: [ids.c1] }))
      .toEqual({ Id: ids.p1, message: 'Update ok!' });
    const after = await ok('network_info.Page.get', { Id: ids.p1, joinCatRelay: 1 });
    expect(after).toMatchObject({ title: 'First page (2)', cover: ALIAS, storage: 3, date: before.date, categoriesRelay: [{ Id: ids.c1, title: 'Fantasy' }] });
    expect(Date.parse(after.date_update)).toBeGreaterThan(Date.parse(before.date_update));
    // categories of the other host move with the page in one call
    await ok('network_info.Page.update', { Id: ids.p1, host: ids.h2, categoriesRelay: [ids.c3] });
    expect(await ok('network_info.Page.get', { Id: ids.p1, select: 'host', joinHosh: 1, joinCatRelay: 1 }))
      .toEqual({ host: ids.h2, name: 'Poems & verse', domain: 'poems.example', code_in_storage: 'poems_bucket', categoriesRelay: [{ Id: ids.c3, title: 'Sonnets' }] });
    await ok('network_info.Page.update', { Id: ids.p1, host: ids.h1, categoriesRelay: [ids.c1, ids.c2] });
  });

  test('Cats.setRelayCatAndPage replaces a page\'s categories in one transaction; categories list their pages', async () => {
    ids.p2 = (await ok('network_info.Page.insert', { host: ids.h1, title: 'Second page' })).insertId;
    await aged(ids.p2);
    const before = await ok('network_info.Page.get', { Id: ids.p2, select: 'date_update' });
    expect(await ok('network_info.Cats.setRelayCatAndPage', { page: ids.p2, cats: [ids.c2, ids.c2] })).toEqual({ page: ids.p2, cats: [ids.c2], message: 'Update ok!' });
    const p2 = await ok('network_info.Page.get', { Id: ids.p2, select: 'date_update', joinCatRelay: 1 });
    expect(p2.categoriesRelay).toEqual([{ Id: ids.c2, title: 'Crime' }]);
    expect(Date.parse(p2.date_update)).toBeGreaterThan(Date.parse(before.date_update));
    const crime = await ok('network_info.Cats.get', { Id: ids.c2, select: 'title', joinCatRelay: 1, joinHosh: 1 });
    expect(crime).toEqual({ title: 'Crime', name: 'Books', domain: 'books.example', code_in_storage: 'books.example', pages_count: 2, pages: [{ Id: ids.p2, title: 'Second page' }, { Id: ids.p1, title: 'First page (2)' }] });
    // a refused relation leaves the old one
    const bad = await call('network_info.Cats.setRelayCatAndPage', { page: ids.p2, cats: [ids.c1, ids.c3] });
    expect([bad.status, Object.keys(bad.env.fields)]).toEqual([422, ['cats']]);
    expect((await ok('network_info.Page.get', { Id: ids.p2, select: 'Id', joinCatRelay: 1 })).categoriesRelay).toEqual([{ Id: ids.c2, title: 'Crime' }]);
    expect((await call('network_info.Cats.setRelayCatAndPage', { page: 99999, cats: [] })).env).toMatchObject({ code: 404 });
    await ok('network_info.Cats.setRelayCatAndPage', { page: ids.p2, cats: [] });
    expect((await ok('network_info.Page.get', { Id: ids.p2, select: 'Id', joinCatRelay: 1 })).categoriesRelay).toEqual([]);
    // a category related to pages of its host cannot move to another host
    const move = await call('network_info.Cats.update', { Id: ids.c1, host: ids.h2 });
    expect([move.status, Object.keys(move.env.fields)]).toEqual([422, ['host']]);
    expect(await ok('network_info.Cats.update', { Id: ids.c3, title: 'Sonnets II' })).toMatchObject({ message: 'Update ok!' });
  });

  test('pages: host filter, newest first, paged by 20 with count', async () => {
    for (let i = 0; i < 23; i++) await ok('network_info.Page.insert', { host: ids.h2, title: `Poem ${String(i).padStart(2, '0')}` });
    const first = await ok('network_info.Page.get', { host: ids.h2, select: 'Id,title,host' });
    expect(first).toMatchObject({ count: 23, page: 1, limit: 20 });
    expect(first.list).toHaveLength(20);
    expect(first.list[0].title).toBe('Poem 22');
    expect(first.list.every((p: any) => p.host === ids.h2)).toBe(true);
    const second = await ok('network_info.Page.get', { host: ids.h2, select: 'title', p_: 2 });
    expect(second.list.map((p: any) => p.title)).toEqual(['Poem 02', 'Poem 01', 'Poem 00']);
    expect((await ok('network_info.Page.get', { host: ids.h2, p_: 9 })).list).toEqual([]);
    expect((await ok('network_info.Page.get', { host: ids.h1, select: 'Id' })).count).toBe(2);
    expect((await ok('network_info.Page.get', { select: 'Id' })).count).toBe(25);
    expect((await ok('network_info.Page.get', { Id: ids.p1, host: ids.h2 }).catch((e: Error) => e.message))).toMatch(/404/);
  });

  test('bad shapes: 422 naming the field', async () => {
    for (const [m, args, field] of [
      ['network_info.Page.get', { host: '0x17' }, 'host'],
      ['network_info.Page.get', { joinHosh: 2 }, 'joinHosh'],
      ['network_info.Page.get', { limit: 501 }, 'limit'],
      ['network_info.Page.get', { select: [5] }, 'select'],
      ['network_info.Page.insert', { host: true, title: 'x' }, 'host'],
      ['network_info.Page.insert', { host: ids.h1, title: ['x'] }, 'title'],
      ['network_info.Page.insert', { host: ids.h1, title: 'x', storage: -1 }, 'storage'],
      ['network_info.Page.insert', { host: ids.h1, title: 'x', categoriesRelay: 5 }, 'categoriesRelay'],
      ['network_info.Page.insert', { host: ids.h1, title: 'x', categoriesRelay: ['1e1'] }, 'categoriesRelay.0'],
      ['network_info.Page.update', { Id: null }, 'Id'],
      ['network_info.Cats.setRelayCatAndPage', { page: ids.p1, cats: [null] }, 'cats.0'],
      ['network_info.Host.update', { Id: ids.h1, domain: 'x\u200by.example' }, 'domain'],
    ] as const) {
      const r = await call(m, args);
      expect([m, r.status, Object.keys(r.env.fields ?? {})]).toEqual([m, 422, [field]]);
    }
    expect((await call('network_info.Page.get', 'x')).status).toBe(422);
  });

  test('writes are audited with their object', async () => {
    const list = await ok('audit.getList', { method: 'network_info.Page.update', limit: 50 });
    const entry = list.list.find((e: any) => e.outcome === 'ok');
    expect(entry.target).toMatch(new RegExp(`^network page .*\\(#${ids.p1}\\)$`));
    const hosts = await ok('audit.getList', { method: 'network_info.Host.insert', limit: 50 });
    expect(hosts.list.map((e: any) => e.target)).toContain(`network host books.example (#${ids.h1})`);
    const cats = await ok('audit.getList', { method: 'network_info.Cats.setRelayCatAndPage', limit: 50 });
    expect(cats.list.find((e: any) => e.outcome === 'ok').target).toMatch(/^network page Second page/);
  });

  test('GET /api/tpl/get_hosts: an admin session or a site token; nobody else', async () => {
    const expected = [
      { Id: ids.h1, name: 'Books', domain: 'books.example', code_in_storage: 'books.example' },
      { Id: ids.h2, name: 'Poems & verse', domain: 'poems.example', code_in_storage: 'poems_bucket' },
    ];
    const bySession = await tplHosts({ User: admin });
    expect([bySession.status, bySession.body]).toEqual([200, { status: 'ok', result: expected }]);
    const byToken = await tplHosts({ 'X-Site-Token': token });
    expect([byToken.status, byToken.body.result]).toEqual([200, expected]);
    expect((await tplHosts({ 'X-Site-Token': token, User: user })).status).toBe(200);

    const anon = await tplHosts({});
    expect([anon.status, anon.body.status]).toEqual([401, 'error']);
    expect((await tplHosts({ 'X-Site-Token': 'wrong' })).status).toBe(401);
    expect((await tplHosts({ User: 'not-a-session' })).status).toBe(401);
    expect((await tplHosts({ User: content })).status).toBe(403);
    expect((await tplHosts({ User: user })).status).toBe(403);
    expect((await tplHosts({ User: user, 'X-Site-Token': 'wrong' })).status).toBe(401);
    // a deactivated site's token stops working
    const sites = await ok<any[]>('stream.sites', {});
    const site = sites.find((s) => s.name === 'books.example');
    await ok('stream.siteSave', { Id: site.Id, active: 0 });
    expect((await tplHosts({ 'X-Site-Token': token })).status).toBe(401);
    await ok('stream.siteSave', { Id: site.Id, active: 1 });
    expect((await tplHosts({ 'X-Site-Token': token })).status).toBe(200);
  });
});
