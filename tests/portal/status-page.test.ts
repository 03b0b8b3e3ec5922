// /status in Debian's Chromium: the page follows a fake upstream going down and coming back (banner, the
// endpoint's badge, its incident), shows 90 days of bars (earlier days written into the history as the
// recorder would have), fits 390 px without sideways scrolling, and works with a keyboard (a category
// opens from its summary). An admin probes one endpoint on demand from /admin/status. Screenshots:
// test-results/status-*-{1280,390}.png.
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, screenshot, signInPage, clearScreenshots } from '../helpers/browser.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Locator, Page } from 'playwright-core';

const PW = 'correct horse battery';
const ADMIN = 'root@example.com';
const ID = 'anime/creature-data';
const run = chromiumAvailable() ? describe : describe.skip;
const DAY = 86_400_000;

let mode: 'up' | 'down' = 'up';
let fake: FakeUpstream;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base: string;
const { open, expectPagesClean } = browserForTests(() => base);

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  clearScreenshots('status-');
  fake = await fakeUpstream(() =>
    mode === 'down' ? { status: 500, text: 'down' } : { json: { id: 1, name: 'bulbasaur', count: 1, results: [{ name: 'bulbasaur' }] } },
  );
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, UPSTREAM_POKEAPI_URL: fake.url });
  const dayOf = (i: number): Record<string, number> =>
    i === 40 ? { 'fail|probe': 20, 'ok|probe': 4 } : i === 50 ? { 'fail|traffic': 3, 'ok|traffic': 40 } : { 'ok|probe': 24, 'ms|12': 24 };
  // Earlier days, as the history recorder would have written them: mostly good, one bad day, one mixed.
  const today = Math.floor(Date.now() / DAY) * DAY;
  await t.api.store.write(
    Array.from({ length: 60 }, (_, i) => ({
      kind: 'add' as const,
      coll: 'health-d',
      id: `${ID}|${today - (60 - i) * DAY}`,
      add: dayOf(i),
      ttlMs: 91 * DAY,
    })),
  );
  server = await listen(t.app);
  base = server.url;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
  await fake?.close();
});

let n = 0;
const call = () => fetch(`${base}/api/v1/${ID}?resource=pokemon&id=${++n}`, { headers: { 'X-API-Key': t.key } });

const text = async (l: Locator) => (await l.textContent())?.replace(/\s+/g, ' ').trim();

async function shots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `status-${name}-${width}`, { fullPage: true });
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

run('the status page', () => {
  test('follows the upstream down and back, with bars, an incident and a keyboard', async () => {
    const { page } = await open();
    // The portal's footer links the page.
    await page.goto(`${base}/`);
    await page.getByRole('contentinfo').getByRole('link', { name: 'Status' }).click();
    await page.waitForURL(/\/status$/);

    mode = 'down';
    for (let i = 0; i < 3; i++) expect((await call()).status).toBe(502);
    await t.api.health.monitor.settled();
    await page.goto(`${base}/status`);
    expect(await text(page.getByRole('status').first())).toBe('Some endpoints are down');
    const row = page.locator('#anime-creature-data');
    expect(await text(row.locator('.badge'))).toBe('Down');
    expect(await text(row.locator('.status-note'))).toContain('3 failed answers in a row (upstream_failed)');
    // The category with trouble is open; 90 days: the bad day and the mixed one, then today's failures.
    expect(await page.locator('#category-anime').getAttribute('open')).not.toBeNull();
    expect(await row.locator('svg.bars rect.up').count()).toBe(58);
    expect(await row.locator('svg.bars rect.part').count()).toBe(1);
    expect(await row.locator('svg.bars rect.down').count()).toBe(2);
    expect(await row.locator('svg.bars').getAttribute('aria-label')).toMatch(/^Uptime over 90 days: [\d.]+%; 3 days with failures$/);
    expect(await text(page.locator('.incidents').first())).toContain(ID);
    await shots(page, 'down');

    // A keyboard reaches a folded category's summary with Tab, and Enter opens it.
    const tools = page.locator('#category-tools');
    expect(await tools.getAttribute('open')).toBeNull();
    let reached = false;
    for (let i = 0; i < 200 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.parentElement?.id === 'category-tools');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    expect(await tools.getAttribute('open')).not.toBeNull();

    mode = 'up';
    for (let i = 0; i < 2; i++) expect((await call()).status).toBe(200);
    await t.api.health.monitor.settled();
    await page.goto(`${base}/status`);
    expect(await text(row.locator('.badge'))).toBe('Operational');
    expect(await page.getByText('No open incidents.').isVisible()).toBe(true);
    await page.getByText(/Resolved in the last 90 days \(1\)/).click();
    expect(await text(page.locator('.past .incident'))).toContain('Answers are good again');
    await shots(page, 'recovered');
  }, 60_000);

  test('an admin probes one endpoint on demand', async () => {
    const { page } = await open();
    await signInPage(page, base, ADMIN, PW, null);
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'Probes' }).click();
    await page.waitForURL(/\/admin\/status$/);
    const before = fake.calls.length;
    await page.getByRole('button', { name: `Probe now: ${ID}` }).click();
    await page.waitForURL(/probed=/);
    expect(await text(page.getByRole('status'))).toMatch(new RegExp(`${ID} answered 200 in \\d+ ms from pokeapi`));
    expect(fake.calls.slice(before).map((c) => c.path)).toEqual(['/pokemon/']);
    await shots(page, 'admin-probes');
  }, 60_000);

  test('no page asked another origin, broke the CSP or threw', () => expectPagesClean());
});
