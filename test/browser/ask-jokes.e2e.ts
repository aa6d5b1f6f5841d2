/**
 * Q&A, joke categories and sonnik screens (issue 19) in a real browser (Debian's Chromium) against the
 * real app (build the UI first; TEST_UI_DIR for a build of your own):
 * - /ask/edit/{id}: an answer marked deleted and recovered again leaves nothing to save (Save hides);
 *   Save shows only with unsaved changes, leaving asks first, an empty answer is refused in place, and
 *   one Save writes the edited, deleted and added answers (seen after a reload); /ask/add creates;
 * - /jokes/cat_edit/{cid}: text typed with formatting in the TipTap editor is saved ('Update success')
 *   and is there, formatted, after a reload; a stored body never runs script;
 * - /sonnik/cat and /sonnik/cat/edit/{Id}: the list, the posts side panel (20 per page) and Commit.
 * UI_SCREENSHOTS=DIR saves each screen at 1280 and 390 px.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, MOBILE, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const EDITOR = { login: 'editor', password: 'editor-password-1' };
/** UNSAVED_MESSAGE of src/ui/kit/useUnsavedPrompt.ts (a DOM module: not importable here). */
const UNSAVED_MESSAGE = 'You have unsaved changes. Leave without saving?';
let t: TestApp;
let browser: Browser;
let editor: string;
let askId: number;
const pages: Page[] = [];
const toast = (page: Page, text: string) => page.locator('.app-notify', { hasText: text }).first();

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  const admin = (await t.session(1)).hash;
  editor = (await t.session(10, EDITOR.login)).hash;
  const r = await t.rest<any>(editor, 'POST', '/ask/set', { ask: { question: 'Как читать без интернета?' }, answer: [{ answer: 'Скачать EPUB' }, { answer: 'Скачать FB2' }, { answer: 'Никак' }] });
  askId = r.body.result.Id;
  await t.ok(admin, 'content.import', { entity: 'joke_cats', rows: [{ cid: 7, title: 'Про котов', meta_title: 'Анекдоты про котов', meta_h1: 'Коты', cat_body: '<p>Начало</p>' }] });
  await t.ok(admin, 'content.import', { entity: 'sonnik_cats', rows: Array.from({ length: 22 }, (_, i) => ({ Id: i + 1, letter: i < 2 ? 'В' : 'Л', uri: `s${i + 1}`, name: i === 0 ? 'Вода' : `Сон ${i + 1}`, body: '<p>Вода во сне</p>' })) });
  await t.ok(admin, 'content.import', { entity: 'sonnik_posts', rows: Array.from({ length: 23 }, (_, i) => ({ Id: 100 + i, Id_cat: 1, views: 10 * i, title: `К чему снится вода ${i + 1}`, title_ai: `Вода: толкование ${i + 1}` })) });
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

function nextDialog(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no confirm box within 10 s')), 10_000);
    page.once('dialog', (d) => {
      clearTimeout(timer);
      const msg = d.message();
      void (accept ? d.accept() : d.dismiss()).then(() => resolve(msg));
    });
  });
}

async function shots(page: Page, name: string) {
  await screenshot(page, `${name}-1280`);
  if (!process.env.UI_SCREENSHOTS) return;
  await page.setViewportSize(MOBILE);
  await page.waitForTimeout(200);
  await screenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('/ask/edit: delete and recover before Save, Save only with unsaved changes, leaving asks, one Save writes it all', async () => {
  const page = await signedInPage(browser, pages, t.url, `/ask/edit/${askId}`, EDITOR);
  const save = page.getByRole('button', { name: 'Save', exact: true });
  const answer = (n: number) => page.getByLabel(`answer ${n}`, { exact: true });
  await answer(3).waitFor();
  expect(await save.count()).toBe(0);

  // Delete then recover: marked (disabled, badge), Save appears; recovered, nothing left to save.
  await page.getByRole('button', { name: 'Delete answer 2' }).click();
  expect(await answer(2).isDisabled()).toBe(true);
  await page.locator('.app-ask-answer-deleted', { hasText: 'deleted' }).waitFor();
  await save.waitFor();
  await page.getByRole('button', { name: 'Recover answer 2' }).click();
  expect(await answer(2).isDisabled()).toBe(false);
  await save.waitFor({ state: 'detached' });
  await shots(page, 'ask-edit');

  // Real edits: answer 1 changed, answer 3 deleted, a new answer added (empty first: refused in place).
  await answer(1).fill('Скачать EPUB или FB2');
  await page.getByRole('button', { name: 'Delete answer 3' }).click();
  await page.getByRole('button', { name: 'Add answer' }).click();
  await answer(4).waitFor();
  await save.click();
  await page.locator('.invalid-feedback', { hasText: 'answer is required' }).waitFor();
  await answer(4).fill('Включить офлайн-режим');

  // Leaving asks; Cancel keeps the edits here.
  const asked = nextDialog(page, false);
  await page.locator('.app-sidebar a[href="/content/ask"]').click();
  expect(await asked).toBe(UNSAVED_MESSAGE);
  await page.waitForTimeout(100);
  expect(pathOf(page)).toBe(`/ask/edit/${askId}`);
  expect(await answer(4).inputValue()).toBe('Включить офлайн-режим');

  await save.click();
  await toast(page, 'Save ok!').waitFor();
  await save.waitFor({ state: 'detached' });
  await page.reload();
  await answer(3).waitFor();
  expect(await page.getByTestId('ask-answer').count()).toBe(3);
  expect([await answer(1).inputValue(), await answer(2).inputValue(), await answer(3).inputValue()]).toEqual(['Скачать EPUB или FB2', 'Скачать FB2', 'Включить офлайн-режим']);
  const stored = (await t.rest<any>(editor, 'GET', `/ask/get/${askId}?joinAnswer=1`)).body.result.answer.map((a: any) => a.answer);
  expect(stored).toEqual(['Скачать EPUB или FB2', 'Скачать FB2', 'Включить офлайн-режим']);

  // The list, then /ask/add creates a question and lands on its editor.
  await page.goto(`${t.url}/content/ask`);
  await page.locator('table tbody tr', { hasText: 'Как читать без интернета?' }).waitFor();
  await shots(page, 'ask-list');
  await page.getByRole('link', { name: 'Add', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/ask/add');
  await page.locator('textarea[name="question"]').fill('Новый вопрос?\nВо второй строке');
  await page.getByRole('button', { name: 'Add answer' }).click();
  await answer(1).fill('Первый ответ');
  await save.click();
  await page.waitForURL((u) => /^\/ask\/edit\/\d+$/.test(u.pathname));
  await toast(page, 'Save ok!').waitFor();
  const newId = Number(pathOf(page).split('/').pop());
  expect((await t.rest<any>(editor, 'GET', `/ask/get/${newId}?joinAnswer=1`)).body.result).toMatchObject({ question: 'Новый вопрос?\nВо второй строке', answer: [{ answer: 'Первый ответ' }] });
}, T);

test('/jokes/cat_edit: formatted text typed in the rich-text editor is saved and shown after a reload; stored HTML never runs script', async () => {
  const page = await signedInPage(browser, pages, t.url, '/jokes/cat_edit/7', EDITOR);
  const box = page.locator('[data-testid="richtext-cat_body"] .ProseMirror');
  await box.locator('p', { hasText: 'Начало' }).waitFor();
  const save = page.getByRole('button', { name: 'Save', exact: true });
  expect(await save.isDisabled()).toBe(true);
  await box.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Bold' }).click();
  await page.keyboard.type('жирный кот');
  await page.getByRole('button', { name: 'Bold' }).click();
  await page.keyboard.type(' и ');
  await page.getByRole('button', { name: 'Italic' }).click();
  await page.keyboard.type('курсивный');
  await page.getByRole('button', { name: 'Italic' }).click();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Bullet list' }).click();
  await page.keyboard.type('пункт списка');
  await save.click();
  await toast(page, 'Update success').waitFor();
  await page.reload();
  await box.locator('strong', { hasText: 'жирный кот' }).waitFor();
  expect(await box.locator('em').textContent()).toBe('курсивный');
  expect(await box.locator('ul li').textContent()).toBe('пункт списка');
  expect(await box.locator('p', { hasText: 'Начало' }).count()).toBe(1);
  const body: string = (await t.rest<any>(editor, 'GET', '/jokes/cat/get/7')).body.result.cat_body;
  expect(body).toContain('<strong>жирный кот</strong> и <em>курсивный</em>');
  expect(body).toMatch(/<ul><li><p>пункт списка<\/p><\/li><\/ul>/);
  await shots(page, 'joke-edit');

  // A body written around the editor with script in it: stored sanitised, nothing runs in the editor.
  await t.rest(editor, 'POST', '/jokes/cat/update/7', { cat_body: '<p>x</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onload="window.__xss=1"><p onclick="window.__xss=3">y</p><script>window.__xss=2</script>' });
  await page.reload();
  await box.locator('p', { hasText: 'x' }).first().waitFor();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await page.goto(`${t.url}/content/cat_jokes`);
  await page.locator('table tbody tr', { hasText: 'Про котов' }).waitFor();
  await shots(page, 'joke-list');
}, T);

test('/sonnik: the index by letter, the list (20 per page), the editor with its posts panel and Commit', async () => {
  const page = await signedInPage(browser, pages, t.url, '/sonnik/index', EDITOR);
  await page.getByRole('link', { name: /^В\s*2$/ }).click();
  await page.waitForURL((u) => u.pathname === '/sonnik/cat' && u.searchParams.get('letter') === 'В');
  await page.locator('table tbody tr', { hasText: 'Вода' }).waitFor();
  expect(await page.locator('table tbody tr').count()).toBe(2);
  await page.goto(`${t.url}/sonnik/cat`);
  await page.locator('table tbody tr').nth(19).waitFor();
  expect(await page.locator('table tbody tr').count()).toBe(20);
  await shots(page, 'sonnik-cats');
  await page.locator('table tbody tr', { hasText: 'Вода' }).getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL((u) => u.pathname === '/sonnik/cat/edit/1');
  const panel = page.locator('.app-sonnik-posts');
  await panel.locator('tbody tr', { hasText: 'К чему снится вода 1' }).first().waitFor();
  expect(await panel.locator('tbody tr').count()).toBe(20);
  expect(await panel.locator('tbody tr').first().textContent()).toContain('Вода: толкование 1');
  await page.locator('input[name="name"]').fill('Вода (чистая)');
  await page.getByRole('button', { name: 'Commit' }).click();
  await toast(page, 'Commit Ok').waitFor();
  expect((await t.ok(editor, 'sonnik.getCat', { Id: 1 })).name).toBe('Вода (чистая)');
  await shots(page, 'sonnik-edit');
  await page.locator('.app-page-title').getByRole('button', { name: 'Close' }).click();
  await page.waitForURL((u) => u.pathname === '/sonnik/cat');
}, T);
