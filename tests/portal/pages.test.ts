// Every page a person meets, checked by tools nobody here wrote, in Debian's Chromium: axe-core finds no
// violation of any impact on any portal page (signed out, signed in, admin, the reference, a hosted
// paste, the error pages), in the light theme and the dark one; dark mode follows the system and a
// remembered toggle; browsers get HTML error pages (404, 403, 429 with its reset time, 500) in the portal's
// look while JSON clients and /api/ keep the envelope; an expired form gives back what was typed, never a
// password. Screenshots: test-results/pages-*-{light,dark}-{1280,390}.png; axe's counts:
// test-results/axe-counts.json.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { testApp, listen, KEYS, type TestApp } from '../helpers/app.js';
import {
  chromiumAvailable,
  clearScreenshots,
  launchBrowser,
  screenshot,
  signInPage,
  watchedPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { createPages } from '../../portal/shared/pages.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { csrfOf, signIn, submit, visitor } from '../helpers/portal.js';
import { base32Bytes, totpAt } from '../helpers/totp.js';
import { LogRecords } from '../../features/request-log/records.js';

const hasChromium = chromiumAvailable();
const inBrowser = hasChromium ? test : test.skip;
const PW = 'correct horse battery';
const ADMIN = 'root@example.com';
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let browser: Browser;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  clearScreenshots('pages-');
  // One sign-up per address a minute: the second one shows the 429 page.
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, SIGNUP_LIMIT: '1' });
  server = await listen(t.app);
  if (hasChromium) browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

async function page(scheme: 'light' | 'dark' = 'light', width = 1280): Promise<Page> {
  const w = await watchedPage(browser, server.url, { width, height: 900 });
  await w.page.emulateMedia({ colorScheme: scheme });
  opened.push(w);
  return w.page;
}

interface AxeResult {
  violations: Array<{ id: string; impact: string; nodes: unknown[] }>;
}

/** axe-core's violations on the page, by impact (evaluated through DevTools, so the page's CSP allows it). */
async function axe(p: Page): Promise<Record<string, string[]>> {
  await p.evaluate(AXE);
  const result = await p.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run());
  const out: Record<string, string[]> = {};
  for (const v of (result as AxeResult).violations) (out[v.impact] ??= []).push(`${v.id} (${v.nodes.length})`);
  return out;
}

const counts: Record<string, Record<string, number>> = {};

/** Opens `url` in both themes at 1280 and 390 px: axe in each, a screenshot of each. */
async function check(name: string, open: (p: Page) => Promise<void>, status?: number) {
  for (const scheme of ['light', 'dark'] as const) {
    const p = await page(scheme);
    await open(p);
    if (status) expect(await p.evaluate(() => document.title)).toBeTruthy();
    await p.waitForLoadState('load');
    const found = await axe(p);
    counts[`${name} ${scheme}`] = Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.length]));
    expect({ page: `${name} ${scheme}`, found }).toEqual({ page: `${name} ${scheme}`, found: {} });
    for (const width of [1280, 390]) {
      await p.setViewportSize({ width, height: 900 });
      await screenshot(p, `pages-${name}-${scheme}-${width}`, { fullPage: width === 390 });
    }
    // Closed once seen (what it watched stays in `opened` for the last check): Chromium keeps no page in the background.
    await p.close();
  }
}

const go = (path: string) => async (p: Page) => {
  await p.goto(`${server.url}${path}`);
};
/** A confirmed account made through the portal's own store (no mail). */
async function newAccount(email: string): Promise<string> {
  await new Accounts(t.api.database.db, t.api.keys).create({ email, name: 'Pages Two Step', password: PW });
  return email;
}

/** A new account with an authenticator app set up, its code computed apart from the portal's library. */
async function withAuthenticatorApp(email: string): Promise<string> {
  await newAccount(email);
  const a = visitor(t);
  await signIn(a, email, PW);
  await submit(a, '/account/two-factor', '/account/two-factor/totp', {});
  const setupPage = (await a.get('/account/two-factor/totp')).text;
  const secret = base32Bytes(/<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(setupPage)![1]);
  const done = await a
    .post('/account/two-factor/totp/confirm')
    .type('form')
    .send({ csrf: csrfOf(setupPage), code: totpAt(secret, Math.floor(Date.now() / 1000)) });
  expect(done.status).toBe(200);
  return email;
}

const signedIn =
  (email: string, path: string, lands: RegExp | null = /\/dashboard$/) =>
  async (p: Page) => {
    await signInPage(p, server.url, email, PW, lands);
    await p.goto(`${server.url}${path}`);
  };

describe('error pages over HTTP', () => {
  test('a browser gets a 404 page in the portal look; JSON clients and /api/ keep the envelope', async () => {
    const html = await request(t.app).get('/no-such-page').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(html.status).toBe(404);
    expect(html.type).toBe('text/html');
    expect(html.text).toContain('<p class="status-code">404</p>');
    expect(html.text).toContain('href="/portal/static/style.css"');
    expect(html.headers['content-security-policy']).toMatch(/^default-src 'self';/);
    const json = await request(t.app).get('/no-such-page').set('Accept', 'application/json');
    expect(json.status).toBe(404);
    expect(json.body).toMatchObject({ success: false, code: 'not_found' });
    const api = await request(t.app).get('/api/v1/no/such').set('Accept', 'text/html');
    expect(api.status).toBe(404);
    expect(api.type).toBe('application/json');
    const curl = await request(t.app).get('/no-such-page').set('Accept', '*/*');
    expect(curl.type).toBe('application/json');
    // The footer's Status link points at /status.
    expect(html.text).toContain('<a href="/status">Status</a>');
  });

  test('a 403 (not an admin) and a 429 (sign-ups from one address) are pages; the 429 says when to come back', async () => {
    // Each visitor with its own pre-session, all from the one test address.
    const signUp = async (email: string) => {
      const form = await request(t.app).get('/signup');
      const csrf = /name="csrf" value="([^"]*)"/.exec(form.text)![1];
      return request(t.app)
        .post('/signup')
        .set('Cookie', form.headers['set-cookie'])
        .type('form')
        .send({ csrf, email, name: 'Page Tester', password: PW });
    };
    expect((await signUp('pages-a@example.com')).status).toBe(303);
    const again = await signUp('pages-b@example.com');
    expect(again.status).toBe(429);
    expect(again.type).toBe('text/html');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(again.text).toMatch(/<p class="status-code">429<\/p>[\s\S]*Try again after \d\d:\d\d:\d\d UTC \(in \d+ seconds?\)/);

    const agent = request.agent(t.app);
    const login = await agent.get('/login');
    await agent
      .post('/login')
      .type('form')
      .send({ csrf: /name="csrf" value="([^"]*)"/.exec(login.text)![1], email: 'pages-a@example.com', password: PW });
    // (The key page's samples are in the three languages its text names.)
    const keys = (await agent.get('/dashboard')).text;
    expect(keys).toContain('curl -H &#39;X-API-Key: test-free-shared-key&#39;');
    expect(keys).toContain('const res = await fetch(');
    expect(keys).toContain('res = requests.get(');
    const admin = await agent.get('/admin').set('Accept', 'text/html');
    expect(admin.status).toBe(403);
    expect(admin.text).toContain('<p class="status-code">403</p>');
  });

  test('/favicon.ico answers with the site icon, as browsers and crawlers ask for it', async () => {
    const icon = await request(t.app).get('/favicon.ico').buffer(true);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const svg = fs.readFileSync(path.join('portal', 'static', 'favicon.svg'), 'utf8');
    expect(String(icon.body)).toBe(svg);
  });

  test('a 500 is a page that hides the error and logs it', async () => {
    const logged: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    const pages = createPages('Test Service', log);
    const app = express();
    app.get('/broken', () => {
      throw new Error('secret internals');
    });
    app.use(pages.browserErrorPage);
    const res = await request(app).get('/broken').set('Accept', 'text/html');
    expect(res.status).toBe(500);
    expect(res.type).toBe('text/html');
    expect(res.text).toContain('<p class="status-code">500</p>');
    expect(res.text).not.toContain('secret internals');
    expect(logged.join('')).toContain('secret internals');
  });

  test('an expired form says the session ended and gives back what was typed, never the password', async () => {
    const res = await request(t.app)
      .post('/login')
      .type('form')
      .send({ csrf: 'stale-token', email: 'typed@example.com', password: 'my secret passphrase' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('Your session ended');
    expect(res.text).toContain('value="typed@example.com"');
    expect(res.text).not.toContain('my secret passphrase');
    expect(res.text).toMatch(/<input id="typed-1" type="password" name="password" autocomplete="off">/);
    // The form again, with a fresh token of a new pre-session: sending it signs in as usual (here: wrong password).
    const csrf = /name="csrf" value="([^"]+)"/.exec(res.text)![1];
    const cookie = res.headers['set-cookie'];
    const resent = await request(t.app)
      .post('/login')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf, email: 'typed@example.com', password: 'x' });
    expect(resent.status).toBe(401);
    // Another site's post is refused without giving anything back.
    const foreign = await request(t.app)
      .post('/login')
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ csrf: 'x', email: 'typed@example.com', password: 'p' });
    expect(foreign.status).toBe(403);
    expect(foreign.text).not.toContain('typed@example.com');
  });
});

describe('in Chromium', () => {
  inBrowser(
    'axe finds no violation of any impact on any page, light or dark, at 1280 and 390 px',
    async () => {
      const paste = await request(t.app)
        .post('/api/v1/cloud-storage/paste-host')
        .set('X-API-Key', KEYS.premium)
        .send({ paste: 'hello from the pages test', name: 'a paste' });
      const pasteUrl = new URL(JSON.stringify(paste.body.data).match(/"(https?:\/\/[^"]+\/p\/[^"/]+)"/)![1]).pathname;

      await check('landing', go('/'));
      await check('docs', go('/docs'));
      await check('docs-tools', go('/docs/tools'));
      await check('docs-gen-models', go('/docs/gen-models'));
      await check('signup', go('/signup'));
      await check('login', go('/login'));
      await check('not-found', go('/no-such-page'), 404);
      await check('status', go('/status'));
      await check('paste', go(pasteUrl));
      await check('dashboard', signedIn(ADMIN, '/dashboard'));
      await check('usage', signedIn(ADMIN, '/dashboard/usage'));
      await check('webhooks', signedIn(ADMIN, '/dashboard/webhooks'));
      await check('account', signedIn(ADMIN, '/account'));
      await check('two-factor', signedIn(ADMIN, '/account/two-factor'));
      // An authenticator app's setup (its QR code and secret), and the second step of a sign-in.
      const setup = await newAccount('pages-setup@example.com');
      await check('two-factor-app-setup', async (p) => {
        await signInPage(p, server.url, setup, PW);
        await p.goto(`${server.url}/account/two-factor`);
        await p.getByRole('button', { name: 'Set up an authenticator app' }).click();
        await p.waitForURL(/\/account\/two-factor\/totp$/);
      });
      await check('login-factor', signedIn(await withAuthenticatorApp('pages-factor@example.com'), '/login/factor', /\/login\/factor/));
      await check('admin', signedIn(ADMIN, '/admin'));
      await check('admin-probes', signedIn(ADMIN, '/admin/status'));
      await check('admin-invites', signedIn(ADMIN, '/admin/invites'));
      // The request inspector: the operators' list (the paste above is on it) and one call's page with its
      // providers, the account's own list, and the reference opened by Replay in Try it.
      await t.api.requestLog!.flush();
      const logged = (await new LogRecords(t.api.database).list({ limit: 1 })).rows[0];
      await check('admin-requests', signedIn(ADMIN, '/admin/requests'));
      await check('admin-request', signedIn(ADMIN, `/admin/requests/${logged.id}`));
      await check('requests', signedIn(ADMIN, '/dashboard/requests'));
      await check('docs-replay', go('/docs/tools?try=%2Fapi%2Fv1%2Ftools%2Fccgen&p.bin=457173#tag/tools/GET/api/v1/tools/ccgen'));
      await check('docs-signed-in', signedIn(ADMIN, '/docs/tools'));
      let n = 0;
      await check('too-many-requests', async (p) => {
        // One sign-up per address a minute: a second one within it is the 429 page (the first may land anywhere).
        for (let attempt = 0; attempt < 3; attempt++) {
          await p.context().clearCookies();
          await p.goto(`${server.url}/signup`);
          await p.getByLabel('Email').fill(`pages-429-${++n}@example.com`);
          await p.getByLabel('Name').fill('Too Many');
          await p.getByLabel('Password').fill(PW);
          const answer = p.waitForResponse((r) => r.url() === `${server.url}/signup` && r.request().method() === 'POST');
          await p.getByRole('button', { name: 'Create account' }).click();
          if ((await answer).status() === 429) break;
        }
        await p.getByRole('heading', { name: 'Too many sign-ups from your address' }).waitFor();
      });
      await check('expired-form', async (p) => {
        await p.goto(`${server.url}/login`);
        await p.getByLabel('Email').fill('typed@example.com');
        await p.getByLabel('Password').fill('a password');
        await p.context().clearCookies(); // the session ends while the form is open
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByRole('heading', { name: 'Your session ended' }).waitFor();
        await expect(p.getByLabel('email').inputValue()).resolves.toBe('typed@example.com');
      });
      fs.mkdirSync('test-results', { recursive: true });
      fs.writeFileSync(path.join('test-results', 'axe-counts.json'), `${JSON.stringify(counts, null, 2)}\n`);
      for (const w of opened) {
        expect(w.foreign).toEqual([]);
        expect(w.violations).toEqual([]);
        expect(w.errors).toEqual([]);
      }
    },
    420_000,
  );

  inBrowser('dark mode: the system setting, and a toggle remembered across pages and visits', async () => {
    const p = await page('light');
    await p.goto(`${server.url}/`);
    const bg = () => p.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await bg();
    // The button names the theme it switches to.
    await p.getByRole('button', { name: 'Dark mode' }).click();
    await p.getByRole('button', { name: 'Light mode' }).waitFor();
    const dark = await bg();
    expect(dark).not.toBe(light);
    // Remembered: the next page is dark from the server's first byte (data-theme), before any script.
    const next = await request(t.app)
      .get('/docs')
      .set('Cookie', (await p.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '));
    expect(next.text).toMatch(/^<!doctype html>\n<html lang="en" data-theme="dark">/);
    expect(next.text).toContain('<button type="button" class="theme" hidden>Light mode</button>');
    await p.goto(`${server.url}/docs/tools`);
    await expect(bg()).resolves.toBe(dark);

    // A dark system without a choice is dark; choosing light there is remembered too.
    const q = await page('dark');
    await q.goto(`${server.url}/login`);
    const systemDark = await q.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(systemDark).toBe(dark);
    await q.getByRole('button', { name: 'Light mode' }).click();
    await q.reload();
    await q.getByRole('button', { name: 'Dark mode' }).waitFor();
    await expect(q.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).resolves.toBe(light);
  });
});

afterAll(async () => {
  for (const w of opened.splice(0)) await w.page.close().catch(() => {});
});
