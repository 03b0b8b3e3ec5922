// The front door: GET / (landing page for browsers, the JSON document for everyone else) and the reference,
// /docs and /docs/<category>, rendered on the server from /openapi.json's document, in Debian's Chromium:
// every catalog endpoint on its category's page under the landing page's titles, the documented example
// answer, samples in curl, Node, Python, PHP and Go, a real call from Try it with the key in a header (the
// anonymous key, or a signed-in user's own key), links of the earlier renderer still landing, and not one
// CSP violation or request to another origin. Screenshots: test-results/docs-*.png.
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { testApp, listen, KEYS, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { categoryTitle } from '../../portal/docs/categories.js';

const hasChromium = chromiumAvailable();
const inBrowser = hasChromium ? test : test.skip;
const PW = 'correct horse battery';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  // Free accounts hold personal keys here, so a browser test can make one without an upgrade.
  t = await testApp({ FREE_PERSONAL_KEYS: 'true' });
  server = await listen(t.app);
  if (hasChromium) browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

async function open(path: string, width = 1280): Promise<WatchedPage> {
  const w = await watchedPage(browser, server.url, { width, height: 900 });
  pages.push(w);
  await w.page.goto(server.url + path);
  return w;
}

/** Not one CSP violation (the count the console would show), request to another origin or script error. */
function expectClean(w: WatchedPage) {
  expect(w.foreign).toEqual([]);
  expect(w.violations).toEqual([]);
  expect(w.errors).toEqual([]);
}

const byCategory = () => {
  const out = new Map<string, string[]>();
  for (const e of t.api.endpoints) out.set(e.category, [...(out.get(e.category) ?? []), e.id]);
  return out;
};

describe('GET / and /docs over HTTP', () => {
  test('JSON clients keep the service document; browsers get the landing page', async () => {
    const json = await request(t.app).get('/').set('Accept', 'application/json');
    expect(json.status).toBe(200);
    expect(json.type).toBe('application/json');
    expect(json.body).toMatchObject({ success: true, name: 'Unified Utility API', endpoints: 79 });
    const curl = await request(t.app).get('/').set('Accept', '*/*'); // what curl sends
    expect(curl.type).toBe('application/json');

    const page = await request(t.app).get('/').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html');
    expect(page.text).toContain('href="/docs"');
    expect(page.text).toContain('href="/signup"');
    expect(page.text).toContain('href="/login"');
    expect(page.text).toContain(KEYS.anonymous);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'self';/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });

  test("/docs and its category pages: the pages' strict CSP with nothing added, no inline script, the anonymous key in plain view", async () => {
    for (const path of ['/docs', '/docs/tools']) {
      const res = await request(t.app).get(path);
      expect(res.status).toBe(200);
      const csp = res.headers['content-security-policy'];
      expect(csp).toMatch(/^default-src 'self';/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce|https?:|\*/);
      expect(csp.split(';').filter((d: string) => /^(script|style|connect|img|font|media|frame|worker)-src/.test(d.trim()))).toEqual([]);
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script
      expect(res.text).not.toMatch(/\sstyle="/); // no inline style
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect((await request(t.app).get('/docs')).text).toContain(`Try it with the anonymous key: <code class="key">${KEYS.anonymous}</code>`);
    const missing = await request(t.app).get('/docs/no-such-category').set('Accept', 'text/html');
    expect(missing.status).toBe(404);
    expect(missing.type).toBe('text/html');
  });

  test("every endpoint is on its category page under the landing page's title, with curl's sample, the request for the other languages' and its example answer", async () => {
    const landing = (await request(t.app).get('/').set('Accept', 'text/html')).text;
    const expected = byCategory();
    expect(expected.size).toBe(13);
    for (const [category, ids] of expected) {
      const title = categoryTitle(category);
      expect(title).not.toBe(category.includes('-') ? category : '(none)'); // a readable title, not the id
      expect(landing).toContain(`<a href="/docs/${category}"><strong>${title.replace('&', '&amp;')}</strong></a>`);
      const res = await request(t.app).get(`/docs/${category}`);
      expect(res.text).toContain(`<h1>${title.replace('&', '&amp;')}</h1>`);
      const listed = [...res.text.matchAll(/<article class="op(?: folded)?" id="tag\/[^/]+\/(?:GET|POST)\/api\/v1\/([^"]+)"/g)].map(
        (m) => m[1],
      );
      expect(listed.sort()).toEqual([...ids].sort());
      // The page carries curl's sample and the request; the browser writes another language's when it is chosen.
      expect(res.text.split('data-lang="curl"')).toHaveLength(ids.length + 1);
      expect(res.text.split('data-request=')).toHaveLength(ids.length + 1);
      const answered = ids.filter((id) => (t.api.endpoints.find((e) => e.id === id)!.response as { examples?: unknown[] }).examples);
      expect(res.text.split('class="answer-example"')).toHaveLength(answered.length + 1);
    }
  });

  test('static files come from this server', async () => {
    for (const file of ['style.css', 'docs.js', 'theme.js']) {
      const res = await request(t.app).get(`/portal/static/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('in Chromium', () => {
  inBrowser('the landing page: categories with their counts, each a link to its page of the reference', async () => {
    const w = await open('/');
    const { page } = w;
    await expect(page.locator('h1').textContent()).resolves.toBe('Unified Utility API');
    const cards = page.locator('ul.categories > li');
    const expected = byCategory();
    expect(await cards.count()).toBe(13);
    for (const [category, ids] of expected) {
      const card = cards.filter({ has: page.locator(`a[href="/docs/${category}"]`) });
      await expect(card.locator('.badge').textContent()).resolves.toBe(`${ids.length} endpoint${ids.length === 1 ? '' : 's'}`);
    }
    await screenshot(page, 'docs-landing-1280', { fullPage: true });
    await page.getByRole('link', { name: 'Developer tools' }).click();
    await page.waitForURL(`${server.url}/docs/tools`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Developer tools');
    expectClean(w);
  });

  inBrowser(
    'Try it calls the endpoint on this server with the anonymous key in a header and shows the answer; samples switch language',
    async () => {
      // A link of the earlier renderer lands on the category page, at the operation.
      const w = await open('/docs#tag/tools/GET/api/v1/tools/ccgen');
      const { page } = w;
      await page.waitForURL(`${server.url}/docs/tools#tag/tools/GET/api/v1/tools/ccgen`);
      const op = page.locator('article[id="tag/tools/GET/api/v1/tools/ccgen"]');
      await expect(page.locator('#try-key').inputValue()).resolves.toBe(KEYS.anonymous);

      // Samples: curl first; Node, Python and the SDKs a button away, and the choice is remembered.
      const visible = () => op.locator('figure.sample:visible code').textContent();
      await expect(visible()).resolves.toMatch(/^curl -H 'X-API-Key: test-anonymous-key'/);
      await page.getByRole('button', { name: 'Node (fetch)' }).click();
      await expect(visible()).resolves.toMatch(/await fetch\(".*\/api\/v1\/tools\/ccgen\?bin=457173"/);
      // The SDKs' calls beside the raw requests (tests/sdks/packages.test.ts runs them).
      await page.getByRole('button', { name: 'TypeScript SDK' }).click();
      await expect(visible()).resolves.toMatch(/await api\.tools\.ccgen\(\{ bin: "457173" \}\)/);
      await page.getByRole('button', { name: 'Python SDK' }).click();
      await expect(visible()).resolves.toMatch(/answer = api\.tools\.ccgen\(bin="457173"\)/);
      await page.getByRole('button', { name: 'Python', exact: true }).click();
      await expect(visible()).resolves.toMatch(/requests\.get\([\s\S]*"bin": "457173"/);
      await page.reload();
      await expect(visible()).resolves.toMatch(/^import requests/);

      // The documented answer is a real one, not placeholders.
      const example = JSON.parse((await op.locator('pre.answer-example').textContent())!);
      expect(example.data.bin).toBe('457173');
      expect(example.data.cards.length).toBeGreaterThan(0);

      await op.getByText('Try it', { exact: true }).click();
      const sent = page.waitForRequest((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
      const answered = page.waitForResponse((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
      await op.getByRole('button', { name: 'Send request' }).click();
      const req = await sent;
      const res = await answered;
      expect(new URL(req.url()).searchParams.get('bin')).toBe('457173');
      expect(req.headers()['x-api-key']).toBe(KEYS.anonymous);
      expect(new URL(req.url()).searchParams.get('apikey')).toBeNull(); // the key is never in the URL
      expect(res.status()).toBe(200);
      await op.locator('.try-answer .status').filter({ hasText: '200' }).waitFor();
      await expect(op.locator('.try-answer .try-body code').textContent()).resolves.toContain('"bin": "457173"');
      await op.scrollIntoViewIfNeeded();
      await screenshot(page, 'docs-try-it-1280');
      expectClean(w);
    },
  );

  inBrowser("a signed-in user's Try it sends their own key: the key made on the key page is chosen, and counted as theirs", async () => {
    const w = await open('/signup');
    const { page } = w;
    const email = `docs-${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Docs Reader');
    await page.getByLabel('Password').fill(PW);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.locator('input[name="name"]').first().fill('docs key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    await page.waitForFunction((k) => Object.values(JSON.parse(sessionStorage.getItem('uua:keys') ?? '{}')).includes(k), key);

    await page.goto(`${server.url}/docs/tools`);
    const chosen = page.locator('#try-key option:checked');
    await expect(chosen.textContent()).resolves.toContain('docs key');
    await expect(page.locator('figure.sample:visible code').first().textContent()).resolves.toContain(key);
    const op = page.locator('article[id="tag/tools/GET/api/v1/tools/ccgen"]');
    await op.getByText('Try it', { exact: true }).click();
    const sent = page.waitForRequest((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
    await op.getByRole('button', { name: 'Send request' }).click();
    expect((await sent).headers()['x-api-key']).toBe(key);
    await op.locator('.try-answer .status').filter({ hasText: '200' }).waitFor();
    // Counted on that key's usage page (the usage history is written once a second).
    const id = await chosen.getAttribute('data-key-id');
    for (let tries = 0; tries < 25; tries++) {
      await page.goto(`${server.url}/dashboard/usage?key=${id}`);
      if (await page.locator('.status.s2xx').count()) break;
      await page.waitForTimeout(200);
    }
    await expect(page.locator('.status.s2xx').first().textContent()).resolves.toBe('200');

    // Signing out clears what the browser kept (Clear-Site-Data).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/`);
    await expect(page.evaluate(() => sessionStorage.getItem('uua:keys'))).resolves.toBeNull();
    expectClean(w);
  });

  inBrowser('the reference reads well at 390 px, and its pages log nothing to the console', async () => {
    const w = await watchedPage(browser, server.url, { width: 390, height: 900 });
    pages.push(w);
    const { page } = w;
    const logged: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') logged.push(`${m.type()}: ${m.text()}`);
    });
    for (const path of ['/docs', '/docs/tools']) await page.goto(server.url + path);
    await page.goto(`${server.url}/docs/gen-models`);
    await page.waitForLoadState('load');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'docs-reference-390');
    expect(logged).toEqual([]); // CSP refusals show there too: none
    expectClean(w);
  });
});

afterEach(async () => {
  for (const w of pages.splice(0)) await w.page.close().catch(() => {});
});
