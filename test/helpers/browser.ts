/**
 * Browser end-to-end helpers: playwright-core driving Debian's Chromium (never a downloaded build).
 * Each `newPage` gets its own context, so local storage (the session of 000 §3) is not shared.
 *
 *   const browser = await launchBrowser();
 *   const page = await newPage(browser);                   // 1280 x 800; newPage(browser, MOBILE) for 390 wide
 *   await loginAs(page, t.url, 'admin', 'admin-password-1');
 *   ...
 *   await browser.close();
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export const DESKTOP = { width: 1280, height: 800 } as const;
export const MOBILE = { width: 390, height: 844 } as const;

/** The built UI the app serves (TEST_UI_DIR, else dist/ui). */
const UI_INDEX = join(process.env.TEST_UI_DIR ?? join(import.meta.dirname, '..', '..', 'dist', 'ui'), 'index.html');

/** Debian's Chromium, headless; refuses to start when the UI is not built (the pages would be blank). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(UI_INDEX)) throw new Error(`${UI_INDEX} is missing: run \`npm run build\` before the browser tests`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface PageOptions {
  width?: number;
  height?: number;
  /** Collect console errors and uncaught page errors into `errors(page)`. Default true. */
  collectErrors?: boolean;
  /** The context's storage to start from (signedInState: a session signed in once). */
  storageState?: StorageState;
}

export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

const pageErrors = new WeakMap<Page, string[]>();

/** A page in a fresh context (own storage), default viewport 1280 x 800. */
export async function newPage(browser: Browser, opts: PageOptions = {}): Promise<Page> {
  const mobile = (opts.width ?? DESKTOP.width) <= 600;
  const context: BrowserContext = await browser.newContext({
    viewport: { width: opts.width ?? DESKTOP.width, height: opts.height ?? DESKTOP.height },
    isMobile: mobile,
    hasTouch: mobile,
    deviceScaleFactor: 1,
    storageState: opts.storageState,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  pageErrors.set(page, errors);
  if (opts.collectErrors !== false) {
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // 401/403 answers the tests provoke on purpose show up as failed resources; keep real errors only.
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
  }
  return page;
}

/** Errors the page logged so far (uncaught exceptions, console.error). */
export const errorsOf = (page: Page): string[] => pageErrors.get(page) ?? [];

/** Takes the pages a test opened and fails when any logged an uncaught exception or console error. */
export function expectNoPageErrors(pages: Page[]) {
  const errs = pages.flatMap((p) => errorsOf(p));
  pages.length = 0;
  expect(errs).toEqual([]);
}

/**
 * Signs in through the real /auth form (login, password, Next) and waits until the app left /auth
 * and shows the signed-in top bar. Returns the session hash the app stored.
 */
export async function loginAs(page: Page, baseUrl: string, login: string, password: string): Promise<string> {
  if (!page.url().startsWith(baseUrl) || !new URL(page.url()).pathname.startsWith('/auth')) {
    await page.goto(baseUrl + '/auth');
  }
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Login').fill(login);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Next' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/auth'));
  await page.locator('.app-shell[data-user]').waitFor({ state: 'attached' });
  const hash = await storageItem(page, 'hash');
  if (!hash) throw new Error(`login as ${login}: no session stored`);
  return hash;
}

/**
 * Signs in once through the real /auth form as `who` and answers that context's storage (the session
 * hash the app keeps): `newPage(browser, { storageState })` then opens pages already signed in, each in
 * a context of its own, without the form (for files that open many pages as one user).
 */
export async function signedInState(browser: Browser, baseUrl: string, who: { login: string; password: string }): Promise<StorageState> {
  const page = await newPage(browser);
  try {
    await loginAs(page, baseUrl, who.login, who.password);
    const errors = errorsOf(page);
    if (errors.length) throw new Error(`signing in as ${who.login}: ${errors.join('; ')}`);
    return await page.context().storageState();
  } finally {
    await page.context().close();
  }
}

/** A new page (its own context) signed in as `who` through the /auth form, then at `baseUrl + path`; added to `pages` (expectNoPageErrors). */
export async function signedInPage(
  browser: Browser, pages: Page[], baseUrl: string, path: string, who: { login: string; password: string }, size?: { width: number; height: number },
): Promise<Page> {
  const page = await newPage(browser, size ?? {});
  pages.push(page);
  await loginAs(page, baseUrl, who.login, who.password);
  await page.goto(baseUrl + path);
  return page;
}

/** A local-storage value of the page's origin. */
export async function storageItem(page: Page, key: string): Promise<string | null> {
  // A function, not a string: the app's CSP forbids eval. (Typed loosely: the server tsconfig has no DOM lib.)
  return page.evaluate((k) => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(k), key);
}

/** The path and query of the page's URL, e.g. '/audit?p_=2'. */
export const pathOf = (page: Page): string => {
  const u = new URL(page.url());
  return u.pathname + u.search;
};

/** Saves a full-page screenshot when UI_SCREENSHOTS names a directory (for looking at the UI). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.UI_SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true, animations: 'disabled' });
}

/** A new page that opens `path`, is sent to /auth, signs in there and lands back on `path`. */
export async function openSignedIn(browser: Browser, baseUrl: string, path: string, login: string, password: string): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(baseUrl + path);
  await page.waitForURL((u) => u.pathname === '/auth');
  await loginAs(page, baseUrl, login, password);
  await page.waitForURL((u) => u.pathname === path);
  return page;
}
