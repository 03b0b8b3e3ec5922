/// <reference lib="dom" />
// (DOM types: for the callbacks that run inside the page, here and in the browser tests.)
// Browser tests: playwright-core driving Debian's Chromium (never a downloaded browser). Each page is watched:
// a request to any origin but the app's is stopped and recorded (the pages must make none), and CSP
// violations are collected, so a test can assert both. Screenshots go to test-results/.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const RESULTS_DIR = path.resolve('test-results');

/** Whether Chromium is installed; under CI=true its absence is a failure (.ci/run installs it). */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`Chromium is required under CI=true but ${CHROMIUM} is missing (apt-get install -y chromium)`);
  console.warn(`Chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install -y chromium)`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

export interface WatchedPage {
  page: Page;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Requests to another origin: stopped before they left, listed here. */
  foreign: string[];
  /** Content-Security-Policy violations the page reported. */
  violations: Violation[];
  /** Uncaught errors in the page's scripts. */
  errors: string[];
}

/**
 * A new page (own context: no cookies or storage shared) watching requests and CSP for `origin`; `allowed`:
 * other origins the journey visits on purpose (a payment provider's test double), not counted as foreign.
 */
export async function watchedPage(
  browser: Browser,
  origin: string,
  viewport = { width: 1280, height: 900 },
  allowed: string[] = [],
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const w: WatchedPage = { page, requests: [], foreign: [], violations: [], errors: [] };
  const own = new URL(origin).origin;
  const also = new Set(allowed.map((a) => new URL(a).origin));
  // A request still in flight when its page closes makes continue/abort reject: nothing to report then.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    w.requests.push(url);
    if (new URL(url).origin === own || also.has(new URL(url).origin)) return route.continue().catch(() => {});
    w.foreign.push(url);
    return route.abort('blockedbyclient').catch(() => {});
  });
  await context.exposeBinding('__cspViolation', (_source, v: Violation) => {
    w.violations.push(v);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation(v: unknown): void }).__cspViolation({
        directive: e.effectiveDirective,
        blocked: e.blockedURI,
        source: `${e.sourceFile}:${e.lineNumber}`,
      });
    });
  });
  page.on('websocket', (ws) => {
    if (new URL(ws.url()).host !== new URL(own).host) w.foreign.push(ws.url());
  });
  page.on('pageerror', (e) => w.errors.push(e.message));
  page.on('close', () => {
    context.close().catch(() => {});
  });
  return w;
}

/** Saves a PNG of the page as test-results/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? false });
  return file;
}

/**
 * One Chromium for the tests of a file: launched before its first test (when installed), closed after its
 * last. `open()` gives a watched page of the origin `base()` answers (read at call time: the app may start
 * after this is called); `opened` keeps every page for the file's last check (no request to another origin,
 * no CSP violation, no error).
 */
export function browserForTests(base: () => string, allowed: () => string[] = () => []) {
  let browser: Browser | undefined;
  const opened: WatchedPage[] = [];
  beforeAll(async () => {
    if (chromiumAvailable()) browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  const open = async (): Promise<WatchedPage> => {
    const w = await watchedPage(browser!, base(), undefined, allowed());
    opened.push(w);
    return w;
  };
  /** Every page opened asked no other origin for anything, broke no CSP rule and threw nothing. */
  const expectPagesClean = () => {
    expect(opened.length).toBeGreaterThan(0);
    for (const w of opened) {
      expect(w.foreign).toEqual([]);
      expect(w.errors).toEqual([]);
      expect(w.violations).toEqual([]);
    }
  };
  return { opened, open, expectPagesClean };
}

/** Removes the screenshots of an earlier run whose names start with `prefix`, so test-results/ holds this run's. */
export function clearScreenshots(prefix: string): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  for (const f of fs.readdirSync(RESULTS_DIR)) if (f.startsWith(prefix) && f.endsWith('.png')) fs.rmSync(path.join(RESULTS_DIR, f));
}

/** Signs in through the sign-in form and waits for the page it leads to (the dashboard unless told; null: no wait). */
export async function signInPage(
  page: Page,
  base: string,
  email: string,
  password: string,
  lands: RegExp | null = /\/dashboard$/,
): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (lands) await page.waitForURL(lands);
}
