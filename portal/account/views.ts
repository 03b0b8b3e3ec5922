// The account page at /account: who is signed in, the plan (and a request for a higher one, with the state
// of the last request), the profile form (name), the password form, the state of two-factor sign-in, with
// mail on the change of address and the quota alerts switch, and the account's deletion, each with the problems of its last attempt, and the
// confirmation of a change that redirected here; the page an address change's link opens; and the page
// shown once an account is deleted.
import { html, type Safe } from '../../engine/html.js';
import type { PlanSpec } from '../../engine/catalog/load.js';
import type { Viewer } from '../shared/types.js';
import { NAME_MAX, type Plan } from '../accounts/accounts.js';
import { MAX_LENGTH, MIN_LENGTH } from '../accounts/passwords.js';
import { MESSAGE_MAX, type UpgradeRequest } from '../accounts/upgrades.js';
import { LINK_TTL_MS } from '../auth/index.js';
import { csrfField, errors, field, notice } from '../shared/forms.js';
import { count, planName, time, windowText } from '../shared/format.js';

// The confirmations of ?done= after a change.
const DONE: Record<string, string> = {
  name: 'Your name was saved.',
  password: 'Your password was changed; every other session of your account was signed out.',
  upgrade: 'Your request was sent to the administrators. This page shows their answer once they decide.',
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
  upgradeProblems?: string[];
  deleteProblems?: string[];
  /** The account's last upgrade request, the plans above its own, and every plan's allowance. */
  upgrade: { request?: UpgradeRequest; higher: Plan[]; plans: Record<string, PlanSpec> };
  /** Mail is on (SMTP_URL): the address can be changed, and quota alerts sent. */
  mail: boolean;
  /** Quota alerts by email are on for this account. */
  alerts: boolean;
  /** The new address as typed, when the change form is shown again. */
  newEmail?: string;
  emailProblems?: string[];
  /** With billing on (portal/billing/): the plan table and subscription, and the plan changes recorded. */
  billing?: { section: Safe; history: Safe };
  /** Signing in asks for a second factor (portal/two-factor/). */
  twoFactor: boolean;
}

const allowance = (p: PlanSpec | undefined) => (p ? `${count(p.limit)} requests per ${windowText(p.window)}` : '');

/** The last request for a higher plan, as it stands: an approval is told with the plan the account holds now. */
function requestState(r: UpgradeRequest | undefined, plan: string): Safe | string {
  if (!r) return '';
  const asked = html`You asked for <strong>${planName(r.to)}</strong> on ${time(r.requestedAt)}`;
  if (r.status === 'pending') return notice('info', html`${asked}. It waits for an administrator's decision.`);
  if (r.status === 'approved')
    return notice(
      'ok',
      html`${asked}: approved on ${time(r.decidedAt!)}. ${
        r.to === plan
          ? html`Your account is on ${planName(plan)} now.`
          : html`Your account has changed plan since: it is on ${planName(plan)}.`
      }`,
    );
  return notice(
    'error',
    html`${asked}: declined on ${time(r.decidedAt!)}${r.reason ? html`. The administrator wrote: “${r.reason}”` : ''}.`,
  );
}

function planSection(o: AccountPage): Safe {
  const { request, higher, plans } = o.upgrade;
  const v = o.viewer;
  const pending = request?.status === 'pending';
  return html`<h2 id="plan">Plan</h2>
<div class="card" aria-labelledby="plan">
  <p>Your plan: <strong>${planName(v.plan)}</strong> (${allowance(plans[v.plan])}).</p>
  ${o.billing?.section ?? ''}
  ${requestState(request, v.plan)}
  ${errors(o.upgradeProblems ?? [])}
  ${
    !higher.length
      ? o.billing
        ? ''
        : html`<p class="muted small">This is the highest plan.</p>`
      : pending
        ? ''
        : html`<form method="post" action="/account/upgrade" class="stack">
    ${csrfField(o.csrf)}
    <label>Plan you want <select name="plan">${higher.map((p) => html`<option value="${p}">${planName(p)}: ${allowance(plans[p])}</option>`)}</select></label>
    <label>Message to the administrators <span class="hint" id="message-hint">optional: what you will use it for</span>
      <textarea name="message" rows="3" maxlength="${MESSAGE_MAX}" aria-describedby="message-hint"></textarea></label>
    <div><button type="submit">Request an upgrade</button></div>
    <p class="small muted">No payment: an administrator approves or declines the request, and this page shows the answer.</p>
  </form>`
  }
</div>
${o.billing ? html`<h2 id="plan-history">Plan history</h2>${o.billing.history}` : ''}`;
}

export function accountBody(o: AccountPage) {
  const v = o.viewer;
  const done = o.done !== undefined ? DONE[o.done] : undefined;
  return html`<h1>Account</h1>
${done ? notice('ok', done) : ''}
<p class="muted">Signed in as <strong>${v.email}</strong> · plan <span class="badge">${v.plan}</span>${v.role === 'admin' ? html` · <span class="badge">admin</span>` : ''}</p>
${planSection(o)}
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
<h2 id="two-factor">Two-factor sign-in</h2>
<div class="card" aria-labelledby="two-factor">
<p>${o.twoFactor ? 'On: signing in asks for a second factor after your password.' : 'Off: your password alone signs you in.'} <a href="/account/two-factor">${o.twoFactor ? 'Manage your authenticator app, passkeys and recovery codes' : 'Set up an authenticator app or a passkey'}</a></p>
</div>
${o.mail ? mailSections(o) : ''}
<h2 id="delete">Delete your account</h2>
${errors(o.deleteProblems ?? [])}
<form method="post" action="/account/delete" class="stack card danger-zone" aria-labelledby="delete">
  ${csrfField(o.csrf)}
  <p>Your keys stop working at once, every session of yours ends, and your email, name and password are erased. The counts of calls made with your keys stay in the operators' totals, linked to no one. This cannot be undone.</p>
  <input type="text" name="username" value="${v.email}" autocomplete="username" hidden>
  ${field({ label: 'Your password, to confirm', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit" class="danger">Delete my account</button></div>
</form>`;
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

/** After the deletion: the visitor is signed out. */
export const deletedBody = () =>
  html`<h1>Your account is deleted</h1>
${notice('ok', 'Your keys no longer work, you are signed out everywhere, and your personal data is erased.')}
<p><a href="/">Back to the home page</a></p>`;
