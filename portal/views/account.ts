// The account page at /account: who is signed in, the profile form (name) and the password form, each with
// the problems of its last attempt, and the confirmation of a change that redirected here.
import { html } from '../../engine/html.js';
import type { Viewer } from '../types.js';
import { NAME_MAX } from '../accounts/accounts.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { csrfField, errors, field, notice } from './forms.js';

// The confirmations of ?done= after a change.
const DONE: Record<string, string> = {
  name: 'Your name was saved.',
  password: 'Your password was changed; every other session of your account was signed out.',
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
  ${field({ label: 'Email', name: 'email', type: 'email', value: v.email, readonly: true, hint: 'cannot be changed here' })}
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
</form>`;
}
