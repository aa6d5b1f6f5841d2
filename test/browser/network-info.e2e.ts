/**
 * Network info in a real Chromium against the real app (docs/network-info.md "Screens"): an admin
 * creates a host, then a page choosing that host (Save stays off until a host is chosen); from the page
 * form the image editor of the kit stores a picked picture cropped at 16:9 and turned by 90 degrees,
 * which then shows in the body, and another as the cover (its preview); the page is saved, the edit
 * screen reloaded, and the images still show, while the stored body holds `{storage:<alias>}`. The
 * pages list keeps its host filter and page in the URL across a reload.
 */
/// <reference lib="dom" />
import type { Browser, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 120_000;
let t: TestApp;
let admin: string;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

/** A picture with four coloured quarters, so a crop and a turn are real work (not a flat colour). */
async function picture(width: number, height: number): Promise<Buffer> {
  const q = (c: string) => sharp({ create: { width: width / 2, height: height / 2, channels: 3, background: c } }).png().toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([
      { input: await q('#d62728'), left: 0, top: 0 }, { input: await q('#2ca02c'), left: width / 2, top: 0 },
      { input: await q('#1f77b4'), left: 0, top: height / 2 }, { input: await q('#ff7f0e'), left: width / 2, top: height / 2 },
    ])
    .png().toBuffer();
}

/** The size an <img> loaded with ([0, 0] while not loaded). */
const loaded = (img: Locator) => img.evaluate((el) => {
  const i = el as HTMLImageElement;
  return i.complete ? [i.naturalWidth, i.naturalHeight] : [0, 0];
});

/**
 * Opens the image editor behind `button` in the page form, picks `file`, crops at 16:9, turns by 90
 * degrees and saves (the editor sends the result to the storage and closes).
 */
async function cropAndStore(page: Page, button: string, file: Buffer) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByTestId('image-editor-file').setInputFiles({ name: 'picture.png', mimeType: 'image/png', buffer: file });
  await dialog.getByRole('button', { name: '16:9', exact: true }).click();
  await dialog.getByRole('button', { name: '+90', exact: true }).click();
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 30_000 });
}

test('create a host, then a page of it with an image cropped in the editor in its body and as its cover; after a reload the images still show', async () => {
  const page = await signedInPage(browser, pages, t.url, '/network_info', ADMIN);
  // The host.
  await page.getByRole('link', { name: 'Hosts', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/network_info/hosts');
  await page.getByRole('link', { name: 'Create', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/network_info/hosts/create');
  await page.locator('input[name="name"]').fill('Книги');
  await page.locator('input[name="domain"]').fill('books.example');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.waitForURL((u) => /^\/network_info\/hosts\/edit\/\d+$/.test(u.pathname));
  await page.getByText('Insert ok!').first().waitFor();
  const hostId = Number(pathOf(page).split('/').pop());

  // The page: Save stays off until a host is chosen (001 §5), and so do the image tools.
  await page.goto(`${t.url}/network_info/pages`);
  await page.getByRole('link', { name: 'Create', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/network_info/pages/create');
  const save = page.getByRole('button', { name: 'Save', exact: true });
  await page.locator('input[name="title"]').fill('Главная');
  expect(await save.isDisabled()).toBe(true);
  await page.getByTestId('choose-host').waitFor();
  await page.getByTestId('images-need-host').waitFor();
  await page.locator('select[name="host"]').selectOption(String(hostId));
  expect(await save.isEnabled()).toBe(true);

  // An image into the body: it shows in the editor, served by the storage.
  await cropAndStore(page, 'Insert image', await picture(800, 600));
  const bodyImg = page.locator('#body img').first();
  await bodyImg.waitFor();
  const bodySrc = (await bodyImg.getAttribute('src')) ?? '';
  expect(bodySrc).toMatch(/^\/storage\/[0-9a-f]{32}$/);
  await page.waitForFunction(() => (document.querySelector('#body img') as HTMLImageElement | null)?.complete === true);
  const [w, h] = await loaded(bodyImg);
  expect(w).toBeGreaterThan(0);
  // Cropped at 16:9 and turned by 90 degrees: a picture far from the 4:3 upload's shape.
  expect(Math.abs(w / h - 4 / 3)).toBeGreaterThan(0.1);
  const bodyAlias = bodySrc.split('/').pop()!;

  // Another as the cover: its alias fills the field and the preview shows.
  await cropAndStore(page, 'Cover', await picture(640, 480));
  const cover = page.locator('input[name="cover"]');
  await page.waitForFunction(() => /^[0-9a-f]{32}$/.test((document.querySelector('input[name="cover"]') as HTMLInputElement | null)?.value ?? ''));
  const coverAlias = await cover.inputValue();
  const preview = page.getByTestId('cover-preview');
  await preview.waitFor();
  expect(await preview.getAttribute('src')).toBe(`/storage/${coverAlias}`);
  await screenshot(page, 'network-page-form');

  await save.click();
  await page.waitForURL((u) => /^\/network_info\/pages\/edit\/\d+$/.test(u.pathname));
  await page.getByText('Insert ok!').first().waitFor();
  const pageId = Number(pathOf(page).split('/').pop());

  // What is stored: the placeholder, no host, no URL.
  const stored = await t.ok(admin, 'network_info.Page.get', { Id: pageId });
  expect(stored).toMatchObject({ host: hostId, title: 'Главная', cover: coverAlias });
  expect(stored.body).toContain(`{storage:${bodyAlias}}`);
  expect(stored.body).not.toContain('/storage/');

  // Reload the edit screen: the body shows the image again (placeholder expanded), the cover its preview.
  await page.reload();
  await page.locator('#body img').first().waitFor();
  expect(await page.locator('#body img').first().getAttribute('src')).toBe(`/storage/${bodyAlias}`);
  await page.waitForFunction(() => (document.querySelector('#body img') as HTMLImageElement | null)?.complete === true);
  expect((await loaded(page.locator('#body img').first()))[0]).toBeGreaterThan(0);
  await page.getByTestId('cover-preview').waitFor();
  expect((await page.getByTestId('cover-preview').getAttribute('src'))).toBe(`/storage/${coverAlias}`);
  expect(await page.locator('select[name="host"]').inputValue()).toBe(String(hostId));
  // Nothing to save after the reload: Save waits for an edit.
  expect(await save.isDisabled()).toBe(true);
  await page.close();
}, T);

test('the pages list: host filter and page in the URL survive a reload; a category chosen in the form is saved', async () => {
  const h1 = (await t.ok(admin, 'network_info.Host.insert', { name: 'Стихи', domain: 'poems.example' })).insertId;
  const h2 = (await t.ok(admin, 'network_info.Host.insert', { name: 'Сказки', domain: 'tales.example' })).insertId;
  const cat = (await t.ok(admin, 'network_info.Cats.insert', { host: h1, title: 'Сонеты' })).insertId;
  for (let i = 1; i <= 22; i++) await t.ok(admin, 'network_info.Page.insert', { host: h1, title: `Стих ${i}` });
  await t.ok(admin, 'network_info.Page.insert', { host: h2, title: 'Колобок' });

  const page = await signedInPage(browser, pages, t.url, '/network_info/pages', ADMIN);
  await page.getByRole('link', { name: 'Колобок' }).waitFor();
  await page.locator('select[name="host-filter"]').selectOption(String(h1));
  await page.waitForURL((u) => u.searchParams.get('host') === String(h1));
  // The other host's page leaves the list (it is the newest of all, on the first page unfiltered).
  await page.getByRole('link', { name: 'Колобок' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Стих 22', exact: true }).waitFor();
  await page.goto(`${t.url}/network_info/pages?host=${h1}&p_=2`);
  await page.getByRole('link', { name: 'Стих 2', exact: true }).waitFor();
  await page.reload();
  await page.getByRole('link', { name: 'Стих 1', exact: true }).waitFor();
  expect(await page.locator('select[name="host-filter"]').inputValue()).toBe(String(h1));
  expect(await page.getByRole('link', { name: 'Стих 22', exact: true }).count()).toBe(0);

  // Create from the filtered list: the host is chosen already; its category is offered and saved.
  await page.getByRole('link', { name: 'Create', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/network_info/pages/create' && u.searchParams.get('host') === String(h1));
  await page.locator('input[name="title"]').fill('Новый стих');
  await page.getByLabel('Сонеты').check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.waitForURL((u) => /^\/network_info\/pages\/edit\/\d+$/.test(u.pathname));
  const Id = Number(pathOf(page).split('/').pop());
  expect(await t.ok(admin, 'network_info.Page.get', { Id, select: 'host,title', joinCatRelay: 1 }))
    .toEqual({ host: h1, title: 'Новый стих', categoriesRelay: [{ Id: cat, title: 'Сонеты' }] });
  expect(await page.getByLabel('Сонеты').isChecked()).toBe(true);
  await page.close();
}, T);
