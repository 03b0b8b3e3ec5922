// The front door: GET / (landing page for browsers, the JSON document for everyone else) and /docs, the
// interactive reference, in Debian's Chromium: every catalog endpoint listed under its category, the key
// filled in, a real call from the try-it, code samples in curl, JavaScript and Python, and nothing asked of
// another origin under the page's Content-Security-Policy. Screenshots: test-results/docs-*.png.
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { testApp, listen, KEYS, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser.js';

const hasChromium = chromiumAvailable();
const inBrowser = hasChromium ? test : test.skip;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  t = await testApp();
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

/**
 * What the reference's renderer is allowed to trip over: inline style attributes it sets (refused, no
 * visible effect) and its validator's one-time probe for eval (refused, it falls back). Anything else
 * (a script, style sheet, font, image or fetch refused) is a failure.
 */
const tolerated = (v: { directive: string; blocked: string }) =>
  v.directive === 'style-src-attr' || (v.directive === 'script-src' && v.blocked === 'eval');

function expectClean(w: WatchedPage) {
  expect(w.foreign).toEqual([]);
  expect(w.violations.filter((v) => !tolerated(v))).toEqual([]);
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

  test('/docs: strict CSP with only a per-response style nonce added; the anonymous key in plain view', async () => {
    const a = await request(t.app).get('/docs');
    const b = await request(t.app).get('/docs');
    expect(a.status).toBe(200);
    const csp = a.headers['content-security-policy'];
    expect(csp).toMatch(/^default-src 'self';/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(b.headers['content-security-policy']).not.toContain(nonce);
    expect(csp.split(';').filter((d: string) => /^(script|connect|img|font|media|frame|worker)-src/.test(d.trim()))).toEqual([]);
    expect(a.text).toContain(`Try it with the anonymous key: <code class="key">${KEYS.anonymous}</code>`);
    expect(a.text).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script
    expect(a.headers['cache-control']).toBe('no-store');
  });

  test('static files and the renderer come from this server, the renderer gzipped and cached for good under its version', async () => {
    const css = await request(t.app).get('/portal/static/style.css');
    expect(css.status).toBe(200);
    expect(css.type).toBe('text/css');
    const docs = await request(t.app).get('/docs');
    const vendor = /src="(\/portal\/vendor\/scalar\/[^"]+\/standalone\.js)"/.exec(docs.text)?.[1];
    expect(vendor).toBeDefined();
    for (const encoding of ['gzip', 'identity']) {
      const js = await request(t.app)
        .get(vendor!)
        .set('Accept-Encoding', encoding)
        .buffer(true)
        .parse((res, done) => {
          let n = 0;
          res.on('data', (c: Buffer) => {
            n += c.length;
          });
          res.on('end', () => done(null, n));
        });
      expect(js.status).toBe(200);
      expect(js.type).toBe('text/javascript');
      expect(js.headers['content-encoding']).toBe(encoding === 'gzip' ? 'gzip' : undefined);
      expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(js.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('in Chromium', () => {
  inBrowser('the landing page: categories with their counts, and links to the docs, sign-up and sign-in', async () => {
    const w = await open('/');
    const { page } = w;
    await expect(page.locator('h1').textContent()).resolves.toBe('Unified Utility API');
    const cards = page.locator('ul.categories > li');
    const expected = byCategory();
    expect(await cards.count()).toBe(13);
    for (const [category, ids] of expected) {
      const card = cards.filter({ has: page.locator(`a[href="/docs#tag/${category}"]`) });
      await expect(card.locator('.badge').textContent()).resolves.toBe(`${ids.length} endpoint${ids.length === 1 ? '' : 's'}`);
    }
    for (const [name, path] of [
      ['Create an account', '/signup'],
      ['Sign in', '/login'],
    ]) {
      expect(await page.locator('#main').getByRole('link', { name, exact: true }).getAttribute('href')).toBe(path);
    }
    await screenshot(page, 'docs-landing-1280', { fullPage: true });
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'docs-landing-390', { fullPage: true });
    await page.getByRole('link', { name: 'Explore the API reference' }).click();
    await page.waitForURL(`${server.url}/docs`);
    expectClean(w);
  });

  inBrowser('/docs lists every endpoint under its category, with the anonymous key filled in', async () => {
    const w = await open('/docs');
    const { page } = w;
    const ref = page.locator('#reference');
    await ref
      .getByRole('button', { name: /^Open Group/ })
      .first()
      .waitFor();
    await screenshot(page, 'docs-reference-1280');
    // Open every group of the sidebar, then read its links: #tag/{category}/{METHOD}/api/v1/{id}.
    const closed = ref.getByRole('button', { name: /^Open Group/ });
    while (await closed.count()) await closed.first().click();
    const listed = await ref.locator('aside a[href*="/api/v1/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const groups = new Map<string, string[]>();
    for (const href of listed) {
      const m = /^#tag\/([^/]+)\/(?:GET|POST)\/api\/v1\/(.+)$/.exec(href);
      if (m) groups.set(m[1], [...(groups.get(m[1]) ?? []), m[2]]);
    }
    const expected = byCategory();
    expect(expected.size).toBe(13);
    expect(t.api.endpoints).toHaveLength(79);
    for (const [category, ids] of expected) expect(groups.get(category)?.sort()).toEqual([...ids].sort());
    // The key field of the reference holds the anonymous key, which the page also shows in plain view.
    expect(await ref.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).toContain(KEYS.anonymous);
    await expect(page.locator('.docs-intro code.key').textContent()).resolves.toBe(KEYS.anonymous);
    expectClean(w);
  });

  inBrowser(
    'the try-it calls the endpoint on this server with the key and shows the 200 answer; curl, JavaScript and Python samples',
    async () => {
      const w = await open('/docs#tag/tools/GET/api/v1/tools/ccgen');
      const { page } = w;
      const op = page.locator('section[id$="tag/tools/GET/api/v1/tools/ccgen"]');
      await op.waitFor();

      // Code samples: curl by default, with the key as a header; JavaScript and Python a choice away.
      const sample = op.locator('.scalar-code-block').first();
      await expect(sample.textContent()).resolves.toMatch(/curl[\s\S]*X-API-Key: test-anonymous-key/);
      const pick = async (language: string, client: string) => {
        await op
          .getByRole('button', { name: /Curl|Fetch|Requests/ })
          .first()
          .click();
        await page.getByRole('group', { name: language }).getByRole('option', { name: client, exact: true }).click();
        return sample.textContent();
      };
      await expect(pick('JavaScript', 'Fetch')).resolves.toMatch(/fetch\(/);
      await expect(pick('Python', 'Requests')).resolves.toMatch(/requests\.get\(/);
      await expect(pick('Shell', 'Curl')).resolves.toMatch(/^curl|curl /);

      // Test Request opens the client; Send makes a real call to this server.
      await op.getByRole('button', { name: /Test Request/ }).click();
      const client = page.getByRole('dialog');
      await client.waitFor();
      const sent = page.waitForRequest((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
      const answered = page.waitForResponse((r) => r.url().startsWith(`${server.url}/api/v1/tools/ccgen`));
      await client.getByRole('button', { name: /^Send/ }).first().click();
      const req = await sent;
      const res = await answered;
      expect(new URL(req.url()).searchParams.get('bin')).toBe('457173');
      expect(req.headers()['x-api-key']).toBe(KEYS.anonymous);
      expect(new URL(req.url()).searchParams.get('apikey')).toBeNull(); // the key is never in the URL
      expect(res.status()).toBe(200);
      expect((await res.json()).data.bin).toBe('457173');
      await client.getByText('200 OK').waitFor();
      await client.getByText('"test_data"').first().waitFor(); // the body is rendered, not only received
      await screenshot(page, 'docs-try-it-1280');
      expectClean(w);
    },
  );

  inBrowser('a key this tab holds (put there by the key page) is preferred to the default', async () => {
    const w = await watchedPage(browser, server.url);
    pages.push(w);
    const { page } = w;
    await page.addInitScript((key) => sessionStorage.setItem('uua:apiKey', key), KEYS.premium);
    await page.goto(`${server.url}/docs`);
    await page.locator('#key-note').waitFor();
    await expect(page.locator('#key-note').textContent()).resolves.toContain(KEYS.premium.slice(-4));
    await page.waitForFunction(
      (key) => Array.from(document.querySelectorAll<HTMLInputElement>('#reference input')).some((i) => i.value === key),
      KEYS.premium,
    );
    expectClean(w);
  });

  inBrowser('the reference reads well at 390 px', async () => {
    const w = await open('/docs', 390);
    const { page } = w;
    await page.locator('#reference .scalar-app, #reference [class*="scalar"]').first().waitFor();
    await page.locator('#reference h1').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'docs-reference-390');
    expectClean(w);
  });
});

afterEach(async () => {
  for (const w of pages.splice(0)) await w.page.close().catch(() => {});
});
