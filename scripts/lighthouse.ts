// `npm run lighthouse`: Lighthouse's four scores (Performance, Accessibility, Best practices, SEO) of the
// portal's pages under its mobile settings (a throttled mid-range phone). A measurement for the notes, never
// a timed test. The app runs in this process on loopback with its own DATA_DIR; an account is made through
// the sign-up form and the admin signs in through the sign-in form, so the signed-in pages are measured
// signed in: a page that ended anywhere but where it was asked (a redirect to /login) is an error, not a
// score. Every score under LIGHTHOUSE_MIN (default 95) fails the run (exit 1) after the table is printed.
// Chromium is Debian's (CHROME_PATH, default /usr/bin/chromium). LIGHTHOUSE_PAGES (comma-separated paths)
// replaces the default list.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { createApp } from '../server/app.js';

const DEFAULT_PAGES = [
  '/',
  '/docs',
  '/docs/tools',
  '/docs/gen-models',
  '/docs/changelog',
  '/signup',
  '/login',
  '/status',
  '/dashboard',
  '/dashboard/usage',
  '/dashboard/webhooks',
  '/dashboard/requests',
  '/account',
  '/account/two-factor',
  '/admin',
  '/admin/requests',
];
const pages = (process.env.LIGHTHOUSE_PAGES ?? DEFAULT_PAGES.join(',')).split(',');
const MIN = Number(process.env.LIGHTHOUSE_MIN ?? 95);
const ADMIN = { email: 'lighthouse-admin@example.com', password: 'an admin passphrase 42' };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-lighthouse-'));
const api = await createApp({
  ...process.env,
  DATA_DIR: dataDir,
  REQUEST_LOG: 'on',
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:3999',
  FREE_KEY: 'lighthouse-free-key',
  ANONYMOUS_KEY: 'lighthouse-anonymous-key',
  SIGNUP_LIMIT: '1000',
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
});
const server = http.createServer(api.app);
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Sends a portal form (its CSRF token and pre-session cookie) and returns the session cookie it gives. */
async function sessionFrom(path: '/signup' | '/login', fields: Record<string, string>): Promise<string> {
  const form = await fetch(`${base}${path}`);
  const pre = form.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = /name="csrf" value="([^"]*)"/.exec(await form.text())?.[1] ?? '';
  const body = new URLSearchParams({ csrf, ...fields });
  const res = await fetch(`${base}${path}`, { method: 'POST', body, headers: { cookie: pre.join('; ') }, redirect: 'manual' });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('uua_session=') && !/Max-Age=0/.test(c));
  if (!session) throw new Error(`${path} gave no session (status ${res.status})`);
  return session.split(';')[0];
}

// A new user's pages as that user sees them; the admin's pages as the admin.
const userCookie = await sessionFrom('/signup', {
  email: 'lighthouse@example.com',
  name: 'Light House',
  password: 'a long enough passphrase 42',
});
const adminCookie = await sessionFrom('/login', ADMIN);
/**
 * The browser's cookies for the next page: none, or the session's. Set in Chromium's own jar (DevTools'
 * Storage domain): a Cookie header given to Lighthouse as an extra header loses to the jar's cookies as soon
 * as an earlier page (the sign-up form's pre-session) left one there, and the page is then /login.
 */
async function useCookie(port: number, cookie: string | undefined): Promise<void> {
  const { webSocketDebuggerUrl } = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
    webSocketDebuggerUrl: string;
  };
  const ws = new WebSocket(webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let id = 0;
  const send = (method: string, params: object = {}) =>
    new Promise<void>((ok, fail) => {
      const mine = ++id;
      ws.addEventListener('message', function answer(event) {
        const reply = JSON.parse(String(event.data)) as { id: number; error?: { message: string } };
        if (reply.id !== mine) return;
        ws.removeEventListener('message', answer);
        if (reply.error) fail(new Error(`${method}: ${reply.error.message}`));
        else ok();
      });
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  try {
    await send('Storage.clearCookies');
    if (cookie) {
      const [name, value] = cookie.split('=');
      await send('Storage.setCookies', { cookies: [{ name, value, url: base, httpOnly: true, sameSite: 'Lax' }] });
    }
  } finally {
    ws.close();
  }
}

const cookieFor = (p: string) => (p.startsWith('/admin') ? adminCookie : /^\/(dashboard|account)(\/|$)/.test(p) ? userCookie : undefined);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const rows: string[] = [
  `| page | ${CATEGORIES.join(' | ')} | performance of each run |`,
  `|---|${CATEGORIES.map(() => '---').join('|')}|---|`,
];
const low: string[] = [];
const wrong: string[] = [];
/** One Lighthouse run of `p`, tried again when Chrome's trace of the load came out broken (NO_NAVSTART on a busy machine). */
async function measure(p: string) {
  let result;
  for (let attempt = 0; attempt < 3; attempt++) {
    await useCookie(chrome.port, cookieFor(p));
    result = await lighthouse(`${base}${p}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
    });
    if (!result?.lhr.runtimeError) break;
  }
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`no report for ${p}`);
  if (lhr.runtimeError) throw new Error(`${p}: ${lhr.runtimeError.message}`);
  return lhr;
}

// Performance varies from run to run on a shared machine (Lighthouse's own advice: the median of several):
// each page is measured LIGHTHOUSE_RUNS times (default 3) and the run of median performance reported, after
// one run that is thrown away (the first pays for a cold browser and a cold server).
const RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));
try {
  await measure(pages[0]);
  for (const p of pages) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(p));
    runs.sort((a, b) => (a.categories.performance?.score ?? 0) - (b.categories.performance?.score ?? 0));
    const lhr = runs[Math.floor(runs.length / 2)];
    // The page measured must be the page asked for: a sign-in form in its place is not its score.
    const landed = new URL(lhr.finalDisplayedUrl);
    if (landed.pathname !== new URL(`${base}${p}`).pathname) {
      wrong.push(`${p} ended on ${landed.pathname}`);
      rows.push(`| ${p} | ended on ${landed.pathname}, not measured |`);
      continue;
    }
    const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    const spread = runs.map((r) => Math.round((r.categories.performance?.score ?? 0) * 100)).join('/');
    rows.push(`| ${p}${cookieFor(p) ? ' (signed in)' : ''} | ${CATEGORIES.map(score).join(' | ')} | ${spread} |`);
    for (const c of CATEGORIES) if (score(c) < MIN) low.push(`${p} ${c} ${score(c)}`);
    if (process.env.LIGHTHOUSE_DETAIL) {
      for (const c of CATEGORIES)
        for (const ref of lhr.categories[c].auditRefs) {
          const a = lhr.audits[ref.id];
          if (ref.weight > 0 && a.score !== null && a.score < 0.9) console.log(`${p} ${c}: ${a.id} ${a.score} ${a.displayValue ?? ''}`);
        }
    }
  }
} finally {
  chrome.kill();
  server.close();
  await api.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(rows.join('\n'));
if (wrong.length) console.error(`Not the page asked for: ${wrong.join(', ')}`);
if (low.length) console.error(`Under ${MIN}: ${low.join(', ')}`);
if (wrong.length || low.length) process.exitCode = 1;
