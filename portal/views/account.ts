// The account page at /account: who is signed in, the profile form (name), the password form, and with mail
// on the change of address and the quota alerts switch, each with the problems of its last attempt, and
// the confirmation of a change that redirected here; and the page an address change's link opens.
import { html } from '../../engine/html.js';
import type { Viewer } from '../types.js';
import { NAME_MAX } from '../accounts/accounts.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { LINK_TTL_MS } from '../accounts/link-tokens.js';
import { csrfField, errors, field, notice } from './forms.js';

// The confirmations of ?done= after a change.
const DONE: Record<string, string> = {
  name: 'Your name was saved.',
  password: 'Your password was changed; every other session of your account was signed out.',
  'email-sent': `We sent a link to the new address: your address changes when it is used, within ${LINK_TTL_MS['email-change'] / 3600_000} hours. Your current address was told of the request.`,
  email: 'Your email address was changed.',
  'alerts-on': 'Quota alerts are on: we email you at 80% and 100% of your allowance.',
  'alerts-off': 'Quota alerts are off.',
};

export interface AccountPage {
  viewer: Viewer;
  csrf?: string;
  /** ?done= of the redirect after a change. */
  done?: string;
  /** The name as typed, when the profile form is shown again. */
  name?: string;
  problems?: string[];
  pwProblems?: string[];
  /** Mail is on (SMTP_URL): the address can be changed, and quota alerts sent. */
  mail: boolean;
  /** Quota alerts by email are on for this account. */
  alerts: boolean;
  /** The new address as typed, when the change form is shown again. */
  newEmail?: string;
  emailProblems?: string[];
}

export function accountBody(o: AccountPage) {
  const v = o.viewer;
  const done = o.done !== undefined ? DONE[o.done] : undefined;
  return html`<h1>Account</h1>
${done ? notice('ok', done) : ''}
<p class="muted">Signed in as <strong>${v.email}</strong> · plan <span class="badge">${v.plan}</span>${v.role === 'admin' ? html` · <span class="badge">admin</span>` : ''}</p>
<h2 id="profile">Profile</h2>
${errors(o.problems ?? [])}
<form method="post" action="/account/profile" class="stack card" aria-labelledby="profile">
  ${csrfField(o.csrf)}
  ${field({ label: 'Email', name: 'email', type: 'email', value: v.email, readonly: true, hint: o.mail ? 'change it below' : 'cannot be changed here' })}
  ${field({ label: 'Name', name: 'name', value: o.name ?? v.name, autocomplete: 'name', required: true, maxlength: NAME_MAX })}
  <div><button type="submit">Save name</button></div>
</form>
<h2 id="password">Change password</h2>
${errors(o.pwProblems ?? [])}
<form method="post" action="/account/password" class="stack card" aria-labelledby="password">
  ${csrfField(o.csrf)}
  <input type="text" name="username" value="${v.email}" autocomplete="username" hidden>
  ${field({ label: 'Current password', name: 'current', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  ${field({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_LENGTH, maxlength: MAX_LENGTH, hint: `at least ${MIN_LENGTH} characters; signs out your other sessions` })}
  <div><button type="submit">Change password</button></div>
</form>
${o.mail ? mailSections(o) : ''}`;
}

function mailSections(o: AccountPage) {
  return html`<h2 id="email">Change email address</h2>
${errors(o.emailProblems ?? [])}
<p class="muted">We email a link to the new address; the change happens only when it is used. Your current address is told of the request.</p>
<form method="post" action="/account/email" class="stack card" aria-labelledby="email">
  ${csrfField(o.csrf)}
  ${field({ label: 'New email address', name: 'email', type: 'email', value: o.newEmail, autocomplete: 'email', required: true, maxlength: 254 })}
  ${field({ label: 'Current password', name: 'current', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit">Send a confirmation link</button></div>
</form>
<h2 id="alerts">Quota alerts</h2>
<form method="post" action="/account/alerts" class="stack card" aria-labelledby="alerts">
  ${csrfField(o.csrf)}
  <label class="check"><input type="checkbox" name="alerts" value="on"${o.alerts ? html` checked` : ''}> Email me when my allowance reaches 80% and 100%</label>
  <p class="muted small">At most one message of each per allowance window.</p>
  <div><button type="submit">Save</button></div>
</form>`;
}

export interface EmailConfirmPage {
  csrf?: string;
  token: string;
  /** The address the account moves to. */
  to: string;
}

export function emailConfirmBody(o: EmailConfirmPage) {
  return html`<h1>Confirm your new email address</h1>
<p>Make <strong>${o.to}</strong> the address of your account. You sign in with it from then on.</p>
<form method="post" action="/account/email/confirm" class="stack card">
  ${csrfField(o.csrf)}
  <input type="hidden" name="token" value="${o.token}">
  <div><button type="submit">Confirm the new address</button></div>
</form>`;
}
