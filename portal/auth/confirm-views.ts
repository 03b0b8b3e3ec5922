// The pages of address confirmation at sign-up (auth/confirm-routes.ts): "check your inbox", with the form that
// mails the link again, and the page a confirmation link opens, which asks for the sign-up's password.
import { html } from '../../engine/html.js';
import { csrfField, errors, field, notice } from '../shared/forms.js';

export interface SentPage {
  csrf?: string;
  /** The link was just asked for again. */
  again: boolean;
  hours: number;
}

// The same words for every sign-up, whether the address was new or had an account already.
export function sentBody(o: SentPage) {
  return html`<h1>Check your inbox</h1>
${o.again ? notice('ok', 'If an account waits for this address to be confirmed, a new link is on its way.') : ''}
<p>We sent a message to the address you gave. If it is a new address, the message holds a link that confirms it and opens your account; if the address has an account already, its owner is told instead.</p>
<p>The link works once, for ${o.hours} hours. Until it is used, the account cannot sign in; you will be asked for the password you chose.</p>
<h2 id="again">No message?</h2>
<p class="muted">Look in your spam folder first. Then ask for the link again:</p>
<form method="post" action="/signup/resend" class="row card" aria-labelledby="again">
  ${csrfField(o.csrf)}
  ${field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'email', required: true, maxlength: 254 })}
  <button type="submit">Send the link again</button>
</form>`;
}

export interface ConfirmPage {
  csrf?: string;
  token: string;
  email: string;
  problems?: string[];
}

export function confirmBody(o: ConfirmPage) {
  return html`<h1>Confirm your email address</h1>
${errors(o.problems ?? [])}
<p>Enter the password you chose at sign-up to confirm <strong>${o.email}</strong> and open your account.</p>
<form method="post" action="/signup/confirm" class="stack card">
  ${csrfField(o.csrf)}
  <input type="hidden" name="token" value="${o.token}">
  <input type="text" name="username" value="${o.email}" autocomplete="username" hidden>
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit">Confirm and sign in</button></div>
</form>`;
}
