// The bodies of error pages: the status, a heading, what happened and the ways on (portal/shared/pages.ts answers
// every PageError with one, and browsers' errors outside the portal too), and the expired form, which gives
// back what was typed.
import { html, type Safe } from '../../engine/html.js';

export const messageBody = (title: string, detail: string | Safe) => html`<h1>${title}</h1><p>${detail}</p>`;

/** A whole error page's body: the status, its title and message, and links home and to the reference. */
export const errorBody = (status: number, title: string, detail: string | Safe) => html`<section class="error-page">
<p class="status-code">${status}</p>
<h1>${title}</h1>
<p>${detail}</p>
<p class="actions"><a class="button" href="/">Home</a> <a class="button secondary" href="/docs">API reference</a></p>
</section>`;

/** When a 429's allowance comes back: "after 14:05:09 UTC (in 42 seconds)", from Retry-After seconds. */
export function resetWords(retryAfterSeconds: number, now = Date.now()): string {
  const at = new Date(now + retryAfterSeconds * 1000).toISOString().slice(11, 19);
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = retryAfterSeconds < 120 ? `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}` : `${minutes} minutes`;
  return `after ${at} UTC (in ${wait})`;
}

/** A form refused because it came from another site. */
export const formRefused = () =>
  html`This form was not sent from this site, so it was not accepted. Open the page on this site and try again.`;

/** A field given back on the expired form: a password is never given back, only asked for again. */
export interface TypedField {
  name: string;
  value: string;
  secret: boolean;
}

/** The session ended before a form was sent: what was typed, to check and send again with a fresh token. */
export function formExpiredBody(o: { action: string; csrf: string; fields: TypedField[]; carried: Set<string>; signedOut: boolean }): Safe {
  return html`<section class="error-page">
<h1>Your session ended</h1>
<p>The form was not sent: the page had been open too long${o.signedOut ? ', or you were signed out' : ''}. What you typed is below; check it and send it again.${
    o.signedOut ? html` You may need to <a href="/login">sign in</a> first.` : ''
  }</p>
<form method="post" action="${o.action}" class="stack">
<input type="hidden" name="csrf" value="${o.csrf}">
${o.fields.map((f, i) =>
  o.carried.has(f.name)
    ? html`<input type="hidden" name="${f.name}" value="${f.value}">`
    : f.secret
      ? html`<label for="typed-${i}">${f.name} (type it again)<input id="typed-${i}" type="password" name="${f.name}" autocomplete="off"></label>`
      : f.value.includes('\n')
        ? html`<label for="typed-${i}">${f.name}<textarea id="typed-${i}" name="${f.name}" rows="4">${f.value}</textarea></label>`
        : html`<label for="typed-${i}">${f.name}<input id="typed-${i}" name="${f.name}" value="${f.value}"></label>`,
)}
<p><button type="submit">Send again</button></p>
</form>
</section>`;
}
