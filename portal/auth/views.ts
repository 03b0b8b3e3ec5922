// The sign-up and sign-in pages: their forms (with the problems of the last attempt), the page an account
// waiting for approval sees, and the refusal of sign-up when it is by invitation only. With mail on, both
// say what an account is before its address is confirmed: nothing one can sign in to yet. Sign-in offers a
// passkey too, where the browser has passkeys (portal/static/passkeys.js shows the button).
import { html } from '../../engine/html.js';
import { NAME_MAX } from '../accounts/accounts.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { csrfField, errors, field, notice } from '../shared/forms.js';
import { freeTierText, type FreeTier } from '../shared/free-tier.js';
import { count, planName, windowText } from '../shared/format.js';

export interface SignupForm {
  csrf?: string;
  /** New accounts wait for an administrator (SIGNUP=approval, no invite). */
  approval: boolean;
  /** Addresses are confirmed by a mailed link (SMTP_URL is set). */
  confirm: boolean;
  invite?: string;
  /** What a Free account gets (the plan a sign-up without an invite's plan starts on). */
  freeTier: FreeTier;
  /** The paid plan the invite opens the account on, said instead of the Free tier. */
  paidPlan?: { id: string; limit: number; window: string };
  email?: string;
  name?: string;
  problems?: string[];
}

export function signupBody(o: SignupForm) {
  return html`<h1>Create an account</h1>
<p class="muted">${o.approval ? 'New accounts are approved by an administrator before they can sign in.' : 'Sign up to get your API key page and usage figures.'}</p>
<p>${
    o.paidPlan
      ? html`This invitation opens a <strong>${planName(o.paidPlan.id)}</strong> account: personal keys that spend one allowance of <strong>${count(o.paidPlan.limit)} requests per ${windowText(o.paidPlan.window)}</strong>.`
      : freeTierText(o.freeTier)
  }</p>
${o.confirm ? html`<p class="muted" id="confirm-note">We email you a link to confirm your address: your account opens when you use it, and cannot be signed in to before.</p>` : ''}
${errors(o.problems ?? [])}
<form method="post" action="/signup" class="stack card">
  ${csrfField(o.csrf)}
  ${o.invite ? html`<input type="hidden" name="invite" value="${o.invite}">` : ''}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'email', required: true, maxlength: 254 })}
  ${field({ label: 'Name', name: 'name', value: o.name, autocomplete: 'name', required: true, maxlength: NAME_MAX })}
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_LENGTH, maxlength: MAX_LENGTH, hint: `at least ${MIN_LENGTH} characters` })}
  <div><button type="submit">Create account</button></div>
</form>
<p>Already have an account? <a href="/login">Sign in</a>.</p>`;
}

/** After signing up in SIGNUP=approval mode. */
export function pendingBody(name: string) {
  return html`<h1>Thanks, ${name}</h1>
${notice('info', "Your account waits for an administrator's approval. You can sign in as soon as it is approved.")}
<p><a href="/docs">Browse the API reference</a> meanwhile: it works with the anonymous key.</p>`;
}

/** Why sign-up is refused without an invite link (SIGNUP=closed). */
export const signupClosed = () =>
  html`New accounts are created from invite links sent by the administrators of this service. Already have an account? <a href="/login">Sign in</a>.`;

export interface LoginForm {
  csrf?: string;
  /** Where to go after signing in (a local path). */
  next?: string;
  email?: string;
  problems?: string[];
  info?: string;
  /** ?done= of a redirect here: a password reset, an email change. */
  done?: string;
  /** Sign-up is by invitation only (no link to it). */
  closed: boolean;
  /** Addresses are confirmed by a mailed link (SMTP_URL is set). */
  confirm: boolean;
}

// The confirmations of ?done= after a change that ends at the sign-in page.
const DONE: Record<string, string> = {
  reset: 'Your password was changed and every device was signed out. Sign in with your new password.',
  email: 'Your email address was changed. Sign in with the new one.',
};

export function loginBody(o: LoginForm) {
  const done = o.done !== undefined ? DONE[o.done] : undefined;
  return html`<h1>Sign in</h1>
${done ? notice('ok', done) : ''}
${o.info ? notice('info', o.info) : ''}
${errors(o.problems ?? [])}
<form method="post" action="/login" class="stack card">
  ${csrfField(o.csrf)}
  ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'username', required: true, maxlength: 254 })}
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit">Sign in</button></div>
</form>
<div class="stack" data-passkey-box>
  <div><button type="button" class="secondary" data-passkey="sign-in" data-options="/login/passkey/options" data-action="/login/passkey" data-next="${o.next ?? ''}" hidden>Use a passkey</button></div>
  <p class="muted small" data-passkey-status role="status"></p>
</div>
<p><a href="/login/forgot">Forgot your password?</a></p>
${o.confirm ? html`<p class="muted" id="confirm-hint">Signed up but not confirmed your address yet? Use the link we emailed you: until then the account cannot sign in. Signing in with the right password mails the link again, or <a href="/signup/sent">ask for it here</a>.</p>` : ''}
${o.closed ? html`<p class="muted">New accounts are by invitation.</p>` : html`<p>No account yet? <a href="/signup">Create one</a>.</p>`}`;
}
