// The request inspector in Debian's Chromium, the journey of a developer whose call failed: the failing
// call's request id (from its answer) → the search on /dashboard/requests → the call's page with the
// timeline of the providers tried (both weather providers failing) → Replay in Try it, which opens the
// reference with the call's parameters and sends it again with the developer's key; that call is in the
// log too. Screenshots: test-results/requests-*.png. No page asks another origin or breaks the CSP.
import type { Page } from 'playwright-core';
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot, signInPage } from '../helpers/browser.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const EMAIL = 'journey@example.com';
const run = chromiumAvailable() ? describe : describe.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let down: FakeUpstream;
let base: string;
const { open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  // Every weather provider failing: Open-Meteo (its geocoder and forecast) and wttr.in answer 500.
  down = await fakeUpstream(() => ({ status: 500, text: 'upstream is down' }));
  t = await testApp({
    UPSTREAM_OPEN_METEO_GEO_URL: down.url,
    UPSTREAM_OPEN_METEO_URL: down.url,
    UPSTREAM_WTTR_URL: down.url,
  });
  server = await listen(t.app);
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
  await down?.close();
});

const shot = (page: Page, name: string) => screenshot(page, `requests-${name}`, { fullPage: true });

run('from a failing call to its providers and Replay in Try it', () => {
  test('the journey', async () => {
    const accounts = new Accounts(t.api.database.db, t.api.keys);
    const account = (await accounts.create({ email: EMAIL, name: 'Journey', password: PW, role: 'user' }))!;
    await accounts.update(account.id, { plan: 'premium' });
    const { key } = await t.api.keys.issue('premium', 'bot', account.id);

    // The bot's call fails; its answer carries the request id.
    const failed = await fetch(`${base}/api/v1/utilities/wth?city=Lemuria`, { headers: { 'X-API-Key': key } });
    expect(failed.status).toBe(502);
    const requestId = failed.headers.get('x-request-id')!;
    await t.api.requestLog!.flush();

    const w = await open();
    const page = w.page;
    await signInPage(page, base, EMAIL, PW);
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.waitForURL(/\/dashboard\/requests$/);
    expect(await page.locator('table.requests').innerText()).toContain(requestId);
    await shot(page, 'list');

    await page.getByLabel('Request id', { exact: true }).fill(requestId);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(new RegExp(`/dashboard/requests/${requestId}$`));
    await shot(page, 'call');
    const steps = page.locator('ol.timeline > li');
    expect(await steps.count()).toBe(2);
    expect(await steps.nth(0).innerText()).toMatch(/^open-meteo\s+502\s+upstream_failed/);
    expect(await steps.nth(1).innerText()).toMatch(/^wttr\s+502\s+upstream_failed/);
    expect(await page.locator('dl.facts').innerText()).toContain('utilities/wth');

    await page.getByRole('link', { name: 'Replay in Try it' }).click();
    await page.waitForURL(/\/docs\/utilities\?/);
    const form = page.locator('form.try-form[data-path="/api/v1/utilities/wth"]');
    await form.locator('input[name="city"]').waitFor({ state: 'visible' });
    expect(await form.locator('input[name="city"]').inputValue()).toBe('Lemuria');
    await shot(page, 'replay');

    // Sent again with the bot's key, pasted as the reference asks for a personal key.
    await page.getByLabel('Key for Try it').selectOption({ index: 0 });
    await page.getByLabel(/Paste this key/).fill(key);
    await page.getByLabel(/Paste this key/).dispatchEvent('change');
    await form.getByRole('button', { name: 'Send request' }).click();
    // The answer is shown beside the form, in the same Try it.
    await form.locator('xpath=..').locator('.try-answer .status').filter({ hasText: '502' }).waitFor();

    await t.api.requestLog!.flush();
    await page.goto(`${base}/dashboard/requests?endpoint=utilities/wth`);
    expect(await page.locator('table.requests tbody tr').count()).toBe(2);
    expectPagesClean();
  }, 60_000);
});
