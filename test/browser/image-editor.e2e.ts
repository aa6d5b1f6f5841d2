/**
 * The crop editor (001 §4 "Image editor", src/ui/kit/ImageEditor.tsx) in a real Chromium against the
 * real app, on the /kit page: a real JPEG (made here with sharp: left half red, right half blue) is
 * chosen, cropped at 16:9, turned by 90°, saved; the stored image exists at /storage/<alias> as a JPEG
 * with a 16:9 aspect, and its colours show the turn (red on top, blue below). Then a PNG at 4:3 with
 * zoom steps of 0.1 and a 45° turn, replacing the first image; and a user without the admin role sees
 * the server's refusal as an error notification.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const EDITOR = { login: 'user10', password: 'user10-password-1' };

let t: TestApp;
let browser: Browser;
const pages: Page[] = [];

/** w × h, left half red, right half blue. */
function halves(w: number, h: number) {
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) raw.set((i % w) < w / 2 ? [220, 20, 20] : [20, 20, 220], i * 3);
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } });
}

/** The colour at (x, y) of a stored picture: 'red', 'blue' or 'other'. */
async function colourAt(img: Buffer, x: number, y: number): Promise<string> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (Math.round(y) * info.width + Math.round(x)) * 3;
  const [r, , b] = [data[i], data[i + 1], data[i + 2]];
  return r > 150 && b < 100 ? 'red' : b > 150 && r < 100 ? 'blue' : `other(${data[i]},${data[i + 1]},${data[i + 2]})`;
}

async function openEditor(page: Page) {
  await page.getByTestId('image-editor-open').click();
  await page.getByTestId('image-editor').waitFor();
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  await t.session(10);
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('choose a JPEG, crop 16:9, rotate 90, save: stored at /storage/<alias> as a 16:9 JPEG, turned', async () => {
  const page = await signedInPage(browser, pages, t.url, '/kit', ADMIN);
  await openEditor(page);
  const jpeg = await halves(640, 480).jpeg({ quality: 95 }).toBuffer();
  await page.getByTestId('image-editor-file').setInputFiles({ name: 'halves.jpg', mimeType: 'image/jpeg', buffer: jpeg });
  await page.getByTestId('image-editor-crop').locator('img').waitFor();
  await page.getByRole('button', { name: '16:9', exact: true }).click();
  expect(await page.getByRole('button', { name: '16:9', exact: true }).getAttribute('aria-pressed')).toBe('true');
  await page.getByRole('button', { name: '+90', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="image-editor-rotation"]')?.textContent === '90');
  // The preview follows the crop: 16:9 of the turned picture.
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="image-editor-preview"]') as HTMLImageElement | null;
    return !!img && img.complete && img.naturalHeight > 0 && Math.abs(img.naturalWidth / img.naturalHeight - 16 / 9) < 0.05;
  });
  await screenshot(page, 'image-editor-16-9-rotated');
  await page.getByTestId('image-editor-save').click();
  await page.getByText('Save ok!').first().waitFor();
  const alias = (await page.getByTestId('kit-stored-alias').innerText()).trim();
  expect(alias).toMatch(/^[0-9a-f]{32}$/);
  // The page shows the stored picture from the storage.
  const shown = page.getByTestId('kit-stored-image');
  expect(await shown.getAttribute('src')).toBe(`/storage/${alias}`);
  await page.waitForFunction(() => { const i = document.querySelector('[data-testid="kit-stored-image"]') as HTMLImageElement | null; return !!i && i.complete && i.naturalWidth > 0; });

  const res = await fetch(`${t.url}/storage/${alias}`);
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
  const stored = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(stored).metadata();
  expect(Math.abs(meta.width! / meta.height! - 16 / 9)).toBeLessThan(0.02);
  // Turned clockwise by 90°: the left (red) half is on top now, the right (blue) half below.
  expect(await colourAt(stored, meta.width! / 2, meta.height! * 0.1)).toBe('red');
  expect(await colourAt(stored, meta.width! / 2, meta.height! * 0.9)).toBe('blue');
  // It is the kit code's image in the storage.
  const files = await t.ok((await t.session(1)).hash, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'kit' });
  expect(files.files.map((f: any) => [f.alias, f.file_name, f.domain])).toEqual([[alias, 'halves.jpg', 'kit.example']]);
  expectNoPageErrors(pages);
}, T);

test('a PNG at 4:3, zoom in steps of 0.1, rotate -45: a 4:3 PNG replaces the previous image', async () => {
  const admin = (await t.session(1)).hash;
  const before = (await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'kit' })).files;
  const page = await signedInPage(browser, pages, t.url, '/kit', ADMIN);
  // The kit page keeps the last stored alias only in memory: store one first, then replace it.
  await openEditor(page);
  await page.getByTestId('image-editor-file').setInputFiles({ name: 'first.png', mimeType: 'image/png', buffer: await halves(300, 200).png().toBuffer() });
  await page.getByTestId('image-editor-crop').locator('img').waitFor();
  await page.getByTestId('image-editor-save').click();
  await page.getByTestId('kit-stored-alias').waitFor();
  const first = (await page.getByTestId('kit-stored-alias').innerText()).trim();

  await openEditor(page);
  const png = await halves(800, 500).png().toBuffer();
  await page.getByTestId('image-editor-file').setInputFiles({ name: 'halves.png', mimeType: 'image/png', buffer: png });
  await page.getByTestId('image-editor-crop').locator('img').waitFor();
  await page.getByRole('button', { name: '4:3', exact: true }).click();
  expect(await page.getByTestId('image-editor-zoom-range').getAttribute('step')).toBe('0.1');
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
  expect(await page.getByTestId('image-editor-zoom').innerText()).toBe('1.3');
  await page.getByRole('button', { name: 'Zoom out' }).click();
  expect(await page.getByTestId('image-editor-zoom').innerText()).toBe('1.2');
  await page.getByRole('button', { name: '-45', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="image-editor-rotation"]')?.textContent === '315');
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="image-editor-preview"]') as HTMLImageElement | null;
    return !!img && img.complete && img.naturalHeight > 0 && Math.abs(img.naturalWidth / img.naturalHeight - 4 / 3) < 0.05;
  });
  await page.getByTestId('image-editor-save').click();
  await page.waitForFunction((old) => { const a = document.querySelector('[data-testid="kit-stored-alias"]')?.textContent; return !!a && a !== old; }, first);
  const alias = (await page.getByTestId('kit-stored-alias').innerText()).trim();
  const res = await fetch(`${t.url}/storage/${alias}`);
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/png']);
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  expect(Math.abs(meta.width! / meta.height! - 4 / 3)).toBeLessThan(0.02);
  // Zoomed to 1.2: the crop is smaller than the frame at zoom 1 of the turned 800 × 500 picture.
  expect(meta.width!).toBeLessThan(800);
  // The replaced image's reference is gone (the image of the first test stays: it was not replaced here).
  const after = (await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'kit' })).files.map((f: any) => f.alias);
  expect(after).toContain(alias);
  expect(after).not.toContain(first);
  expect(after.length).toBe(before.length + 1);
  expect((await fetch(`${t.url}/storage/${first}`)).status).toBe(404);
  expectNoPageErrors(pages);
}, T);

test('without the admin role the storage refuses: the error is shown, nothing is stored', async () => {
  const admin = (await t.session(1)).hash;
  const before = (await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'kit' })).count;
  const page = await signedInPage(browser, pages, t.url, '/kit', EDITOR);
  await openEditor(page);
  await page.getByTestId('image-editor-file').setInputFiles({ name: 'x.jpg', mimeType: 'image/jpeg', buffer: await halves(160, 90).jpeg().toBuffer() });
  await page.getByTestId('image-editor-crop').locator('img').waitFor();
  await page.getByTestId('image-editor-save').click();
  const err = page.getByTestId('image-editor-error');
  await err.waitFor();
  expect(await err.innerText()).toMatch(/Forbidden|role/i);
  // The modal stays open with the picture for another try; nothing stored.
  expect(await page.getByTestId('image-editor-crop').count()).toBe(1);
  expect((await t.ok(admin, 'network_info.Files.getUrlStorageByCode', { code_in_storage: 'kit' })).count).toBe(before);
}, T);
