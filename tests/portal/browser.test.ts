// The portal end to end in Debian's Chromium (the user's journeys): a new user signs up, signs out and in,
// opens the key page, calls an endpoint from /docs' try-it and sees it counted on the usage page; a
// Premium user creates, rotates and revokes a key, and the revoked key gets 401 at once; an admin
// upgrades an account and the next API answer carries X-RateLimit-Limit: 5000. Every page is saved as
// test-results/journey-*-{1280,390}.png; no page asks anything of another origin, and the dashboard
// pages raise no CSP violation.
import crypto from 'node:crypto';
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot, signInPage, clearScreenshots } from '../helpers/browser.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import type { Page } from 'playwright-core';

const PW = 'correct horse battery';
const ADMIN = 'root@example.com';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  // This run's screenshots only (numbered in the order taken).
  clearScreenshots('journey-');
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  server = await listen(t.app);
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** Saves the page at 1280 px and at 390 px wide (whole page), then returns to 1280. */
let shot = 0;
async function shots(page: Page, name: string, fullPage = true) {
  const n = String(++shot).padStart(2, '0');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `journey-${n}-${name}-${width}`, { fullPage });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const api = (key: string) => fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': key } });

/** Reloads `path` until `check` holds on it, for at most 5 s (the usage recorder writes once a second). */
async function until(page: Page, path: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 5000;
  for (;;) {
    await page.goto(`${base}${path}`);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${path}: not seen within 5 s`);
    await page.waitForTimeout(200);
  }
}

async function signUp(page: Page, email: string, name: string) {
  await page.goto(`${base}/`);
  await page.getByRole('link', { name: 'Sign up' }).first().click();
  await page.waitForURL(/\/signup$/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PW);
  await shots(page, 'signup');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/dashboard$/);
}

const freshEmail = (who: string) => `${who}-${crypto.randomUUID().slice(0, 6)}@example.com`;

run('portal journeys in Chromium', () => {
  const user = freshEmail('ada');

  test('a new user signs up, signs in, opens the key page, calls from /docs and sees the call on the usage page', async () => {
    const w = await open();
    const { page } = w;
    await signUp(page, user, 'Ada');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInPage(page, base, user, PW);

    // The key page: the shared free key and its allowance.
    await shots(page, 'free-key-page');
    const freeKey = (await page.locator('#free-key').textContent())!.trim();
    expect(freeKey).toBe(t.api.config.freeKey);
    expect(await page.locator('dl.facts').textContent()).toMatch(/Used in this window\s*0 of 200/);
    // The copy button is there once the script runs (hidden without it, where it could do nothing).
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: /Copied|Selected/ }).waitFor();

    // Try it on /docs sends a real request with the account's key (a link of the earlier renderer still lands).
    expect(await page.getByRole('link', { name: 'Docs' }).first().getAttribute('href')).toBe('/docs');
    await page.goto(`${base}/docs#tag/tools/GET/api/v1/tools/ccgen`);
    await page.waitForURL(/\/docs\/tools#/);
    await expect(page.locator('#try-key').inputValue()).resolves.toBe(freeKey);
    const section = page.locator('article[id="tag/tools/GET/api/v1/tools/ccgen"]');
    await section.getByText('Try it', { exact: true }).click();
    const answered = page.waitForResponse((r) => r.url().includes('/api/v1/tools/ccgen'));
    await section.getByRole('button', { name: 'Send request' }).click();
    const res = await answered;
    await section.locator('.try-answer .status').filter({ hasText: '200' }).waitFor();
    expect(res.status()).toBe(200);
    expect(res.request().headers()['x-api-key']).toBe(freeKey);
    expect((await res.allHeaders())['x-ratelimit-limit']).toBe('200');
    await shots(page, 'docs-try-it', false); // the reference is many screens long: its visible part

    // Counted on the usage page (charts drawn, and the tables carry the figures).
    await until(page, '/dashboard/usage', async () => (await page.locator('#recent-title ~ .table-wrap tbody tr').count()) === 1);
    expect(await page.locator('.card dl.facts').first().textContent()).toMatch(/Used in this window\s*1 of 200/);
    expect(await page.locator('#recent-title ~ .table-wrap tbody tr').first().textContent()).toMatch(/tools\/ccgen\s*200/);
    // The hourly chart's one bar, drawn on the server, and its hour labels in the browser's time zone.
    const hourly = page.locator('section[aria-labelledby="hourly-title"] svg.usage-chart');
    await expect(hourly.locator('rect.c2xx').count()).resolves.toBe(1);
    await expect(hourly.locator('rect.c2xx').evaluate((r) => (r as unknown as SVGGraphicsElement).getBBox().height > 0)).resolves.toBe(
      true,
    );
    const lastHour = hourly.locator('text.tick[data-hour]').last();
    const local = await page.evaluate(
      (iso) =>
        new Date(iso).toLocaleTimeString(
          undefined,
          new Date(iso).getMinutes() ? { hour: 'numeric', minute: '2-digit' } : { hour: 'numeric' },
        ),
      (await lastHour.getAttribute('data-hour'))!,
    );
    await expect(lastHour.textContent()).resolves.toBe(local);
    await shots(page, 'free-usage');
  }, 60_000);

  test('a Premium user creates, rotates and revokes a key; the revoked key gets 401 at once', async () => {
    const email = freshEmail('grace');
    const { page } = await open();
    await signUp(page, email, 'Grace');
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    await accounts.update((await accounts.byEmail(email))!.id, { plan: 'premium' });
    await page.goto(`${base}/dashboard`);
    await shots(page, 'premium-no-keys');

    await page.getByLabel(/^Name/).fill('billing <server>');
    await page.getByRole('button', { name: 'Create key' }).click();
    const first = (await page.locator('#new-key').textContent())!.trim();
    expect(first).toMatch(/^uua_[0-9A-Za-z]{36}$/);
    // Kept in this browser for /docs' Try it, under the key's record id.
    await page.waitForFunction((k) => Object.values(JSON.parse(sessionStorage.getItem('uua:keys') ?? '{}')).includes(k), first, {
      timeout: 10_000,
    });
    await shots(page, 'premium-key-created');
    const ok = await api(first);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('5000');

    // Shown once: a fresh look at the page has only the hint.
    await page.goto(`${base}/dashboard`);
    expect(await page.content()).not.toContain(first);
    expect(await page.locator('.card.key code').first().textContent()).toBe(`${first.slice(0, 8)}…${first.slice(-4)}`);

    // Rotate, the old key kept for an hour.
    const card = page.locator('.card.key').first();
    await card.getByText('Rotate', { exact: true }).click();
    await card.getByLabel('The old key keeps working').selectOption('1h');
    await shots(page, 'premium-rotate-form');
    await card.getByRole('button', { name: 'Rotate key' }).click();
    const second = (await page.locator('#new-key').textContent())!.trim();
    expect(second).not.toBe(first);
    await shots(page, 'premium-key-rotated');
    expect((await api(first)).status).toBe(200);
    expect((await api(second)).status).toBe(200);

    // Revoke the new key: a confirmation page (no script needed), then 401 at once.
    await page.goto(`${base}/dashboard`);
    const live = page.locator('.card.key', { has: page.locator('.badge.ok') });
    await live.getByRole('link', { name: 'Revoke…' }).click();
    await page.waitForURL(/\/revoke$/);
    await shots(page, 'premium-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke this key' }).click();
    await page.waitForURL(/done=revoked/);
    expect((await api(second)).status).toBe(401);
    await shots(page, 'premium-key-revoked');

    await until(page, '/dashboard/usage', async () => (await page.locator('#recent-title ~ .table-wrap tbody tr').count()) >= 2);
    await shots(page, 'premium-usage');
  }, 60_000);

  test('an admin upgrades an account and the next API answer carries X-RateLimit-Limit: 5000', async () => {
    const { page: admin } = await open();
    await signInPage(admin, base, ADMIN, PW, null);
    await admin.goto(`${base}/admin?q=${encodeURIComponent(user)}`);
    await shots(admin, 'admin-search');
    await admin.getByRole('link', { name: user }).click();
    await admin.getByLabel('Plan').selectOption('premium');
    await admin.getByRole('button', { name: 'Change plan' }).click();
    await admin.waitForURL(/done=plan/);
    await shots(admin, 'admin-plan-changed');

    // The upgraded user now holds personal keys; the first answer with one carries the Premium limit.
    const { page } = await open();
    await signInPage(page, base, user, PW);
    await page.getByLabel(/^Name/).fill('after upgrade');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    const res = await api(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('5000');
    await shots(page, 'upgraded-key-page');
  }, 60_000);

  test('no page asked another origin for anything; the portal pages broke no CSP rule and threw nothing', () => {
    expectPagesClean();
  });
});
