// The sign-up and sign-in pages: their forms (with the problems of the last attempt), the page an account
// waiting for approval sees, and the refusal of sign-up when it is by invitation only.
import { html } from '../../engine/html.js';
import { NAME_MAX } from '../accounts/accounts.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { csrfField, errors, field, notice } from './forms.js';
import { freeTierText, type FreeTier } from './free-tier.js';

export interface SignupForm {
  csrf?: string;
  /** New accounts wait for an administrator (SIGNUP=approval, no invite). */
  approval: boolean;
  invite?: string;
  /** What a Free account gets (the plan a sign-up without an invite's plan starts on). */
  freeTier: FreeTier;
  email?: string;
  name?: string;
  problems?: string[];
}

export function signupBody(o: SignupForm) {
  return html`<h1>Create an account</h1>
<p class="muted">${o.approval ? 'New accounts are approved by an administrator before they can sign in.' : 'Sign up to get your API key page and usage figures.'}</p>
<p>${freeTierText(o.freeTier)}</p>
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
  /** Sign-up is by invitation only (no link to it). */
  closed: boolean;
}

export function loginBody(o: LoginForm) {
  return html`<h1>Sign in</h1>
${o.info ? notice('info', o.info) : ''}
${errors(o.problems ?? [])}
<form method="post" action="/login" class="stack card">
  ${csrfField(o.csrf)}
  ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'username', required: true, maxlength: 254 })}
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit">Sign in</button></div>
</form>
${o.closed ? html`<p class="muted">New accounts are by invitation.</p>` : html`<p>No account yet? <a href="/signup">Create one</a>.</p>`}`;
}
