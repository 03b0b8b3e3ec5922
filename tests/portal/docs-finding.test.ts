// Finding one's way in the reference, in Debian's Chromium: the search box (`/` and Ctrl-K) finds endpoints
// by title, id, parameter and provider from /docs/search.json, still when the network is gone; every
// endpoint has a human title beside its id; copy buttons copy every sample, key and URL; a category's
// operations are listed at the top on a phone and beside the page on a wide screen, and a long category
// folds them; Try it shows the answer's status, time, headers (the allowance's first) and body, and the
// request as code in each language with the values typed; axe finds nothing on these pages, in either
// theme, with the search and Try it open. Screenshots: test-results/docs-finding-*.png.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { testApp, listen, KEYS, type TestApp } from '../helpers/app.js';
import { browserForTests, chromiumAvailable, clearScreenshots, screenshot } from '../helpers/browser.js';

const run = chromiumAvailable() ? describe : describe.skip;
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PUBLIC_URL = 'http://127.0.0.1:3999'; // the test app's PUBLIC_URL: the samples' URLs

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
const { open, expectPagesClean } = browserForTests(() => server.url);

beforeAll(async () => {
  clearScreenshots('docs-finding-');
  t = await testApp();
  server = await listen(t.app);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const ccgen = (page: Page) => page.locator('article[id="tag/tools/GET/api/v1/tools/ccgen"]');

describe('the search index and the titles', () => {
  test('/docs/search.json: every endpoint once, with its title, id, parameters and providers, kept by browsers', async () => {
    const res = await request(t.app).get('/docs/search.json');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    const entries = res.body as Array<Record<string, any>>;
    expect(entries.map((e) => e.id).sort()).toEqual(t.api.endpoints.map((e) => e.id).sort());
    const dlD = entries.find((e) => e.id === 'downloaders/dl-d')!;
    expect(dlD).toMatchObject({ title: 'TikTok video without watermark', method: 'GET', params: expect.arrayContaining(['url']) });
    expect(dlD.providers).toEqual(expect.arrayContaining(['cobalt media downloader', 'tikwm']));
    expect(dlD.href).toBe('/docs/downloaders#tag/downloaders/GET/api/v1/downloaders/dl-d');
  });

  test('every catalog endpoint has a title of its own, shown as the heading beside the unchanged id', async () => {
    const titles = t.api.endpoints.map((e) => e.title);
    expect(titles.every((x) => typeof x === 'string' && x.length >= 3)).toBe(true);
    expect(new Set(titles).size).toBe(titles.length);
    const page = (await request(t.app).get('/docs/downloaders')).text;
    expect(page).toContain('TikTok video without watermark <span class="op-id">— dl-d</span></h2>');
    expect(page).toContain(`<code class="url" data-copy="${PUBLIC_URL}/api/v1/downloaders/dl-d">/api/v1/downloaders/dl-d</code>`);
    // The spec's ids and paths are the OpenAPI document's as before; the title rides along as x-title.
    const doc = (await request(t.app).get('/openapi.json')).body;
    expect(doc.paths['/api/v1/downloaders/dl-d'].get).toMatchObject({
      'x-title': 'TikTok video without watermark',
      operationId: expect.any(String),
    });
  });
});

/** axe-core's violations on the page as it is now, of any impact: "rule (nodes)" by impact. */
async function axe(page: Page): Promise<Record<string, string[]>> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: Array<{ id: string; impact: string; nodes: unknown[] }>;
  };
  const out: Record<string, string[]> = {};
  for (const v of result.violations) (out[v.impact] ??= []).push(`${v.id} (${v.nodes.length})`);
  return out;
}

run('in Chromium', () => {
  test('search: "/" and Ctrl-K focus the box; "tiktok" finds dl-d, "weather" finds wth, and the arrow keys lead there, offline too', async () => {
    const w = await open();
    const { page } = w;
    const indexed = page.waitForResponse(`${server.url}/docs/search.json`);
    await page.goto(`${server.url}/docs/tools`);
    await indexed;
    const box = page.getByRole('searchbox', { name: 'Search endpoints' });
    const results = page.locator('#docs-search-results a');

    await page.keyboard.press('/');
    await expect(box.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('tiktok');
    await expect(results.first().textContent()).resolves.toContain('downloaders/dl-d');
    await expect(results.first().locator('strong').textContent()).resolves.toBe('TikTok video without watermark');
    await screenshot(page, 'docs-finding-search-1280');

    // The index is in the browser: with the network gone the box still answers.
    await page.context().setOffline(true);
    await page.locator('h1').click(); // away from the box: Ctrl-K brings it back, its text selected
    await page.keyboard.press('Control+k');
    await expect(box.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('weather');
    await expect(results.first().textContent()).resolves.toContain('utilities/wth');
    // By parameter and by provider too.
    await box.fill('bin');
    await expect(results.allTextContents()).resolves.toEqual(expect.arrayContaining([expect.stringContaining('tools/ccgen')]));
    await box.fill('open-meteo');
    await expect(results.first().textContent()).resolves.toContain('utilities/wth');
    await box.fill('nothing matches this');
    await expect(page.locator('#docs-search-status').textContent()).resolves.toBe('No endpoint matches');
    await expect(results.count()).resolves.toBe(0);
    await page.context().setOffline(false);

    // Down to the first result, Enter: the operation on its page, opened though its category folds.
    await box.fill('weather');
    await results.first().waitFor();
    await page.keyboard.press('ArrowDown');
    await expect(results.first().evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/docs/utilities#tag/utilities/GET/api/v1/utilities/wth`, { waitUntil: 'commit' });
    await page.waitForLoadState('domcontentloaded');
    const wth = page.locator('article[id="tag/utilities/GET/api/v1/utilities/wth"]');
    await expect(wth.locator('details.op-more').evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(true);
    await expect(wth.locator('h2').textContent()).resolves.toBe('Weather of a city — wth');
    await expect(wth.locator('h2').isVisible()).resolves.toBe(true);
    // Typing "/" into a field types it: the shortcut is not taken there.
    await wth.getByText('Try it', { exact: true }).click();
    await wth.locator('input[name="city"]').fill('');
    await page.keyboard.type('a/b');
    await expect(wth.locator('input[name="city"]').inputValue()).resolves.toBe('a/b');
  });

  test('copy buttons: every sample, key and URL has one, and it copies exactly what is shown', async () => {
    const w = await open();
    const { page } = w;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(`${server.url}/docs/tools`);
    await page.locator('pre + button.copy').first().waitFor();
    const copies = await page.evaluate(() => ({
      pre: document.querySelectorAll('pre').length,
      preCopied: Array.from(document.querySelectorAll('pre')).filter((p) => p.nextElementSibling?.matches('button.copy')).length,
      keys: document.querySelectorAll('code.key, code[data-copy]').length,
      keysCopied: Array.from(document.querySelectorAll('code.key, code[data-copy]')).filter((p) =>
        p.nextElementSibling?.matches('button.copy'),
      ).length,
    }));
    expect(copies.pre).toBeGreaterThan(6);
    expect(copies).toEqual({ ...copies, preCopied: copies.pre, keysCopied: copies.keys });
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

    const op = ccgen(page);
    const sample = op.locator('figure.sample:visible pre');
    await op.getByRole('button', { name: 'Copy curl sample' }).click();
    await expect(clipboard()).resolves.toBe(await sample.textContent());
    await expect(clipboard()).resolves.toMatch(/^curl -H 'X-API-Key: test-anonymous-key'/);
    await op.getByRole('button', { name: 'Copied curl sample' }).waitFor();
    await op.getByRole('button', { name: 'Copy URL' }).click();
    await expect(clipboard()).resolves.toBe(`${PUBLIC_URL}/api/v1/tools/ccgen`);
    await page.goto(`${server.url}/docs`);
    await page.getByRole('button', { name: 'Copy key' }).first().click();
    await expect(clipboard()).resolves.toBe(KEYS.anonymous);
    await page.getByRole('button', { name: 'Copy code' }).first().click(); // the MCP client's settings
    await expect(clipboard()).resolves.toContain('"mcpServers"');
  });

  test("a category's list of endpoints: at the top on a phone, beside the page on a wide screen; a long category folds", async () => {
    const w = await open();
    const { page } = w;
    const ids = t.api.endpoints.filter((e) => e.category === 'gen-models').map((e) => e.name);
    expect(ids.length).toBeGreaterThan(6);

    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${server.url}/docs/gen-models`);
    const index = page.locator('nav.op-index');
    await expect(index.isVisible()).resolves.toBe(true);
    await expect(index.locator('a .op-id').allTextContents()).resolves.toEqual(ids);
    await expect(page.locator('.docs-nav ul.ops').isVisible()).resolves.toBe(false);
    const first = page.locator('article.op').first();
    expect((await index.boundingBox())!.y).toBeLessThan((await first.boundingBox())!.y);
    // Folded: headings and summaries only, so the page is a list to scan (it was 29,000 px tall at 390 px).
    await expect(page.locator('details.op-more[open]').count()).resolves.toBe(0);
    const tall = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(tall).toBeLessThan(9000);
    await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBeLessThanOrEqual(0);
    await screenshot(page, 'docs-finding-gen-models-390');
    await screenshot(page, 'docs-finding-gen-models-390-full', { fullPage: true });
    // A link of the list opens the operation it leads to.
    await index.getByRole('link', { name: /^Claude chat chat-11$/ }).click();
    const claude = page.locator('article[id="tag/gen-models/POST/api/v1/gen-models/chat-11"]');
    await expect(claude.locator('details.op-more').evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(true);
    // Opened, it shows curl's sample with its Copy button; another language's is written in the browser when chosen.
    await expect(claude.locator('.samples figure:visible').getAttribute('data-lang')).resolves.toBe('curl');
    await page.getByRole('button', { name: 'Python', exact: true }).click();
    await expect(claude.locator('.samples figure:visible code').textContent()).resolves.toMatch(/^import requests[\s\S]*requests\.post\(/);
    await claude.locator('.samples figure:visible pre + button.copy').waitFor();
    await page.getByRole('button', { name: 'curl', exact: true }).click();
    await screenshot(page, 'docs-finding-gen-models-390-opened');

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/docs/gen-models`);
    await expect(index.isVisible()).resolves.toBe(false);
    const side = page.locator('.docs-nav ul.ops');
    await expect(side.isVisible()).resolves.toBe(true);
    await expect(side.locator('a .op-id').allTextContents()).resolves.toEqual(ids);
    const body = (await page.locator('.docs-body').boundingBox())!;
    const nav = (await side.boundingBox())!;
    expect(nav.x + nav.width).toBeLessThanOrEqual(body.x);
    expect(nav.y).toBeLessThan(body.y + 400);
    await screenshot(page, 'docs-finding-gen-models-1280');
    // A short category shows its operations whole.
    await page.goto(`${server.url}/docs/tools`);
    await expect(page.locator('details.op-more').count()).resolves.toBe(0);
    await screenshot(page, 'docs-finding-tools-1280');
  });

  test("Try it: status, time, headers with the allowance's first, the body, and the request as code in each language with the values typed", async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${server.url}/docs/tools`);
    const op = ccgen(page);
    await op.getByText('Try it', { exact: true }).click();
    await op.getByLabel('bin (required)').fill('411111');
    const answered = page.waitForResponse((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
    await op.getByRole('button', { name: 'Send request' }).click();
    const res = await answered;
    expect(res.status()).toBe(200);
    const answer = op.locator('.try-answer');
    await answer
      .locator('.status')
      .filter({ hasText: /^200 OK · \d+ ms$/ })
      .waitFor();
    const names = await answer.locator('.try-headers th').allTextContents();
    expect(names.slice(0, 3)).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
    expect(names).toContain('content-type');
    const remaining = await answer.locator('.try-headers tr', { hasText: 'x-ratelimit-remaining' }).locator('td').textContent();
    expect(remaining).toBe(res.headers()['x-ratelimit-remaining']);
    await expect(answer.locator('.try-body code').textContent()).resolves.toContain('"bin": "411111"');

    // The request as code: every language, with the value typed and the key sent; the chosen language shown.
    const snippet = (lang: string) => answer.locator(`.try-snippet figure[data-lang="${lang}"] code`).textContent();
    await expect(snippet('curl')).resolves.toBe(
      `curl -H 'X-API-Key: ${KEYS.anonymous}' \\\n  '${PUBLIC_URL}/api/v1/tools/ccgen?bin=411111'`,
    );
    await expect(snippet('javascript')).resolves.toContain(`await fetch("${PUBLIC_URL}/api/v1/tools/ccgen?bin=411111"`);
    await expect(snippet('python')).resolves.toContain('"bin": "411111"');
    await expect(snippet('php')).resolves.toContain(`http_build_query([\n    'bin' => '411111',\n])`);
    await expect(snippet('go')).resolves.toContain(`http.NewRequest("GET", "${PUBLIC_URL}/api/v1/tools/ccgen?bin=411111", nil)`);
    await expect(answer.locator('.try-snippet figure:visible').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await expect(answer.locator('.try-snippet figure:visible').getAttribute('data-lang')).resolves.toBe('go');
    await expect(op.locator('.samples figure:visible').getAttribute('data-lang')).resolves.toBe('go');
    await answer.scrollIntoViewIfNeeded();
    await screenshot(page, 'docs-finding-try-it-1280');

    // A POST with a JSON body: the snippet carries the typed text in each language's own words.
    await page.goto(`${server.url}/docs/cloud-storage`);
    const paste = page.locator('article[id="tag/cloud-storage/POST/api/v1/cloud-storage/paste-host"]');
    await paste.getByText('Try it', { exact: true }).click();
    await paste.getByLabel('paste (required)').fill("it's typed");
    await paste.getByRole('button', { name: 'Send request' }).click();
    const pasted = paste.locator('.try-answer');
    await pasted
      .locator('.status')
      .filter({ hasText: /^\d{3} / })
      .waitFor();
    const postSnippet = (lang: string) => pasted.locator(`.try-snippet figure[data-lang="${lang}"] code`).textContent();
    await expect(postSnippet('curl')).resolves.toContain(`-d '{"paste":"it'\\''s typed"`);
    await expect(postSnippet('php')).resolves.toContain(`'paste' => 'it\\'s typed'`);
    await expect(postSnippet('go')).resolves.toContain('strings.NewReader("{\\"paste\\":\\"it\'s typed\\"');
  });

  test('axe finds no violation of any impact on the reference, light and dark, with the search and Try it open', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        const w = await open();
        const { page } = w;
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${server.url}/docs/tools`);
        await page.getByRole('searchbox', { name: 'Search endpoints' }).fill('card');
        await page.locator('#docs-search-results a').first().waitFor();
        const op = ccgen(page);
        await op.getByText('Try it', { exact: true }).click();
        await op.getByRole('button', { name: 'Send request' }).click();
        await op.locator('.try-answer .status').filter({ hasText: '200' }).waitFor();
        await page.getByRole('button', { name: 'Copy URL' }).first().click();
        expect({ page: `tools ${scheme} ${width}`, found: await axe(page) }).toEqual({ page: `tools ${scheme} ${width}`, found: {} });
        await screenshot(page, `docs-finding-axe-tools-${scheme}-${width}`);
        for (const path of ['/docs', '/docs/gen-models', '/docs/utilities#tag/utilities/GET/api/v1/utilities/wth']) {
          await page.goto(`${server.url}${path}`);
          await page.waitForLoadState('load');
          expect({ page: `${path} ${scheme} ${width}`, found: await axe(page) }).toEqual({ page: `${path} ${scheme} ${width}`, found: {} });
        }
        await page.close();
      }
    }
    expectPagesClean();
  }, 120_000);
});
