// The key page and the upgrade queue in Debian's Chromium: after "Create key" the browser lands on the page
// after the redirect with focus on the new key (a reload shows it no more), a user asks for an upgrade
// on /account, an admin approves it from /admin's queue, and the user deletes the account. Screenshots: test-results/keys-*.png. No
// page asks another origin or breaks the CSP.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot, signInPage } from '../helpers/browser.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const ADMIN = 'keys-admin@example.com';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { open: openWatched, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  server = await listen(t.app);
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const open = async (): Promise<Page> => (await openWatched()).page;

const shot = (page: Page, name: string) => screenshot(page, `keys-${name}`, { fullPage: true });

async function signUp(page: Page, email: string) {
  await page.goto(`${base}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name').fill('Ada Keys');
  await page.getByLabel('Password').fill(PW);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/dashboard$/);
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

run('the key page and the upgrade queue in Chromium', () => {
  const email = `ada-${crypto.randomUUID().slice(0, 6)}@example.com`;

  test('after creating a key, focus is on the new key; a reload shows it no more', async () => {
    const page = await open();
    await signUp(page, email);
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    await accounts.update((await accounts.byEmail(email))!.id, { plan: 'premium' });
    await page.goto(`${base}/dashboard`);
    await page.getByLabel(/^Name/).fill('weather app');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(/\/dashboard\?new=/);
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^uua_[0-9A-Za-z]{36}$/);
    expect(await focusedId(page)).toBe('new-key');
    // A screen reader announces it by its label; the key is in view.
    expect(await page.locator('#new-key').getAttribute('aria-label')).toBe('Your new key');
    expect(await page.locator('#new-key').isVisible()).toBe(true);
    await shot(page, 'created');

    await page.reload();
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    await page.getByText('That new key was shown once already').waitFor();
    expect(await t.api.keys.list({ accountId: (await accounts.byEmail(email))!.id })).toHaveLength(1);
  }, 60_000);

  test('a user asks for Enterprise on /account; the admin approves it from the queue on /admin', async () => {
    const page = await open();
    await signInPage(page, base, email, PW);
    await page.getByRole('link', { name: 'Request an upgrade' }).click();
    await page.waitForURL(/\/account#plan$/);
    await page.getByLabel('Plan you want').selectOption('enterprise');
    await page.getByLabel(/^Message to the administrators/).fill('Our weather app grew: about 20,000 calls a day.');
    await page.getByRole('button', { name: 'Request an upgrade' }).click();
    await page.waitForURL(/done=upgrade/);
    await page.getByText('It waits for an administrator').waitFor();
    await shot(page, 'account-request-pending');

    const admin = await open();
    await signInPage(admin, base, ADMIN, PW);
    await admin.goto(`${base}/admin`);
    const row = admin.locator('ul.queue li', { hasText: email });
    await row.getByText('Our weather app grew').waitFor();
    await shot(admin, 'admin-queue');
    // At 390 px the decision is on screen, not beyond a table that scrolls sideways.
    await admin.setViewportSize({ width: 390, height: 900 });
    const approve = (await row.getByRole('button', { name: `Approve Enterprise for ${email}` }).boundingBox())!;
    expect(approve.x + approve.width).toBeLessThanOrEqual(390);
    await admin.setViewportSize({ width: 1280, height: 900 });
    await row.getByRole('button', { name: `Approve Enterprise for ${email}` }).click();
    await admin.waitForURL(/done=approved/);
    expect(await admin.locator('ul.queue li', { hasText: email }).count()).toBe(0); // out of the queue
    await shot(admin, 'admin-approved');

    await page.goto(`${base}/account`);
    await page.getByText('Your account is on Enterprise now.').waitFor();
    await shot(page, 'account-approved');
  }, 60_000);

  test('the user deletes the account on /account: its key is refused at once, and its email and password sign in no more', async () => {
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    const id = (await accounts.byEmail(email))!.id;
    const { key } = await t.api.keys.issue('enterprise', 'to be deleted', id);
    const callWith = () => fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': key } });
    expect((await callWith()).status).toBe(200);

    const page = await open();
    await signInPage(page, base, email, PW);
    await page.goto(`${base}/account#delete`);
    await page.getByLabel('Your password, to confirm').fill('not my password');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText('Your current password is not right.').waitFor();
    await page.getByLabel('Your password, to confirm').fill(PW);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(/\/account\/deleted$/);
    await page.getByText('Your account is deleted').waitFor();
    await shot(page, 'account-deleted');

    expect((await callWith()).status).toBe(401);
    expect(await accounts.byEmail(email)).toBeUndefined();
    await signInPage(page, base, email, PW, null);
    await page.getByText('Wrong email or password').waitFor();
  }, 60_000);

  test('no page asked another origin for anything, broke a CSP rule or threw', () => {
    expectPagesClean();
  });
});
