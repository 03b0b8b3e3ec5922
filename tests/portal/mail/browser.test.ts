// The email journeys in Debian's Chromium, against a real SMTP server on loopback (one browser for the
// file): sign up and confirm the address from the mailed link; forgot password → email → reset → sign in,
// with the session signed in before gone; a change of address confirmed at the new one; quota alerts at
// 80% and 100% mailed, then turned off on /account. Pages are saved as test-results/mail-*.png, and the
// HTML part of a message is rendered too; no page asks another origin for anything or breaks the CSP.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { testApp, listen, type TestApp } from '../../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot, signInPage, clearScreenshots } from '../../helpers/browser.js';
import { smtpServer, linkIn, htmlOf, type Mailbox } from '../../helpers/smtp.js';
import { Accounts } from '../../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let box: Mailbox;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { opened, open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  clearScreenshots('mail-');
  box = await smtpServer();
  server = await listen((req, res) => t.app(req, res));
  base = server.url;
  // Links in the messages point at PUBLIC_URL: the port this test listens on.
  t = await testApp({ SMTP_URL: box.url, MAIL_FROM: 'Portal <portal@example.com>', PUBLIC_URL: base });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
  await box?.close();
});

let shot = 0;
const shots = (page: Page, name: string) => screenshot(page, `mail-${String(++shot).padStart(2, '0')}-${name}`, { fullPage: true });
const freshEmail = (who: string) => `${who}-${crypto.randomUUID().slice(0, 6)}@example.com`;

async function signUp(page: Page, email: string, name: string) {
  await page.goto(`${base}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PW);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/signup\/sent$/);
}

/** Signs up and confirms from the mailed link: the page ends signed in on the key page. */
async function confirmed(page: Page, email: string, name: string) {
  await signUp(page, email, name);
  await page.goto(`${base}${linkIn(await box.next(email, /Confirm your email/), '/signup/confirm')}`);
  await page.getByLabel('Password').fill(PW);
  await page.getByRole('button', { name: 'Confirm and sign in' }).click();
  await page.waitForURL(/\/dashboard$/);
}

run('email journeys in Chromium', () => {
  test('sign up, "check your inbox", the mailed link, the password: signed in; the message reads well as HTML', async () => {
    const email = freshEmail('ada');
    const { page } = await open();
    await signUp(page, email, 'Ada');
    expect(await page.locator('h1').textContent()).toBe('Check your inbox');
    await shots(page, 'check-inbox');
    // Before confirming, the account cannot sign in; the sign-in page says why, and mails the link again.
    await signInPage(page, base, email, PW, null);
    await page.getByText('Wrong email or password').waitFor();
    expect(await page.locator('#confirm-hint').textContent()).toContain('Use the link we emailed you');
    await shots(page, 'unconfirmed-sign-in');

    const first = await box.next(email, /Confirm your email/);
    const again = await box.next(email, /Confirm your email/);
    const message = await open();
    await message.page.setContent(htmlOf(first));
    expect(await message.page.getByRole('link', { name: 'Confirm my address' }).getAttribute('href')).toBe(
      `${base}${linkIn(first, '/signup/confirm')}`,
    );
    await shots(message.page, 'message-confirm-html');
    await message.page.close();
    opened.pop(); // a message is not a page of ours (it may load nothing, and did not)

    await page.goto(`${base}${linkIn(again, '/signup/confirm')}`);
    expect(await page.getByText(email).count()).toBeGreaterThan(0);
    await shots(page, 'confirm-page');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.waitForURL(/\/dashboard$/);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
  }, 60_000);

  test('forgot password → email → new password → sign in; the session signed in before is gone', async () => {
    const email = freshEmail('grace');
    const before = await open();
    await confirmed(before.page, email, 'Grace');

    const { page } = await open();
    await signInPage(page, base, email, 'not remembered at all', null);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(/\/login\/forgot$/);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('If an account has this address').waitFor();
    await shots(page, 'forgot-sent');

    await page.goto(`${base}${linkIn(await box.next(email, /Reset your/), '/login/reset')}`);
    await page.getByLabel(/^New password/).fill('a much newer passphrase');
    await shots(page, 'reset-form');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/login\?done=reset$/);
    await page.getByText('every device was signed out').waitFor();
    await shots(page, 'reset-done');

    await before.page.goto(`${base}/account`);
    await before.page.waitForURL(/\/login\?next=/);

    await signInPage(page, base, email, PW, null);
    await page.getByText('Wrong email or password').waitFor();
    await signInPage(page, base, email, 'a much newer passphrase', null);
    await page.waitForURL(/\/dashboard$/);
  }, 60_000);

  test('change of address: the link at the new address makes it, the old one is told', async () => {
    const old = freshEmail('old');
    const fresh = freshEmail('new');
    const { page } = await open();
    await confirmed(page, old, 'Lin');
    await page.goto(`${base}/account`);
    const form = page.locator('form[action="/account/email"]');
    await form.getByLabel('New email address').fill(fresh);
    await form.getByLabel('Current password').fill(PW);
    await form.getByRole('button', { name: 'Send a confirmation link' }).click();
    await page.waitForURL(/done=email-sent/);
    await shots(page, 'email-change-sent');
    expect(await page.locator('.muted strong').first().textContent()).toBe(old);

    expect((await box.next(old, /change of your .* email address/)).text).toContain(fresh);
    await page.goto(`${base}${linkIn(await box.next(fresh, /Confirm your new email/), '/account/email/confirm')}`);
    await shots(page, 'email-change-confirm');
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await page.waitForURL(/\/account\?done=email$/);
    await page.getByText('Your email address was changed.').waitFor();
    expect(await page.locator('.muted strong').first().textContent()).toBe(fresh);
  }, 60_000);

  test('quota alerts: mailed at 80% and 100% (the link opens the usage page), then turned off on /account', async () => {
    const email = freshEmail('quota');
    const { page } = await open();
    await confirmed(page, email, 'Quinn');
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    const id = (await accounts.byEmail(email))!.id;
    await accounts.update(id, { plan: 'premium' });
    const resetAt = new Date(Date.now() + 3600_000).toISOString();

    await page.goto(`${base}/account`);
    const alerts = page.getByLabel('Email me when my allowance reaches 80% and 100%');
    expect(await alerts.isChecked()).toBe(true);

    t.api.keys.events.emit('quota.warning', id, { plan: 'premium', limit: 5000, used: 4000, resetAt });
    const warning = await box.next(email, /80% of your API allowance/);
    t.api.keys.events.emit('quota.exhausted', id, { plan: 'premium', limit: 5000, used: 5000, resetAt });
    expect((await box.next(email, /used up/)).text).toContain('HTTP 429');
    await page.goto(linkIn(warning, '/dashboard/usage').replace(/^/, base));
    await page.waitForURL(/\/dashboard\/usage$/);

    await page.goto(`${base}/account#alerts`);
    await alerts.uncheck();
    await page.locator('form[action="/account/alerts"]').getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=alerts-off/);
    await page.getByText('Quota alerts are off.').waitFor();
    expect(await alerts.isChecked()).toBe(false);
    await shots(page, 'alerts-off');
    const next = new Date(Date.now() + 7200_000).toISOString();
    t.api.keys.events.emit('quota.warning', id, { plan: 'premium', limit: 5000, used: 4000, resetAt: next });
    await page.waitForTimeout(300);
    expect(box.waiting(email)).toHaveLength(0);
  }, 60_000);

  test('no page asked another origin for anything; none broke a CSP rule or threw', () => {
    expectPagesClean();
  });
});
