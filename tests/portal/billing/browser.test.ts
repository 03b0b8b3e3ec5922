// The upgrade journey in Debian's Chromium: a Free user sees the plan table (prices from Stripe) on the key
// page, presses Upgrade, pays on the Stripe double's Checkout page, whose signed event reaches the webhook;
// back on the portal the key page shows Premium, and the next API answer for the account's key carries
// X-RateLimit-Limit: 5000 (Premium's limit in catalog/plans.yaml). The account page then lists the
// subscription. An account whose request for Premium was approved, then bought Enterprise, is told it is on
// Enterprise, never that it is on Premium now. Screenshots at 1280 and 390 px: test-results/billing-*.png. No portal page asks an origin
// other than the portal's and the double's, breaks the CSP (form-action lets the Upgrade form lead to
// Checkout) or throws.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { testApp, type TestApp } from '../../helpers/app.js';
import { browserForTests, chromiumAvailable, clearScreenshots, screenshot, signInPage } from '../../helpers/browser.js';
import { fakeStripe, PLAN_PRICES, PRICES, type FakeStripe } from '../../helpers/fake-stripe.js';
import { guardEdges } from '../../../engine/pipeline/client-error.js';
import { pino } from 'pino';
import { Accounts } from '../../../portal/accounts/accounts.js';
import { UpgradeRequests } from '../../../portal/accounts/upgrades.js';

const PW = 'correct horse battery';
const ADMIN = 'billing-admin@example.com';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let stripe: FakeStripe;
let server: http.Server;
let base = '';
const { open, expectPagesClean } = browserForTests(
  () => base,
  () => [stripe.url],
);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  stripe = await fakeStripe(PLAN_PRICES);
  // The port first: PUBLIC_URL (Checkout's success and cancel pages) names it.
  let app: http.RequestListener = (_req, res) => res.end();
  server = http.createServer((req, res) => app(req, res)).listen(0, '127.0.0.1');
  guardEdges(server, { bodyIdleMs: 30_000, requestMs: 5 * 60_000 });
  await new Promise((ok) => server.once('listening', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await testApp({ ...stripe.env(PRICES), PUBLIC_URL: base, ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  app = t.app;
  stripe.webhookUrl = `${base}/billing/webhook`;
  clearScreenshots('billing-');
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  await t?.close();
  await stripe?.close();
});

const shot = async (page: Page, name: string) => {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `billing-${name}-${width}`, { fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
};

run('the upgrade journey in Chromium', () => {
  test('Free → Upgrade → the double’s Checkout → the webhook → the key page shows Premium, the API answers 5000', async () => {
    const page = (await open()).page;
    const email = `journey-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Grace Billing');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard$/);

    await expect(page.getByRole('heading', { name: 'Your plan: Free' }).isVisible()).resolves.toBe(true);
    const premium = page.locator('ul.plans li', { has: page.getByRole('heading', { name: 'Premium' }) });
    expect(await premium.textContent()).toMatch(/\$20\.00 per month\s*5,000 requests per 24 hours/);
    await shot(page, 'plans-free');

    await page.getByRole('button', { name: 'Upgrade to Premium' }).click();
    await page.waitForURL((u) => u.origin === stripe.url);
    expect(await page.locator('#email').textContent()).toBe(email);
    expect(await page.locator('#amount').textContent()).toBe('20.00 USD');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/billing\/success\?session_id=cs_test_/);
    expect(await page.locator('main').textContent()).toContain('Your account is on Premium now');

    await page.goto(`${base}/dashboard`);
    await expect(page.getByRole('heading', { name: 'Your plan: Premium' }).isVisible()).resolves.toBe(true);
    await page.getByLabel(/^Name/).fill('journey');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(/\/dashboard\?new=/);
    const key = (await page.locator('#new-key').textContent())!.trim();
    const answer = await fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': key } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('5000');

    await page.goto(`${base}/account#billing`);
    const facts = await page.locator('#subscription').textContent();
    expect(facts).toMatch(/Subscription\s*Active Premium/);
    expect(facts).toMatch(/Current period\s*\d{4}-\d\d-\d\d .*to \d{4}-\d\d-\d\d/s);
    expect(facts).toMatch(/Next invoice\s*\d{4}-\d\d-\d\d/);
    expect(await page.locator('table.plan-history').textContent()).toMatch(/Free → Premium\s*billing/);
    await shot(page, 'account-premium');

    // An admin sees the subscription, and a manual change of its plan asks first.
    const adminPage = (await open()).page;
    await signInPage(adminPage, base, ADMIN, PW, null);
    await adminPage.waitForURL(/\/(dashboard|admin|account)/);
    await adminPage.goto(`${base}/admin?q=${encodeURIComponent(email)}`);
    expect(await adminPage.locator('tbody tr').first().textContent()).toMatch(/Active\s*premium/);
    await adminPage.getByRole('link', { name: email }).click();
    await adminPage.locator('form[action$="/plan"] select[name="plan"]').selectOption('enterprise');
    await adminPage.getByRole('button', { name: 'Change plan' }).click();
    await adminPage.getByRole('heading', { name: 'Change the plan of a paying account?' }).waitFor();
    expect(await adminPage.locator('main').textContent()).toContain('Stripe keeps billing $20.00 per month for Premium');
    await shot(adminPage, 'admin-confirm');
    await adminPage.getByRole('button', { name: 'Change to Enterprise anyway' }).click();
    await adminPage.waitForURL(/\?done=plan$/);
    expect(await adminPage.locator('table.plan-history').textContent()).toContain(ADMIN);
    await shot(adminPage, 'admin-account');
    expectPagesClean();
  }, 90_000);

  test('Premium by an approved request, then Enterprise bought: /account says Enterprise, not "on Premium now"', async () => {
    const page = (await open()).page;
    const email = `banner-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Ada Banner');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard$/);
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    const upgrades = new UpgradeRequests(t.api.database.db, accounts, pino({ level: 'silent' }));
    const account = (await accounts.byEmail(email))!;
    expect(await upgrades.request(account, 'premium', 'more calls')).toMatchObject({ status: 'pending' });
    expect(await upgrades.decide(account.id, { approve: true, by: 'admin' })).toBeDefined();
    await page.goto(`${base}/account`);
    await page.getByText('Your account is on Premium now.').waitFor();

    await page.goto(`${base}/dashboard`);
    await page.getByRole('button', { name: 'Upgrade to Enterprise' }).click();
    await page.waitForURL((u) => u.origin === stripe.url);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/billing\/success\?session_id=cs_test_/);
    expect(await page.locator('main').textContent()).toContain('Your account is on Enterprise now');

    await page.goto(`${base}/account`);
    const main = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    expect(main).toContain('Your plan: Enterprise');
    expect(main).toContain('Your account has changed plan since: it is on Enterprise.');
    expect(main).not.toContain('Your account is on Premium now');
    await shot(page, 'account-banner-enterprise');
    expectPagesClean();
  }, 90_000);
});
