// Passkeys in Debian's Chromium, with a virtual authenticator (the Chrome DevTools Protocol's WebAuthn
// domain: a platform authenticator that holds discoverable credentials and verifies its user): a user adds
// a passkey on /account/two-factor, signs out, signs in with the password and then the passkey as the
// second step, signs out again and signs in with the passkey alone. WebAuthn wants a real host name, so the
// app's PUBLIC_URL is http://localhost:<port>. No page asks another origin, breaks the CSP or throws.
// Screenshots: test-results/passkeys-*.png.
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { freePort, listen, testApp, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot } from '../helpers/browser.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  const port = await freePort();
  base = `http://localhost:${port}`;
  t = await testApp({ PUBLIC_URL: base });
  server = await listen(t.app, { port });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** A virtual platform authenticator for the page: discoverable credentials, the user verified. */
async function withAuthenticator(page: Page): Promise<{ credentials(): Promise<unknown[]> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

const signOut = async (page: Page) => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/`);
};

const shot = (page: Page, name: string) => screenshot(page, `passkeys-${name}`, { fullPage: true });

run('passkeys in Chromium with a virtual authenticator', () => {
  test('register a passkey, sign out, sign in with the password and the passkey, then with the passkey alone', async () => {
    const email = `pk-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await new Accounts(t.api.database.db, t.api.keys).create({ email, name: 'Ada Passkey', password: PW });
    const { page } = await open();
    const authenticator = await withAuthenticator(page);

    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/dashboard$/);

    // Register.
    await page.goto(`${base}/account/two-factor`);
    await page.getByLabel(/^Name of the new passkey/).fill('Virtual laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/\/account\/two-factor\?done=passkey$/);
    await page.getByText('Your passkey was added').waitFor();
    expect(await page.getByText('Virtual laptop').count()).toBe(1);
    expect(await authenticator.credentials()).toHaveLength(1);
    const account = (await new Accounts(t.api.database.db, t.api.keys).byEmail(email))!;
    const kept = await t.api.database.db.selectFrom('passkeys').selectAll().where('accountId', '=', account.id).execute();
    expect(kept).toHaveLength(1);
    expect(kept[0].name).toBe('Virtual laptop');
    await shot(page, 'added');
    await signOut(page);

    // The password, then the passkey as the second step.
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/login\/factor$/);
    await shot(page, 'second-step');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(/\/dashboard$/);
    await signOut(page);

    // The passkey alone: no email, no password.
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${base}/account`);
    await page.getByText(email).first().waitFor();
    const used = await t.api.database.db
      .selectFrom('passkeys')
      .select(['lastUsedAt', 'counter'])
      .where('accountId', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(used.lastUsedAt).not.toBeNull();
    expectPagesClean();
  }, 90_000);
});
