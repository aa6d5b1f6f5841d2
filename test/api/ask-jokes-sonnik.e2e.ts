/**
 * Q&A, joke categories and sonnik (issue 19) end to end on the real app and database (SQLite, or
 * MariaDB with TEST_DATABASE_URL): GET /ask/list, GET /ask/get/{Id}, POST /ask/set (one transaction);
 * GET /jokes/cat/list, GET /jokes/cat/get/{cid}, POST /jokes/cat/update/{cid}; sonnik.getCat,
 * sonnik.getPosts, sonnik.updateCat; content.import of joke_cats, sonnik_cats and sonnik_posts. Roles,
 * refusals, and a list of known XSS payloads sent through every rich-text write, none of which may
 * survive in what the reads answer.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { askJokesSonnikSeeder } from '../../src/seed/ask-jokes-sonnik.seed.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: string;
let content: string;
let user: string;
const db = () => (process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite');

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  content = (await t.session(10)).hash;
  user = (await t.session(100)).hash;
});
afterAll(async () => { await t?.close(); });

const load = (entity: string, rows: unknown[], allOrNone = false) => t.ok(admin, 'content.import', { entity, rows, ...(allOrNone ? { all_or_none: 1 } : {}) });

/** Known XSS payloads (OWASP filter-evasion cheat sheet and friends), each wrapped in harmless text. */
const XSS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/x.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="x" ONERROR="alert(1)">',
  '<img src="https://ok.example/a.png" onload="alert(1)">',
  '<body onload=alert(1)>',
  '<p onclick="alert(1)" onmouseover=alert(2)>hover</p>',
  '<a href="javascript:alert(1)">j</a>',
  '<a href="JaVaScRiPt:alert(1)">j</a>',
  '<a href=" javascript:alert(1)">j</a>',
  '<a href="jav&#x09;ascript:alert(1)">j</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">j</a>',
  '<a href="&#x6A;avascript&#x3A;alert(1)">j</a>',
  '<a href="vbscript:msgbox(1)">v</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<svg onload=alert(1)><circle r="1"/></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><script>alert(1)</script></mtext></math>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="https://evil.example/x.swf">',
  '<p style="background:url(javascript:alert(1))">s</p>',
  '<div style="width: expression(alert(1))">e</div>',
  '<style>@import "https://evil.example/x.css";</style>',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="https://evil.example/">',
  '<form action="javascript:alert(1)"><button formaction="javascript:alert(2)">b</button></form>',
  '<input onfocus=alert(1) autofocus>',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<a href="https://ok.example" target="_blank" onclick="alert(1)">new tab</a>',
  '<a href="//evil.example/x">protocol-relative</a>',
];
/** What none of the stored HTML may hold after sanitising. */
const DANGER: RegExp[] = [
  /<\s*script/i, /<\s*(iframe|object|embed|svg|math|style|link|meta|base|form|input|button|details|video|source|body)\b/i,
  /\son[a-z]+\s*=/i, /javascript\s*:/i, /vbscript\s*:/i, /data\s*:/i, /\sstyle\s*=/i, /expression\s*\(/i, /srcdoc/i, /formaction/i,
  /href="\/\//i,
];
/** Numeric character references decoded and white space / control characters dropped, as a browser reads a URL. */
const squeeze = (html: string) => html
  .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
  .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
  .replace(/[\s\u0000-\u001f]+/g, '');
const SCHEMES = [/javascript:/i, /vbscript:/i, /data:/i];
const survivors = (html: string) => [...DANGER.filter((re) => re.test(html)), ...SCHEMES.filter((re) => re.test(squeeze(html)))].map(String);
const payloadBody = (p: string, i: number) => `<p>before ${i}</p>${p}<p>after ${i}</p>`;

test('every payload is caught by the checks as sent (so a write that stored it as is would fail)', () => {
  expect(XSS.filter((p) => survivors(p).length === 0)).toEqual([]);
});

describe(`Q&A (${db()})`, () => {
  let askId: number;

  test('POST /ask/set creates a question with its answers and answers the Id; GET /ask/get/{Id}?joinAnswer=1 answers {Id, question, answer: [{Id, answer}]}', async () => {
    const body = { ask: { question: 'Как выбрать книгу?\nИ где её читать?' }, answer: [{ answer: 'По жанру' }, { answer: 'По автору' }, { answer: 'По отзывам' }], del_list: [] };
    expect((await t.rest(null, 'POST', '/ask/set', body)).status).toBe(401);
    expect((await t.rest(user, 'POST', '/ask/set', body)).status).toBe(403);
    const r = await t.rest<any>(content, 'POST', '/ask/set', body);
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ Id: expect.any(Number), message: 'Save ok!' });
    askId = r.body.result.Id;
    const got = await t.rest<any>(user, 'GET', `/ask/get/${askId}?joinAnswer=1`);
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual({
      Id: askId, question: 'Как выбрать книгу?\nИ где её читать?',
      answer: [{ Id: expect.any(Number), answer: 'По жанру' }, { Id: expect.any(Number), answer: 'По автору' }, { Id: expect.any(Number), answer: 'По отзывам' }],
    });
    expect((await t.rest<any>(user, 'GET', `/ask/get/${askId}`)).body.result).toEqual({ Id: askId, question: 'Как выбрать книгу?\nИ где её читать?' });
    expect((await t.rest<any>(user, 'GET', '/ask/get/999999')).body).toMatchObject({ status: 'empty', message: 'Ask not found' });
    expect((await t.rest(user, 'GET', '/ask/get/abc')).status).toBe(422);
  });

  test('POST /ask/set with Id: changes, adds, and deletes answers marked del or named in del_list, in one save', async () => {
    const before = (await t.rest<any>(user, 'GET', `/ask/get/${askId}?joinAnswer=1`)).body.result.answer;
    const [a1, a2, a3] = before.map((x: any) => x.Id);
    const r = await t.rest<any>(content, 'POST', '/ask/set', {
      ask: { Id: askId, question: 'Как выбрать книгу?' },
      answer: [{ Id: a1, answer: 'По жанру и настроению' }, { Id: a2, answer: 'По автору', del: 1 }, { Id: a3, answer: 'По отзывам' }, { answer: 'По совету друга' }, { answer: '', del: true }],
      del_list: [a3],
    });
    expect(r.body.result).toMatchObject({ Id: askId });
    const after = (await t.rest<any>(user, 'GET', `/ask/get/${askId}?joinAnswer=1`)).body.result;
    expect(after.question).toBe('Как выбрать книгу?');
    expect(after.answer.map((x: any) => x.answer)).toEqual(['По жанру и настроению', 'По совету друга']);
    expect(after.answer[0].Id).toBe(a1);
  });

  test('refusals: question and answers required, foreign answer ids refused and the whole save rolled back, unknown Id', async () => {
    const q = await t.rest<any>(content, 'POST', '/ask/set', { ask: { question: '  ' }, answer: [] });
    expect(q.status).toBe(422);
    expect(q.body.fields).toMatchObject({ 'ask.question': 'question is required' });
    const a = await t.rest<any>(content, 'POST', '/ask/set', { ask: { question: 'Q' }, answer: [{ answer: 'ok' }, { answer: '' }] });
    expect(a.status).toBe(422);
    expect(a.body.fields).toMatchObject({ 'answer.1.answer': 'answer is required' });
    expect((await t.rest(content, 'POST', '/ask/set', { answer: [] })).status).toBe(422);
    expect((await t.rest(content, 'POST', '/ask/set', { ask: { question: 'Q' }, answer: 'x' })).status).toBe(422);
    // An answer of another question: refused, and the question's own change is not kept either.
    const other = (await t.rest<any>(content, 'POST', '/ask/set', { ask: { question: 'Другой вопрос' }, answer: [{ answer: 'чужой ответ' }] })).body.result.Id;
    const foreign = (await t.rest<any>(user, 'GET', `/ask/get/${other}?joinAnswer=1`)).body.result.answer[0].Id;
    const f1 = await t.rest<any>(content, 'POST', '/ask/set', { ask: { Id: askId, question: 'CHANGED' }, answer: [{ Id: foreign, answer: 'hijack' }] });
    expect(f1.status).toBe(422);
    const f2 = await t.rest<any>(content, 'POST', '/ask/set', { ask: { Id: askId, question: 'CHANGED' }, answer: [{ answer: 'new one' }], del_list: [foreign] });
    expect(f2.status).toBe(422);
    expect(f2.body.message).toBe(`answer ${foreign} does not belong to this question`);
    const still = (await t.rest<any>(user, 'GET', `/ask/get/${askId}?joinAnswer=1`)).body.result;
    expect(still.question).toBe('Как выбрать книгу?');
    expect(still.answer).toHaveLength(2);
    expect((await t.rest<any>(user, 'GET', `/ask/get/${other}?joinAnswer=1`)).body.result.answer).toEqual([{ Id: foreign, answer: 'чужой ответ' }]);
    expect((await t.rest<any>(content, 'POST', '/ask/set', { ask: { Id: 999999, question: 'x' } })).status).toBe(404);
  });

  test('GET /ask/list: 20 per page, newest first, with the count and each question\'s answer count', async () => {
    for (let i = 0; i < 21; i++) await t.rest(content, 'POST', '/ask/set', { ask: { question: `Вопрос ${i}` } });
    const p1 = await t.rest<any>(user, 'GET', '/ask/list');
    expect(p1.status).toBe(200);
    expect(p1.body.result).toMatchObject({ count: 23, page: 1, limit: 20 });
    expect(p1.body.result.list).toHaveLength(20);
    expect(p1.body.result.list[0]).toEqual({ Id: expect.any(Number), question: 'Вопрос 20', answers: 0 });
    const p2 = (await t.rest<any>(user, 'GET', '/ask/list?page=2')).body.result;
    expect(p2.list.map((x: any) => x.question)).toEqual(['Вопрос 0', 'Другой вопрос', 'Как выбрать книгу?']);
    expect(p2.list[2].answers).toBe(2);
    expect((await t.rest<any>(user, 'GET', '/ask/list?page=2&getCount=0')).body.result.count).toBeUndefined();
    expect((await t.rest(user, 'GET', '/ask/list?limit=1000')).status).toBe(422);
    expect((await t.rest(null, 'GET', '/ask/list')).status).toBe(401);
  });
});

describe(`joke categories (${db()})`, () => {
  test('content.import joke_cats creates them (key cid); GET /jokes/cat/list 15 per page; GET /jokes/cat/get/{cid}; role 10', async () => {
    const rows = Array.from({ length: 17 }, (_, i) => ({ cid: 101 + i, title: `Шутки ${i}`, meta_title: `MT ${i}`, meta_h1: `H1 ${i}`, meta_description: `MD ${i}`, cat_body: `<p>Тело ${i}</p>` }));
    expect(await load('joke_cats', rows)).toEqual({ inserted: 17, updated: 0, refused: [] });
    const p1 = await t.rest<any>(content, 'GET', '/jokes/cat/list');
    expect(p1.body.result).toMatchObject({ count: 17, page: 1, limit: 15 });
    expect(p1.body.result.list).toHaveLength(15);
    expect(p1.body.result.list[0]).toEqual({ cid: 101, title: 'Шутки 0', meta_title: 'MT 0', meta_h1: 'H1 0', body_length: '<p>Тело 0</p>'.length });
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/list?page=2')).body.result.list.map((c: any) => c.cid)).toEqual([116, 117]);
    const one = await t.rest<any>(content, 'GET', '/jokes/cat/get/103');
    expect(one.body.result).toEqual({ cid: 103, title: 'Шутки 2', meta_title: 'MT 2', meta_h1: 'H1 2', meta_description: 'MD 2', cat_body: '<p>Тело 2</p>' });
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/999')).body).toMatchObject({ status: 'empty', message: 'Joke category not found' });
    expect((await t.rest(user, 'GET', '/jokes/cat/list')).status).toBe(403);
    expect((await t.rest(user, 'GET', '/jokes/cat/get/103')).status).toBe(403);
    expect((await t.rest(user, 'POST', '/jokes/cat/update/103', { title: 'x' })).status).toBe(403);
  });

  test('POST /jokes/cat/update/{cid}: "Update success"; name, meta title and H1 required; cid must match', async () => {
    const r = await t.rest<any>(content, 'POST', '/jokes/cat/update/104', { cid: 104, title: 'Про котов', meta_title: 'Шутки про котов', meta_h1: 'Коты', meta_description: 'Смешно', cat_body: '<h2>Коты</h2><p><strong>жирный</strong> и <em>курсив</em></p>' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ cid: 104, message: 'Update success' });
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/104')).body.result).toEqual({
      cid: 104, title: 'Про котов', meta_title: 'Шутки про котов', meta_h1: 'Коты', meta_description: 'Смешно', cat_body: '<h2>Коты</h2><p><strong>жирный</strong> и <em>курсив</em></p>',
    });
    for (const f of ['title', 'meta_title', 'meta_h1']) {
      const bad = await t.rest<any>(content, 'POST', '/jokes/cat/update/104', { [f]: ' ' });
      expect(bad.status).toBe(422);
      expect(bad.body.fields).toEqual({ [f]: `${f} is required` });
    }
    expect((await t.rest(content, 'POST', '/jokes/cat/update/104', { cid: 105, title: 'x' })).status).toBe(422);
    expect((await t.rest(content, 'POST', '/jokes/cat/update/999', { title: 'x' })).status).toBe(404);
    expect((await t.rest(content, 'POST', '/jokes/cat/update/abc', { title: 'x' })).status).toBe(422);
    expect((await t.rest(content, 'POST', '/jokes/cat/update/104', { cat_body: 5 })).status).toBe(422);
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/104')).body.result.title).toBe('Про котов');
  });

  test('XSS: no known payload survives POST /jokes/cat/update/{cid} in what GET /jokes/cat/get/{cid} answers', async () => {
    const bad: string[] = [];
    for (const [i, p] of XSS.entries()) {
      const r = await t.rest<any>(content, 'POST', '/jokes/cat/update/105', { cat_body: payloadBody(p, i) });
      expect(r.status).toBe(200);
      const stored: string = (await t.rest<any>(content, 'GET', '/jokes/cat/get/105')).body.result.cat_body;
      expect(stored).toContain(`<p>before ${i}</p>`);
      expect(stored).toContain(`<p>after ${i}</p>`);
      if (survivors(stored).length) bad.push(`${p} -> ${stored}`);
      if (i === 0) expect(r.body.result.cat.cat_body).toBe(stored);
    }
    expect(bad).toEqual([]);
    // Allowed formatting stays; a new-tab link gets rel=noopener.
    await t.rest(content, 'POST', '/jokes/cat/update/105', { cat_body: '<p><a href="https://ok.example" target="_blank">x</a> <u>u</u> <s>s</s></p><ul><li>1</li></ul>' });
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/105')).body.result.cat_body)
      .toBe('<p><a href="https://ok.example" target="_blank" rel="noopener noreferrer">x</a> <u>u</u> <s>s</s></p><ul><li>1</li></ul>');
  });

  test('content.import joke_cats: validated like the editor, sanitised, the last row for a cid wins', async () => {
    const r = await load('joke_cats', [
      { cid: 201, title: 'Новая', meta_title: 'MT', meta_h1: 'H1', cat_body: '<p>first</p><script>alert(1)</script>' },
      { cid: 202, title: '', meta_title: 'MT', meta_h1: 'H1' },
      { cid: 'x', title: 'T' },
      { cid: 201, cat_body: '<p onclick="x()">second</p><img src=x onerror=alert(1)>' },
    ]);
    expect(r).toMatchObject({ inserted: 1, updated: 1 });
    expect(r.refused.map((x: any) => x.row)).toEqual([2, 3]);
    expect(r.refused[0].message).toBe('title: title is required');
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/201')).body.result).toMatchObject({ title: 'Новая', cat_body: '<p>second</p><img src="x" />' });
    const bad: string[] = [];
    const rows = XSS.map((p, i) => ({ cid: 300 + i, title: `X${i}`, meta_title: 'm', meta_h1: 'h', cat_body: payloadBody(p, i) }));
    expect((await load('joke_cats', rows)).inserted).toBe(XSS.length);
    for (const [i] of XSS.entries()) {
      const stored: string = (await t.rest<any>(content, 'GET', `/jokes/cat/get/${300 + i}`)).body.result.cat_body;
      if (survivors(stored).length || !stored.includes(`after ${i}`)) bad.push(`${XSS[i]} -> ${stored}`);
    }
    expect(bad).toEqual([]);
  });
});

describe(`sonnik (${db()})`, () => {
  test('content.import sonnik_cats and sonnik_posts; sonnik.getCat list (20 per page, body length, posts, letters) and one; sonnik.getPosts 20 per page', async () => {
    const cats = Array.from({ length: 23 }, (_, i) => ({ Id: 1 + i, letter: i < 3 ? 'А' : 'Б', uri: `son-${i + 1}`, name: `Сон ${i + 1}`, body: `<p>${'х'.repeat(i)}</p>` }));
    expect(await load('sonnik_cats', cats)).toEqual({ inserted: 23, updated: 0, refused: [] });
    const posts = Array.from({ length: 25 }, (_, i) => ({ Id: 1000 + i, Id_cat: 1, views: i * 10, title: `К чему снится ${i}`, title_ai: `AI ${i}` }));
    expect(await load('sonnik_posts', [...posts, { Id: 2000, Id_cat: 2, title: 'другой' }])).toEqual({ inserted: 26, updated: 0, refused: [] });
    const p1 = await t.ok(content, 'sonnik.getCat', {});
    expect(p1).toMatchObject({ count: 23, page: 1, limit: 20, letters: [{ letter: 'А', cats: 3 }, { letter: 'Б', cats: 20 }] });
    expect(p1.list).toHaveLength(20);
    expect(p1.list[0]).toEqual({ Id: 1, letter: 'А', uri: 'son-1', name: 'Сон 1', body_length: 7, posts: 25 });
    expect(p1.list[5].body_length).toBe(12); // characters, not bytes (х is two bytes in UTF-8)
    expect((await t.ok(content, 'sonnik.getCat', { p_: 2 })).list.map((c: any) => c.Id)).toEqual([21, 22, 23]);
    expect((await t.ok(content, 'sonnik.getCat', { letter: 'А' })).count).toBe(3);
    expect(await t.ok(content, 'sonnik.getCat', { Id: 2 })).toEqual({ Id: 2, letter: 'А', uri: 'son-2', name: 'Сон 2', body: '<p>х</p>' });
    expect((await t.rpc(content, 'sonnik.getCat', { Id: 999 })).env).toMatchObject({ status: 'empty', message: 'Sonnik category not found' });
    const posts1 = await t.ok(content, 'sonnik.getPosts', { Id_cat: 1 });
    expect(posts1).toMatchObject({ count: 25, page: 1, limit: 20 });
    expect(posts1.list[0]).toEqual({ Id: 1000, Id_cat: 1, views: 0, title: 'К чему снится 0', title_ai: 'AI 0' });
    expect((await t.ok(content, 'sonnik.getPosts', { Id_cat: 1, p_: 2 })).list.map((p: any) => p.Id)).toEqual([1020, 1021, 1022, 1023, 1024]);
    expect((await t.ok(content, 'sonnik.getPosts', { Id_cat: 5 })).count).toBe(0);
    for (const m of ['sonnik.getCat', 'sonnik.getPosts', 'sonnik.updateCat']) expect((await t.rpc(user, m, { Id: 1, Id_cat: 1 })).status).toBe(403);
    expect((await t.rpc(content, 'sonnik.getPosts', {})).env).toMatchObject({ code: 422 });
  });

  test("sonnik.updateCat: letter, uri, name, body; 'Commit Ok'; refusals", async () => {
    const r = await t.ok(content, 'sonnik.updateCat', { Id: 3, letter: 'В', uri: 'voda', name: 'Вода', body: '<p><strong>Вода</strong> во сне</p>' });
    expect(r).toMatchObject({ Id: 3, message: 'Commit Ok' });
    expect(await t.ok(content, 'sonnik.getCat', { Id: 3 })).toEqual({ Id: 3, letter: 'В', uri: 'voda', name: 'Вода', body: '<p><strong>Вода</strong> во сне</p>' });
    expect((await t.rpc(content, 'sonnik.updateCat', { Id: 3, name: '' })).env).toMatchObject({ code: 422, fields: { name: 'name is required' } });
    expect((await t.rpc(content, 'sonnik.updateCat', { Id: 3, uri: 'javascript:alert(1)' })).env).toMatchObject({ code: 422 });
    expect((await t.rpc(content, 'sonnik.updateCat', { Id: 3, uri: 'a b' })).env).toMatchObject({ code: 422 });
    expect((await t.rpc(content, 'sonnik.updateCat', { Id: 999, name: 'x' })).env).toMatchObject({ code: 404 });
    expect((await t.ok(content, 'sonnik.getCat', { Id: 3 })).name).toBe('Вода');
  });

  test('XSS: no known payload survives sonnik.updateCat or the sonnik_cats import in what sonnik.getCat answers', async () => {
    const bad: string[] = [];
    for (const [i, p] of XSS.entries()) {
      await t.ok(content, 'sonnik.updateCat', { Id: 4, body: payloadBody(p, i) });
      const stored: string = (await t.ok(content, 'sonnik.getCat', { Id: 4 })).body;
      if (survivors(stored).length || !stored.includes(`after ${i}`)) bad.push(`update: ${p} -> ${stored}`);
    }
    const rows = XSS.map((p, i) => ({ Id: 500 + i, name: `X${i}`, body: payloadBody(p, i) }));
    await load('sonnik_cats', [...rows, { Id: 500, body: payloadBody(XSS[0], 0) + '<p>last</p>' }]);
    for (const [i] of XSS.entries()) {
      const stored: string = (await t.ok(content, 'sonnik.getCat', { Id: 500 + i })).body;
      if (survivors(stored).length || !stored.includes(`after ${i}`)) bad.push(`import: ${XSS[i]} -> ${stored}`);
    }
    expect(bad).toEqual([]);
    expect((await t.ok(content, 'sonnik.getCat', { Id: 500 })).body).toContain('<p>last</p>');
    const refused = await load('sonnik_posts', [{ Id: 3000 }, { Id: 3001, Id_cat: 1, views: -1 }]);
    expect(refused.refused.map((x: any) => x.row)).toEqual([1, 2]);
  });
});

describe(`demo data (${db()})`, () => {
  test('the seeder writes questions with answers, joke categories and sonnik categories with posts; a second run leaves the same rows', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const counts = async () => (await ds.query(
      `SELECT (SELECT COUNT(*) FROM asks WHERE Id >= 900001) AS a, (SELECT COUNT(*) FROM ask_answers WHERE Id_ask >= 900001) AS b,
        (SELECT COUNT(*) FROM joke_cats WHERE cid <= 24) AS c, (SELECT COUNT(*) FROM sonnik_cats WHERE Id <= 60) AS d, (SELECT COUNT(*) FROM sonnik_posts WHERE Id >= 1000 AND Id < 61000) AS e`,
    ))[0];
    const first = await askJokesSonnikSeeder.run(ds, () => undefined);
    const c1 = await counts();
    expect(first).toMatch(/^32 questions with \d+ answers, 24 joke categories, 60 sonnik categories with \d+ posts$/);
    await askJokesSonnikSeeder.run(ds, () => undefined);
    expect(await counts()).toEqual(c1);
    expect(Number(c1.b)).toBeGreaterThan(20);
    expect(Number(c1.e)).toBeGreaterThan(100);
    expect((await t.rest<any>(user, 'GET', '/ask/get/900001?joinAnswer=1')).body.result.question).toBe('Как восстановить доступ к аккаунту?');
    expect((await t.rest<any>(content, 'GET', '/jokes/cat/get/1')).body.result).toMatchObject({ cid: 1, title: 'Про котов' });
    expect(await t.ok(content, 'sonnik.getCat', { Id: 60 })).toMatchObject({ letter: 'Я', uri: 'yabloko', name: 'Яблоко' });
  });
});
