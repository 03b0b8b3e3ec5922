// `npm run lighthouse`: Lighthouse's four scores (Performance, Accessibility, Best practices, SEO) of the
// portal's front pages under its mobile settings (a throttled mid-range phone). A measurement for the
// notes, never a timed test. The app runs in this process on loopback with its own DATA_DIR; an account is
// made through the sign-up form so /dashboard is measured signed in. Chromium is Debian's (CHROME_PATH,
// default /usr/bin/chromium). LIGHTHOUSE_PAGES (comma-separated paths) replaces the default four.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { createApp } from '../server/app.js';

const pages = (process.env.LIGHTHOUSE_PAGES ?? '/,/docs,/signup,/dashboard').split(',');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-lighthouse-'));
const api = await createApp({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:3999',
  FREE_KEY: 'lighthouse-free-key',
  ANONYMOUS_KEY: 'lighthouse-anonymous-key',
  SIGNUP_LIMIT: '1000',
});
const server = http.createServer(api.app);
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Signs up through the form (its CSRF token and pre-session cookie) and returns the session cookie. */
async function signedInCookie(): Promise<string> {
  const form = await fetch(`${base}/signup`);
  const pre = form.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = /name="csrf" value="([^"]*)"/.exec(await form.text())?.[1] ?? '';
  const body = new URLSearchParams({ csrf, email: 'lighthouse@example.com', name: 'Light House', password: 'a long enough passphrase 42' });
  const res = await fetch(`${base}/signup`, { method: 'POST', body, headers: { cookie: pre.join('; ') }, redirect: 'manual' });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('uua_session=') && !/Max-Age=0/.test(c));
  if (!session) throw new Error(`sign-up gave no session (status ${res.status})`);
  return session.split(';')[0];
}

const cookie = await signedInCookie();
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const rows: string[] = [`| page | ${CATEGORIES.join(' | ')} |`, `|---|${CATEGORIES.map(() => '---').join('|')}|`];
try {
  for (const p of pages) {
    // One more try when Chrome's trace of the load came out broken (NO_NAVSTART on a busy machine).
    let result;
    for (let attempt = 0; attempt < 3; attempt++) {
      result = await lighthouse(`${base}${p}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
        extraHeaders: p.startsWith('/dashboard') || p.startsWith('/account') ? { Cookie: cookie } : undefined,
      });
      if (!result?.lhr.runtimeError) break;
    }
    const lhr = result?.lhr;
    if (!lhr) throw new Error(`no report for ${p}`);
    if (lhr.runtimeError) throw new Error(`${p}: ${lhr.runtimeError.message}`);
    const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    rows.push(`| ${p} | ${CATEGORIES.map(score).join(' | ')} |`);
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
