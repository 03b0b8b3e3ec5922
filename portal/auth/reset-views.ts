// The password reset pages (auth/reset-routes.ts): "Forgot your password?" (a form when mail is on, else who to
// ask), the answer after it (the same whether or not the address has an account), and the page a reset
// link opens, where the new password is chosen.
import { html } from '../../engine/html.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { csrfField, errors, field, notice } from '../shared/forms.js';

export interface ForgotPage {
  csrf?: string;
  /** Reset links can be mailed (SMTP_URL is set). */
  mail: boolean;
  /** The form was just sent. */
  sent: boolean;
  minutes: number;
  email?: string;
  problems?: string[];
}

export function forgotBody(o: ForgotPage) {
  if (!o.mail)
    return html`<h1>Forgot your password?</h1>
<p>This service sends no email, so a new password cannot be mailed to you. Ask an administrator of this service for a password reset link: it works once, for ${o.minutes} minutes.</p>
<p><a href="/login">Back to sign-in</a></p>`;
  return html`<h1>Forgot your password?</h1>
${o.sent ? notice('ok', `If an account has this address, we have sent it a link to choose a new password. It works once, for ${o.minutes} minutes.`) : ''}
${errors(o.problems ?? [])}
<p>Enter your account's email address: we send it a link to choose a new password. Choosing one signs every device out of your account.</p>
<form method="post" action="/login/forgot" class="stack card">
  ${csrfField(o.csrf)}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'username', required: true, maxlength: 254 })}
  <div><button type="submit">Send me a link</button></div>
</form>
<p><a href="/login">Back to sign-in</a></p>`;
}

export interface ResetPage {
  csrf?: string;
  token: string;
  email: string;
  problems?: string[];
}

export function resetBody(o: ResetPage) {
  return html`<h1>Choose a new password</h1>
${errors(o.problems ?? [])}
<p>For <strong>${o.email}</strong>. Every device signed in to this account will be signed out; then sign in with the new password.</p>
<form method="post" action="/login/reset" class="stack card">
  ${csrfField(o.csrf)}
  <input type="hidden" name="token" value="${o.token}">
  <input type="text" name="username" value="${o.email}" autocomplete="username" hidden>
  ${field({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_LENGTH, maxlength: MAX_LENGTH, hint: `at least ${MIN_LENGTH} characters` })}
  <div><button type="submit">Change password</button></div>
</form>`;
}
