// The shell every portal page shares: head (stylesheet, no inline script or style: the pages are served
// under Content-Security-Policy default-src 'self'), the top bar with the viewer's state and the dark mode
// toggle (theme.js), and the footer.
import { html, type Safe } from '../../engine/html.js';
import type { Viewer } from './types.js';

export interface PageOptions {
  title: string;
  serviceName: string;
  viewer?: Viewer;
  /** The CSRF token of the viewer's session, for the sign-out form in the top bar. */
  csrf?: string;
  /** Page scripts under /portal/static or /portal/vendor, loaded deferred. */
  scripts?: string[];
  /** A wider main column (docs, admin tables). */
  wide?: boolean;
  /** The theme the visitor chose with the toggle (the uua_theme cookie); none: the system's. */
  theme?: 'light' | 'dark';
  body: Safe;
}

export function page(o: PageOptions): Safe {
  const nav = o.viewer
    ? html`<a href="/docs">Docs</a><a href="/dashboard">API keys</a><a href="/dashboard/usage">Usage</a><a href="/dashboard/requests">Requests</a><a href="/dashboard/webhooks">Webhooks</a>${o.viewer.role === 'admin' ? html`<a href="/admin">Admin</a>` : ''}<a href="/account">Account</a>
        <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="${o.csrf ?? ''}"><button type="submit" class="link">Sign out</button></form>`
    : html`<a href="/docs">Docs</a><a href="/login">Sign in</a><a href="/signup" class="button small">Sign up</a>`;
  return html`<!doctype html>
<html lang="en"${o.theme ? html` data-theme="${o.theme}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · ${o.serviceName}</title>
<meta name="description" content="${o.title} · ${o.serviceName}: utility endpoints behind one API key, one request pattern and one JSON envelope.">
<link rel="stylesheet" href="/portal/static/style.css">
<link rel="icon" href="/portal/static/favicon.svg" type="image/svg+xml">
${['/portal/static/theme.js', ...(o.scripts ?? [])].map((s) => html`<script src="${s}" defer></script>\n`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">${o.serviceName}</a>
  <nav aria-label="Main">${nav}<button type="button" class="theme" hidden>${o.theme === 'dark' ? 'Light mode' : 'Dark mode'}</button></nav>
</header>
<main id="main" class="${o.wide ? 'wide' : ''}">
${o.body}
</main>
<footer class="foot"><a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/status">Status</a></footer>
</body>
</html>`;
}
