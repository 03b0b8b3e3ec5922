// /status claims only what was measured, in Debian's Chromium: on a server that never probed and was never
// called, no endpoint is called operational (the banner says nothing was measured, the rows say "No data",
// the admin's probe page too, and the page says probes are off); after a failed call the endpoint is
// degraded with its incident, and after a restart with nothing measured since it still is, the counts
// beside its open incident included. Screenshots: test-results/status-truth-*-{1280,390}.png.
import type { Page } from 'playwright-core';
import { testApp, listen, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, clearScreenshots, screenshot, signInPage } from '../helpers/browser.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const PW = 'correct horse battery';
const ADMIN = 'status-admin@example.com';
const ID = 'anime/creature-data';
const ROW = `#${ID.replace('/', '-')}`;
const run = chromiumAvailable() ? describe : describe.skip;

let fake: FakeUpstream;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let base = '';
const { open, expectPagesClean } = browserForTests(() => base);

const start = async (dataDir?: string) => {
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, UPSTREAM_POKEAPI_URL: fake.url }, { dataDir });
  server = await listen(t.app);
  base = server.url;
};
const stop = async () => {
  await server.close();
  await t.close();
};

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  clearScreenshots('status-truth-');
  fake = await fakeUpstream(() => ({ status: 500, text: 'down' }));
  await start();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
  await fake?.close();
});

async function shots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, `status-truth-${name}-${width}`, { fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The text of the first match, folded rows included (textContent: what the markup says, shown or not). */
const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

run('the status page says only what it measured', () => {
  test('a server that never probed and was never called: no endpoint is called operational', async () => {
    const { page } = await open();
    await page.goto(`${base}/status`);
    expect(await text(page, '.status-banner')).toBe('No endpoint has been measured lately: no calls and no probes');
    const main = await text(page, 'main');
    expect(main).not.toMatch(/operational/i);
    expect(main).toContain('This server runs no probes on a schedule: states come from real calls only.');
    expect(main).toMatch(/\d+ endpoints configured, 0 measured lately: \d+ with no data/);
    expect(await text(page, `${ROW} .badge`)).toBe('No data');
    const doc = (await (await fetch(`${base}/status.json`)).json()) as { state: string; counts: Record<string, number> };
    expect(doc.state).toBe('no_data');
    expect(doc.counts.operational).toBe(0);
    await shots(page, 'never-probed');

    // The admin's probe page agrees.
    await signInPage(page, base, ADMIN, PW, null);
    await page.goto(`${base}/admin/status`);
    expect(await text(page, `#probe-${ID.replace('/', '-')}`)).toMatch(/No data .*never probed/);
    expect(await text(page, 'table')).not.toMatch(/operational/i);
  }, 60_000);

  test('after a failed call, and after a restart with nothing measured since, the endpoint stays degraded beside its incident', async () => {
    const failed = await fetch(`${base}/api/v1/${ID}?resource=pokemon&id=1`, { headers: { 'X-API-Key': t.key } });
    expect(failed.status).toBe(502);
    await t.api.health.monitor.settled();
    const check = async (page: Page) => {
      await page.goto(`${base}/status`);
      expect(await text(page, '.status-banner')).toBe('Some endpoints are degraded');
      expect(await text(page, `${ROW} .badge`)).toBe('Degraded');
      expect(await text(page, `#incident-${(await t.api.health.monitor.incidents.open())[0].id} .badge`)).toBe('Degraded');
      const main = await text(page, 'main');
      expect(main).toMatch(/\d+ endpoints configured, 1 measured lately: 1 degraded, \d+ with no data/);
      expect(main).not.toMatch(/\boperational\b/);
    };
    await check((await open()).page);

    const dataDir = t.dataDir;
    await stop();
    await start(dataDir);
    const page = (await open()).page; // a page of the new server's origin
    await check(page);
    await shots(page, 'after-restart');
  }, 60_000);

  test('no page asked another origin for anything, broke a CSP rule or threw', () => {
    expectPagesClean();
  });
});
