/**
 * Search positions end to end (issue 23 "Search positions"; docs/position.md) on the real app and the
 * suite's database, against a local server speaking Yandex Search API v2 (test/helpers/fakes/yandex-search.ts):
 *
 * - the contract: saveProject {name, domain} -> {id_project}; saveQueries; checkNow; GET
 *   /api/position/project/query -> {list} with query_text and pos [{pos, date}] newest first: 3 for the
 *   domain third on page one (one request), 15 for fifth on page two (two requests), "not in the top 100"
 *   its own value (null with top 100, ten requests), no results (XML error 15) likewise;
 * - the adapter: the request body and the key only in `Authorization: Api-Key`; a 5xx retried then
 *   good; a 429 waited out (Retry-After) then good; no retry on 401; a malformed answer (bad XML, not
 *   JSON); each failure keeps the last position marked stale with its time and error, never 0;
 *   the 600 s answer cache (a second check sends nothing);
 * - projects with query counts and average position, top stats, edit/remove, bad input, roles;
 * - the job's tick (budget, next slots a day ahead), retention, `{configured: false}` without the key,
 *   and the key in no answer, audit row, cache row or log line.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { JsonLogger } from '../../src/core/logger.js';
import { YandexSearchClient } from '../../src/core/outside/yandex-search.client.js';
import { PositionCheckService } from '../../src/modules/position/position-check.service.js';
import { dayMinus, dayOf, tickBudget } from '../../src/modules/position/schedule.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { b64, serp, startFakeYandex, YANDEX_ROUTE, type FakeYandex } from '../helpers/fakes/yandex-search.js';
import { pass } from '../helpers/passes.js';

const T = 60_000;
const DOMAIN = 'my-site.example';

let fake: FakeYandex;
let t: TestApp;
let off: TestApp;
let admin: string;
let user: string;
const lines: string[] = [];
const answers: string[] = [];
const db = (a: TestApp) => a.app.get<DataSource>(getDataSourceToken());

beforeAll(async () => {
  fake = await startFakeYandex();
  fake.state.serps = {
    'buy books': serp(DOMAIN, 3),
    'cheap books': serp(DOMAIN, 15),
    'rare books': serp(DOMAIN, 0),
    'www books': serp(`www.${DOMAIN}`, 7),
    'sub books': serp(`blog.${DOMAIN}`, 1),
    solo: serp(DOMAIN, 2),
  };
  const logger = new JsonLogger('debug', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
  t = await startApp({ CRON_ENABLED: '0', TZ: 'UTC', YANDEX_SEARCH_URL: fake.url, YANDEX_SEARCH_API_KEY: fake.state.key, YANDEX_SEARCH_FOLDER_ID: fake.state.folderId }, { logger });
  t.app.get(YandexSearchClient).retry = { screen: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 30_000 }, job: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 30_000 } };
  off = await startApp({ CRON_ENABLED: '0', TZ: 'UTC' });
  admin = (await t.session(1)).hash;
  user = (await t.session(100)).hash;
}, T);

afterAll(async () => {
  await t?.close();
  await off?.close();
  await fake?.close();
});

const ok = async <R = any>(hash: string, method: string, args: unknown): Promise<R> => {
  const r = await t.ok<R>(hash, method, args);
  answers.push(JSON.stringify(r));
  return r;
};
const queries = async (id: number, extra = ''): Promise<any> => {
  const r = await t.rest<any>(admin, 'GET', `/position/project/query?id_project=${id}${extra}`);
  expect(r.status).toBe(200);
  answers.push(JSON.stringify(r.body));
  return r.body.result;
};
const byText = (list: any[], text: string) => list.find((q) => q.query_text === text);
const pagesAsked = (text: string) => fake.to(YANDEX_ROUTE).filter((r) => (r.json as any)?.query?.queryText === text).map((r) => (r.json as any).query.page);

describe(`search positions (${pass})`, () => {
  let id: number;
  let solo: number;
  let soloQuery: number;

  test('the contract: project, queries, check now, the list with pos newest first', async () => {
    const saved = await ok(admin, 'position.saveProject', { name: 'Books', domain: DOMAIN });
    expect(saved).toEqual({ id_project: expect.any(Number), message: 'Save ok!' });
    id = saved.id_project;
    const added = await ok(admin, 'position.saveQueries', { id_project: id, queries: ['buy books', 'cheap books', 'rare books', 'www books', 'sub books', 'no such query here', '  Buy   BOOKS '] });
    expect(added).toMatchObject({ added: 6, skipped: 1, message: 'Insert ok!' });
    fake.reset();
    const res = await ok(admin, 'position.checkNow', { id_project: id });
    expect(res).toMatchObject({ id_project: id, checked: 6, failed: 0, errors: [] });
    expect(res.requests).toBe(1 + 2 + 10 + 1 + 10 + 1);

    const r = await queries(id);
    const today = dayOf(Date.now());
    expect(r.list).toHaveLength(6);
    expect(byText(r.list, 'buy books')).toMatchObject({ query_text: 'buy books', pos: [{ pos: 3, date: today, top: 100, url: `https://${DOMAIN}/page` }], current: { pos: 3 }, stale: false, error: null });
    expect(byText(r.list, 'cheap books').pos[0]).toMatchObject({ pos: 15, date: today });
    // not in the top N is its own value (never 0), and so is "no results"
    expect(byText(r.list, 'rare books').pos[0]).toEqual({ pos: null, date: today, top: 100 });
    expect(byText(r.list, 'no such query here').pos[0]).toEqual({ pos: null, date: today, top: 100 });
    // www. is the same site; another subdomain is not
    expect(byText(r.list, 'www books').pos[0].pos).toBe(7);
    expect(byText(r.list, 'sub books').pos[0].pos).toBeNull();
    // one request per page: page one only for 3, two pages for 15, all ten for "not in the top 100"
    expect(pagesAsked('buy books')).toEqual([0]);
    expect(pagesAsked('cheap books')).toEqual([0, 1]);
    expect(pagesAsked('rare books')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pagesAsked('no such query here')).toEqual([0]);
  }, T);

  test('the request: the documented body, the key only in Authorization: Api-Key', async () => {
    const sent = fake.to(YANDEX_ROUTE);
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) {
      expect(r.headers.authorization).toBe(`Api-Key ${fake.state.key}`);
      expect(r.url).toBe('/v2/web/search');
      expect(r.body).not.toContain(fake.state.key);
    }
    expect(sent.find((r) => (r.json as any).query.queryText === 'cheap books' && (r.json as any).query.page === 1)!.json).toEqual({
      query: { searchType: 'SEARCH_TYPE_RU', queryText: 'cheap books', page: 1 },
      groupSpec: { groupMode: 'GROUP_MODE_DEEP', groupsOnPage: 10, docsInGroup: 1 },
      region: '213',
      folderId: fake.state.folderId,
      responseFormat: 'FORMAT_XML',
    });
  }, T);

  test('the answer cache: a second check within 600 s sends nothing and stores the same positions', async () => {
    fake.reset();
    const res = await ok(admin, 'position.checkNow', { id_project: id });
    expect(res).toMatchObject({ checked: 6, failed: 0, requests: 0 });
    expect(fake.requests).toHaveLength(0);
    expect(byText((await queries(id)).list, 'buy books').pos[0].pos).toBe(3);
  }, T);

  test('history is per day, newest first, with the change and the sparkline days', async () => {
    const r0 = await queries(id);
    const q = byText(r0.list, 'buy books');
    const y1 = dayMinus(Date.now(), 1);
    const y2 = dayMinus(Date.now(), 2);
    const old = dayMinus(Date.now(), 200);
    for (const [day, pos] of [[y1, 5], [y2, 8], [old, 40]] as const) {
      await db(t).query('INSERT INTO position_history (id_query, day, id_project, pos, top, url, checked_at) VALUES (?, ?, ?, ?, 100, ?, 0)', [q.id_query, day, id, pos, '']);
    }
    const r = byText((await queries(id)).list, 'buy books');
    expect(r.pos.map((p: any) => [p.date, p.pos])).toEqual([[dayOf(Date.now()), 3], [y1, 5], [y2, 8]]); // 120 days by default: the 200-day-old point is not answered
    expect(r.change).toBe(2); // 5 -> 3: moved up two places
    const all = byText((await queries(id, '&days=365')).list, 'buy books');
    expect(all.pos.map((p: any) => p.pos)).toEqual([3, 5, 8, 40]);
  }, T);

  test('a failed check keeps the last position, marked stale with time and error: 5xx, 429, 401, malformed', async () => {
    solo = (await ok(admin, 'position.saveProject', { name: 'Solo', domain: `https://${DOMAIN}/some/page` })).id_project;
    soloQuery = (await ok(admin, 'position.saveQueries', { id_project: solo, queries: 'solo' })) && (await queries(solo)).list[0].id_query;
    expect((await queries(solo)).project.domain).toBe(DOMAIN);
    const cache = async () => db(t).query("DELETE FROM outside_cache WHERE service = 'yandex-search'");
    await ok(admin, 'position.checkNow', { id_project: solo });
    expect((await queries(solo)).list[0].pos[0].pos).toBe(2);

    // a 5xx retried, then good
    await cache();
    fake.reset();
    fake.script(YANDEX_ROUTE, { status: 503, body: { code: 14, message: 'Service unavailable' } });
    expect(await ok(admin, 'position.checkNow', { id_project: solo })).toMatchObject({ checked: 1, failed: 0 });
    expect(fake.requests).toHaveLength(2);

    // a 429 waited out (Retry-After 1 s), then good
    await cache();
    fake.reset();
    fake.script(YANDEX_ROUTE, { status: 429, retryAfter: 1, body: { code: 8, message: 'Resource exhausted' } });
    const started = Date.now();
    expect(await ok(admin, 'position.checkNow', { id_project: solo })).toMatchObject({ checked: 1, failed: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(950);

    const expectStale = async (fragment: string) => {
      const q = (await queries(solo)).list[0];
      expect(q).toMatchObject({ stale: true, current: { pos: 2 }, pos: [{ pos: 2 }] });
      expect(q.error).toContain(fragment);
      expect(Date.parse(q.stale_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(q.error).not.toContain(fake.state.key);
    };

    // 5xx every time: three tries, then stale
    await cache();
    fake.reset();
    fake.script(YANDEX_ROUTE, ...Array.from({ length: 3 }, () => ({ status: 500, body: { code: 13, message: 'Internal error' } })));
    expect(await ok(admin, 'position.checkNow', { id_project: solo })).toMatchObject({ checked: 0, failed: 1, errors: [expect.stringContaining('answered 500: Internal error (code 13)')] });
    expect(fake.requests).toHaveLength(3);
    await expectStale('answered 500');

    // 401: never retried
    fake.reset();
    fake.script(YANDEX_ROUTE, { status: 401, body: { code: 16, message: 'Unauthenticated' } });
    expect(await ok(admin, 'position.checkNow', { id_project: solo })).toMatchObject({ failed: 1 });
    expect(fake.requests).toHaveLength(1);
    await expectStale('answered 401: Unauthenticated (code 16)');

    // malformed: XML cut short, a DOCTYPE, not JSON, no rawData
    for (const [body, says] of [
      [{ rawData: b64('<?xml version="1.0"?><yandexsearch><response><results><grouping><group>') }, 'unexpected answer'],
      [{ rawData: b64('<!DOCTYPE x [<!ENTITY a "b">]><yandexsearch/>') }, 'DOCTYPE'],
      ['<html>oops</html>', 'no JSON'],
      [{ result: 'x' }, 'rawData'],
    ] as const) {
      fake.reset();
      fake.script(YANDEX_ROUTE, { body: body as never });
      expect(await ok(admin, 'position.checkNow', { id_project: solo })).toMatchObject({ checked: 0, failed: 1 });
      expect(fake.requests).toHaveLength(1);
      await expectStale(says);
    }

    // the engine's own XML error (not "no results")
    fake.reset();
    fake.script(YANDEX_ROUTE, { body: { rawData: b64('<yandexsearch version="1.0"><response><error code="55">Request limit exceeded</error></response></yandexsearch>') } });
    await ok(admin, 'position.checkNow', { id_project: solo });
    await expectStale('error 55: Request limit exceeded');

    // the project list counts it stale; a good check clears the mark
    expect((await t.rest<any>(admin, 'GET', '/position/projects')).body.result.list.find((p: any) => p.id_project === solo)).toMatchObject({ queries: 1, stale: 1, avg_pos: 2 });
    fake.state.serps.solo = serp(DOMAIN, 4);
    await ok(admin, 'position.checkNow', { id_project: solo });
    expect((await queries(solo)).list[0]).toMatchObject({ stale: false, stale_at: null, error: null, current: { pos: 4 } });
    expect(soloQuery).toBeGreaterThan(0);
  }, T);

  test('projects with query counts and average position; top stats; one query for the dialog', async () => {
    const list = (await t.rest<any>(user, 'GET', '/position/projects')).body.result;
    expect(list.configured).toBe(true);
    const p = list.list.find((x: any) => x.id_project === id);
    // found: 3, 15, 7 -> 8.3
    expect(p).toMatchObject({ name: 'Books', domain: DOMAIN, engine: 'yandex', region: 213, schedule_hours: 24, depth: 100, queries: 6, found: 3, avg_pos: 8.3, stale: 0 });
    const top = (await t.rest<any>(user, 'GET', `/position/project/top?id_project=${id}`)).body.result;
    expect(top).toMatchObject({ id_project: id, days: 30, top: 10 });
    expect(top.series.map((s: any) => s.query_text)).toEqual(['www books', 'cheap books', 'buy books'].sort((a, b) => avgOf(top, a) - avgOf(top, b)));
    expect(top.series.find((s: any) => s.query_text === 'buy books').data.map((d: any) => d.pos)).toEqual([8, 5, 3]);
    const one = await t.ok(user, 'position.getQueries', { id_project: id, id_query: byText((await queries(id)).list, 'cheap books').id_query });
    expect(one.list).toHaveLength(1);
    expect(one.list[0].query_text).toBe('cheap books');
    expect((await t.rpc(user, 'position.getQueries', { id_project: id, id_query: 999999 })).env).toMatchObject({ status: 'empty', message: 'Query not found' });
  }, T);

  test('paging 20 a page with p_', async () => {
    const big = (await ok(admin, 'position.saveProject', { name: 'Many', domain: 'many.example' })).id_project;
    await ok(admin, 'position.saveQueries', { id_project: big, queries: Array.from({ length: 45 }, (_, i) => `q ${i + 1}`).join('\n'), cat_id: 7 });
    const p1 = await queries(big);
    expect(p1).toMatchObject({ count: 45, page: 1, limit: 20 });
    expect(p1.list).toHaveLength(20);
    expect(p1.list[0]).toMatchObject({ query_text: 'q 1', cat_id: 7, current: null, pos: [], checked: null, stale: false });
    const p3 = await queries(big, '&p_=3');
    expect(p3.list.map((q: any) => q.query_text)).toEqual(['q 41', 'q 42', 'q 43', 'q 44', 'q 45']);
  }, T);

  test('edit and remove; bad input answers 422 naming the field; roles', async () => {
    const e = await ok(admin, 'position.saveProject', { id_project: solo, name: 'Solo 2', domain: DOMAIN, region: 2, schedule_hours: 12, depth: 50 });
    expect(e.id_project).toBe(solo);
    expect((await queries(solo)).project).toMatchObject({ name: 'Solo 2', region: 2, schedule_hours: 12, depth: 50 });
    const q = (await queries(solo)).list[0];
    expect(await ok(admin, 'position.updateQuery', { id_query: q.id_query, cat_id: 3 })).toEqual({ message: 'Update ok!' });
    expect((await queries(solo)).list[0].cat_id).toBe(3);

    const bad = async (m: string, a: unknown) => (await t.rpc(admin, m, a)).env as any;
    expect(await bad('position.saveProject', { name: '', domain: 'not a host' })).toMatchObject({ status: 'rules', fields: { name: 'Name is required', domain: expect.stringContaining('host name') } });
    expect(await bad('position.saveProject', { name: 'a', domain: 'a.example', depth: 5000 })).toMatchObject({ status: 'rules', fields: { depth: 'Depth is at most 250' } });
    expect(await bad('position.saveProject', { name: 'a', domain: 'a.example', schedule_hours: 5 })).toMatchObject({ status: 'rules' });
    expect(await bad('position.saveQueries', { id_project: solo, queries: '  \n ' })).toMatchObject({ status: 'rules', message: expect.stringContaining('No queries') });
    expect(await bad('position.saveQueries', { id_project: solo, queries: [1, 2] })).toMatchObject({ status: 'rules' });
    expect(await bad('position.saveQueries', { id_project: 999999, queries: 'x' })).toMatchObject({ status: 'empty', message: 'Project not found' });
    expect((await t.rest<any>(admin, 'GET', '/position/project/query')).status).toBe(422);
    expect((await t.rest<any>(admin, 'GET', '/position/project/query?id_project=abc')).status).toBe(422);

    // role 100 reads, does not edit or spend the quota; no session: 401
    expect((await t.rpc(user, 'position.saveProject', { name: 'x', domain: 'x.example' })).status).toBe(403);
    expect((await t.rpc(user, 'position.checkNow', { id_project: solo })).status).toBe(403);
    expect((await t.rest(null, 'GET', '/position/projects')).status).toBe(401);
    const ten = (await t.session(10)).hash;
    expect((await t.rpc(ten, 'position.updateQuery', { id_query: q.id_query, cat_id: 4 })).env.status).toBe('ok');

    expect(await ok(admin, 'position.removeQuery', { id_query: q.id_query })).toEqual({ message: 'Delete ok!' });
    expect(await ok(admin, 'position.removeProject', { id_project: solo })).toEqual({ message: 'Delete ok!' });
    expect((await t.rest<any>(admin, 'GET', `/position/project/query?id_project=${solo}`)).status).toBe(404);
    expect(Number((await db(t).query('SELECT COUNT(*) AS n FROM position_history WHERE id_project = ?', [solo]))[0].n)).toBe(0);
  }, T);

  test('the job tick: due queries within the budget, next slots within the period; retention', async () => {
    const checks = t.app.get(PositionCheckService);
    const p = (await ok(admin, 'position.saveProject', { name: 'Job', domain: DOMAIN, depth: 20 })).id_project;
    fake.state.serps['job a'] = serp(DOMAIN, 1);
    fake.state.serps['job b'] = serp(DOMAIN, 12);
    await ok(admin, 'position.saveQueries', { id_project: p, queries: ['job a', 'job b'] });
    // only this project's queries are due
    await db(t).query('UPDATE position_queries SET next_check_at = ? WHERE id_project <> ?', [Date.now() + 3_600_000, p]);
    const now = Date.now();
    const r = await checks.tick(now);
    expect(r).toMatchObject({ checked: 2, failed: 0, budget: tickBudget({ perSecond: 10, perHour: 10_000 }) });
    const rows = (await db(t).query('SELECT query_text, pos, next_check_at FROM position_queries WHERE id_project = ? ORDER BY id_query', [p])) as any[];
    expect(rows.map((x) => x.pos)).toEqual([1, 12]);
    for (const x of rows) {
      expect(Number(x.next_check_at)).toBeGreaterThan(now + 12 * 3_600_000);
      expect(Number(x.next_check_at)).toBeLessThanOrEqual(now + 36 * 3_600_000 + 60_000);
    }
    // check now on a project larger than its limit: the first ones now, the others due for the job at once
    checks.checkNowMax = 1;
    try {
      const c = await ok(admin, 'position.checkNow', { id_project: p });
      expect(c).toMatchObject({ checked: 1, queued: 1 });
      const due = (await db(t).query('SELECT next_check_at FROM position_queries WHERE id_project = ? ORDER BY id_query', [p])) as any[];
      expect(due.map((x) => Number(x.next_check_at) === 0)).toEqual([false, true]);
      expect(await checks.tick(Date.now())).toMatchObject({ checked: 1 });
    } finally {
      checks.checkNowMax = 300;
    }
    // nothing due: the next tick sends nothing
    fake.reset();
    expect(await checks.tick(Date.now())).toMatchObject({ checked: 0, requests: 0 });
    expect(fake.requests).toHaveLength(0);
    // retention: history older than POSITION_RETENTION_DAYS (400) goes
    const q = (await db(t).query('SELECT id_query FROM position_queries WHERE id_project = ? ORDER BY id_query', [p]))[0].id_query;
    await db(t).query('INSERT INTO position_history (id_query, day, id_project, pos, top, url, checked_at) VALUES (?, ?, ?, 9, 20, ?, 0)', [q, dayMinus(Date.now(), 401), p, '']);
    expect(await checks.retention()).toBe(1);
    expect(Number((await db(t).query('SELECT COUNT(*) AS n FROM position_history WHERE id_query = ?', [q]))[0].n)).toBe(1);
    const status = await ok(user, 'position.getStatus', {});
    expect(status).toMatchObject({ configured: true, engines: [{ engine: 'yandex', configured: true, per_second: 10, per_hour: 10_000, page_size: 10 }], retention_days: 400 });
  }, T);

  test('without the key: {configured: false}, the screens still read', async () => {
    const a = (await off.session(1)).hash;
    const { id_project } = await off.ok(a, 'position.saveProject', { name: 'Off', domain: DOMAIN });
    await off.ok(a, 'position.saveQueries', { id_project, queries: 'x' });
    expect(await off.ok(a, 'position.checkNow', { id_project })).toEqual({ configured: false });
    expect((await off.rest<any>(a, 'GET', `/position/project/query?id_project=${id_project}`)).body.result).toMatchObject({ configured: false, count: 1 });
    expect((await off.ok<any[]>(a, 'outside.getServices', {})).find((s) => s.service === 'yandex-search')).toMatchObject({ configured: false, credential: 'not set' });
  }, T);

  test('the key is in no answer, audit row, cache row or log line', async () => {
    const key = fake.state.key;
    const services = await ok<any[]>(admin, 'outside.getServices', {});
    expect(services.find((x) => x.service === 'yandex-search')).toMatchObject({ configured: true, credential: 'set', target: fake.url });
    answers.push(JSON.stringify(await ok(admin, 'worker.getList', {})));
    expect(answers.join('\n')).not.toContain(key);
    for (const table of ['audit_log', 'outside_cache', 'position_queries', 'position_history', 'position_projects', 'workers']) {
      expect(JSON.stringify(await db(t).query(`SELECT * FROM ${table}`))).not.toContain(key);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(key);
  }, T);
});

function avgOf(top: any, text: string): number {
  const d = top.series.find((s: any) => s.query_text === text).data.filter((x: any) => x.pos !== null);
  return d.reduce((a: number, x: any) => a + x.pos, 0) / d.length;
}
