// The bodies of error pages: a heading and a message (portal/pages.ts answers every PageError with one),
// and the messages of refusals that carry a link onward.
import { html, type Safe } from '../../engine/html.js';

export const messageBody = (title: string, detail: string | Safe) => html`<h1>${title}</h1><p>${detail}</p>`;

/** A form refused by the CSRF check (portal/csrf.ts). */
export const formExpired = () =>
  html`This form was not sent from this site, or the page had been open too long. Go back, reload the page and try again. <a href="/login">Sign in</a>`;
