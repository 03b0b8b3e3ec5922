// The key page's figures against the calls made, in Debian's Chromium: a Premium account with two keys
// that made two calls each shows the account's one allowance once (4 of 5,000) and each key's own calls on
// its card (2 each); a key capped at 5 and spent stays spent across an upgrade and a downgrade; the keys
// shown once live in the tab's sessionStorage only (another tab, or the browser's localStorage, holds
// none). Screenshots: test-results/allowance-*-{1280,390}.png. No page asks another origin or breaks the CSP.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, clearScreenshots, screenshot } from '../helpers/browser.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  clearScreenshots('allowance-');
  t = await testApp();
  server = await listen(t.app);
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

async function shots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `allowance-${name}-${width}`, { fullPage: true });
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const call = (key: string) => fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': key } });
/** A part of the page as read (innerText: dt labels are upper-cased by the style sheet, so compared in lower case). */
const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Makes a key on the key page: its secret and record id, as the page shows them once. */
async function createKey(page: Page, name: string): Promise<{ key: string; id: string }> {
  await page.getByLabel(/^Name/).fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.waitForURL(/\/dashboard\?new=/);
  const shown = page.locator('#new-key');
  return { key: (await shown.innerText()).trim(), id: (await shown.getAttribute('data-key-id'))! };
}

run('the key page tells the account allowance and each key its own', () => {
  const email = `two-keys-${crypto.randomUUID().slice(0, 6)}@example.com`;
  let accountId = '';
  const keys: { key: string; id: string }[] = [];
  let page: Page;

  test('two keys, two calls each: the allowance once (4 of 5,000), each card its own 2; keys kept for the tab only', async () => {
    page = (await open()).page;
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Two Keys');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard$/);
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    accountId = (await accounts.byEmail(email))!.id;
    await accounts.update(accountId, { plan: 'premium' });
    await page.goto(`${base}/dashboard`);
    keys.push(await createKey(page, 'billing server'));
    keys.push(await createKey(page, 'test script'));

    // Kept in this tab's sessionStorage for /docs' Try it, never in localStorage (which outlives the browser).
    const held = await page.evaluate(() => ({ session: sessionStorage.getItem('uua:keys'), local: localStorage.getItem('uua:keys') }));
    expect(Object.values(JSON.parse(held.session ?? '{}'))).toEqual(expect.arrayContaining(keys.map((k) => k.key)));
    expect(held.local).toBeNull();
    // Another tab of the same browser holds none.
    const other = await page.context().newPage();
    await other.goto(`${base}/docs/tools`);
    await expect(other.evaluate(() => [sessionStorage.getItem('uua:keys'), localStorage.getItem('uua:keys')])).resolves.toEqual([
      null,
      null,
    ]);
    await other.close({ runBeforeUnload: false }).catch(() => {});

    for (const k of keys) for (let i = 0; i < 2; i++) expect((await call(k.key)).headers.get('x-ratelimit-remaining')).toMatch(/^49\d\d$/);
    expect((await call(keys[0].key)).headers.get('x-ratelimit-remaining')).toBe('4995'); // the account's one count
    await page.goto(`${base}/dashboard`);
    const allowance = squeeze(await page.locator('section[aria-labelledby="allowance-title"]').innerText());
    expect(allowance).toContain('your allowance: premium plan');
    expect(allowance).toContain('every key of your account spends its one allowance: 5,000 requests per 24 hours');
    expect(allowance).toContain('used in this window 5 of 5,000');
    expect(allowance).toContain('remaining 4,995');
    const card = (i: number) => page.locator(`#key-${keys[i].id}`);
    expect(squeeze(await card(0).innerText())).toContain('its calls in this window 3');
    expect(squeeze(await card(1).innerText())).toContain('its calls in this window 2');
    // The figure is said once: no card repeats the account's.
    expect(await page.getByText('of 5,000').count()).toBe(1);
    expect(await page.content()).not.toMatch(/own allowance of/);
    await shots(page, 'two-keys');
  }, 60_000);

  test('a key capped at 5 and spent stays spent across an upgrade and a downgrade', async () => {
    const capped = keys[1];
    const card = page.locator(`#key-${capped.id}`);
    await card.getByText('Limits', { exact: true }).click();
    await card.getByLabel(/^Cap of its own/).fill('5');
    await card.getByRole('button', { name: 'Save limits' }).click();
    await page.waitForURL(/done=limits/);
    // Two calls made already: three more, then the cap.
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(capped.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const accounts = new Accounts(t.api.database.db, t.api.keys);
    await accounts.update(accountId, { plan: 'enterprise' });
    const upgraded = await call(capped.key);
    expect(upgraded.status).toBe(429);
    expect(upgraded.headers.get('x-ratelimit-limit')).toBe('5');
    expect((await call(keys[0].key)).headers.get('x-ratelimit-limit')).toBe('50000');
    await page.goto(`${base}/dashboard`);
    expect(squeeze(await page.locator(`#key-${capped.id}`).innerText())).toContain('its own cap 5 of 5 used');
    expect(squeeze(await page.locator('section[aria-labelledby="allowance-title"]').innerText())).toContain(
      'your allowance: enterprise plan',
    );
    await shots(page, 'capped-enterprise');

    await accounts.update(accountId, { plan: 'premium' });
    expect((await call(capped.key)).status).toBe(429);
    await page.goto(`${base}/dashboard`);
    expect(squeeze(await page.locator(`#key-${capped.id}`).innerText())).toContain('its own cap 5 of 5 used');
  }, 60_000);

  test('no page asked another origin for anything, broke a CSP rule or threw', () => {
    expectPagesClean();
  });
});
