import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from './build';
import { CHROMIUM } from './chromium';

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export const artifactsDir = path.join(projectRoot, 'test', 'artifacts');

/**
 * Headless Debian Chromium driven by playwright-core, with a fresh empty profile, no background network
 * and no GPU. Every page opened through `open` records console errors and uncaught exceptions; tests
 * assert `errors` stays empty.
 */
export class BrowserSession {
  readonly errors: string[] = [];
  private contexts: BrowserContext[] = [];

  private constructor(
    private readonly browser: Browser,
    readonly baseUrl: string,
  ) {}

  static async launch(baseUrl: string): Promise<BrowserSession> {
    // playwright gives each launch a new, empty profile in a temporary folder (and removes it on close).
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    return new BrowserSession(browser, baseUrl);
  }

  /** A new context (its own storage) at a viewport size and system colour scheme, signed in with `token` when given. */
  async open(options: { viewport?: { width: number; height: number }; token?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await this.browser.newContext({
      viewport: options.viewport ?? DESKTOP,
      baseURL: this.baseUrl,
      colorScheme: options.colorScheme ?? 'light',
    });
    this.contexts.push(context);
    if (options.token) await context.addInitScript({ content: `window.localStorage.setItem('bw.token', ${JSON.stringify(options.token)});` });
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') this.errors.push(`console: ${msg.text()} (${page.url()})`);
    });
    // Chrome's own console line for a failed request names no URL; this one says which request failed.
    page.on('response', async (res) => {
      if (res.status() < 400) return;
      const body = await res.text().catch(() => '');
      this.errors.push(`HTTP ${res.status()} ${res.request().method()} ${res.url()} ${res.request().postData()?.slice(0, 200) ?? ''} -> ${body.slice(0, 300)}`);
    });
    page.on('pageerror', (err) => this.errors.push(`page error: ${err.message} (${page.url()})`));
    page.setDefaultTimeout(15_000);
    return page;
  }

  async close(): Promise<void> {
    for (const c of this.contexts) await c.close().catch(() => undefined);
    await this.browser.close();
  }
}

/** Saves a full-page screenshot as test/artifacts/<name>-<width>x<height>.png (ignored by git). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactsDir, { recursive: true });
  const size = page.viewportSize();
  const file = path.join(artifactsDir, `${name}-${size?.width}x${size?.height}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The page at both sizes the console is made for: desktop first, then phone. */
export async function screenshotBothSizes(page: Page, name: string): Promise<void> {
  const original = page.viewportSize() ?? DESKTOP;
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    // Two frames: React and the canvas re-measure after the resize before the picture is taken.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await screenshot(page, name);
  }
  await page.setViewportSize(original);
}

/** The bearer token the console stored for its signed-in person. */
export function storedToken(page: Page): Promise<string | null> {
  return page.evaluate<string | null>("window.localStorage.getItem('bw.token')");
}

/**
 * Resolves once `condition` (a JavaScript expression) holds in the page, checked on every frame. It runs as
 * one CDP evaluation, which the console's Content-Security-Policy (`script-src 'self'`, no eval) cannot
 * block, whereas `page.waitForFunction` builds its predicate with eval inside the page and is refused there.
 */
export async function untilInPage(page: Page, condition: string): Promise<void> {
  await page.evaluate(`new Promise((resolve) => {
    const check = () => ((${condition}) ? resolve(true) : requestAnimationFrame(check));
    check();
  })`);
}

/**
 * The lifecycle every browser test file shares: after each test, the page errors it left (console errors,
 * uncaught exceptions, failed requests) are taken and must be none but `accepted` ones; after the file, the
 * browser and the server are closed. `get` reads the file's own variables (set in its `beforeAll`).
 */
export function browserTestLifecycle(get: () => { browser?: BrowserSession; server?: { close(): Promise<void> } }, accepted?: RegExp): void {
  afterAll(async () => {
    const { browser, server } = get();
    await browser?.close();
    await server?.close();
  });
  afterEach(() => {
    // Taken each time, so one test's failure is not reported again by every later one.
    const errors = get().browser?.errors.splice(0) ?? [];
    expect(errors.filter((e) => !accepted?.test(e))).toEqual([]);
  });
}
