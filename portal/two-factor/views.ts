// The two-factor pages: /account/two-factor (the account's authenticator app, passkeys and recovery codes),
// the setup of an authenticator app (its QR code, drawn as SVG on the server, and its secret), the
// recovery codes shown once, and the second step of sign-in at /login/factor. Passkeys are made and used
// by passkeys.js (the pages say so where JavaScript is off).
import { renderSVG } from 'uqr';
import { html, raw, type Safe } from '../../engine/html.js';
import { csrfField, errors, field, notice } from '../shared/forms.js';
import { time } from '../shared/format.js';
import type { FactorSummary } from './factors.js';
import { PASSKEY_NAME_MAX } from './passkeys.js';

const DONE: Record<string, string> = {
  totp: 'Your authenticator app is set up: signing in asks for its code from now on.',
  'totp-removed': 'Your authenticator app was removed.',
  passkey: 'Your passkey was added: it signs you in on its own, or after your password.',
  'passkey-removed': 'The passkey was removed.',
};

const password = (id: string) =>
  html`<label>Current password <input name="current" type="password" autocomplete="current-password" required maxlength="1024" id="${id}"></label>`;

export interface TwoFactorPage {
  csrf?: string;
  done?: string;
  /** An admin sent here by ADMIN_2FA=required. */
  required: boolean;
  factors: FactorSummary;
  problems?: string[];
}

export function twoFactorBody(o: TwoFactorPage): Safe {
  const f = o.factors;
  const on = Boolean(f.totp) || f.passkeys.length > 0;
  return html`<h1>Two-factor sign-in</h1>
${o.required ? notice('error', 'This service requires administrators to sign in with a second factor. Set up an authenticator app or a passkey to open the admin pages.') : ''}
${o.done && DONE[o.done] ? notice('ok', DONE[o.done]) : ''}
${errors(o.problems ?? [])}
<p>${on ? 'Signing in to your account asks for your password and then a second factor: a code of your authenticator app or one of your passkeys. A passkey also signs you in on its own.' : 'Add a second factor, so that your password alone no longer opens your account: an authenticator app (a six-digit code that changes every 30 seconds) or a passkey (your device’s screen lock or a security key).'}</p>

<h2 id="app">Authenticator app</h2>
<div class="card stack" aria-labelledby="app">
${
  f.totp
    ? html`<p>On since ${time(f.totp)}.</p>
<form method="post" action="/account/two-factor/totp/remove" class="stack">
  ${csrfField(o.csrf)}
  ${password('current-totp')}
  <div><button type="submit" class="danger">Remove the authenticator app</button></div>
</form>`
    : html`<p class="muted">Not set up.</p>
<form method="post" action="/account/two-factor/totp" class="stack">
  ${csrfField(o.csrf)}
  <div><button type="submit">Set up an authenticator app</button></div>
</form>`
}
</div>

<h2 id="passkeys">Passkeys</h2>
<div class="card stack" aria-labelledby="passkeys">
${
  f.passkeys.length
    ? html`<ul class="plain">${f.passkeys.map(
        (
          p,
        ) => html`<li><strong>${p.name}</strong> <span class="muted small">added ${time(p.createdAt)}${p.lastUsedAt ? html`, last used ${time(p.lastUsedAt)}` : ''}</span>
<details><summary>Remove…</summary>
<form method="post" action="/account/two-factor/passkeys/remove" class="stack">
  ${csrfField(o.csrf)}
  <input type="hidden" name="id" value="${p.id}">
  ${password(`current-${p.id}`)}
  <div><button type="submit" class="danger small" aria-label="Remove the passkey ${p.name}">Remove</button></div>
</form></details></li>`,
      )}</ul>`
    : html`<p class="muted">No passkey yet.</p>`
}
<form method="post" action="/account/two-factor/passkeys" class="stack" data-passkey="register" data-options="/account/two-factor/passkeys/options">
  ${csrfField(o.csrf)}
  ${field({ label: 'Name of the new passkey', name: 'name', required: true, maxlength: PASSKEY_NAME_MAX, hint: 'to tell it apart, e.g. “Laptop”', autocomplete: 'off' })}
  <div><button type="submit">Add a passkey</button></div>
  <p class="muted small" data-passkey-status role="status">Adding a passkey needs JavaScript and a browser that supports passkeys.</p>
</form>
</div>

${
  on
    ? html`<h2 id="recovery">Recovery codes</h2>
<div class="card stack" aria-labelledby="recovery">
<p>${f.recoveryLeft ? `${f.recoveryLeft} unused recovery code${f.recoveryLeft === 1 ? '' : 's'} left.` : 'You have no recovery codes: make some now, or losing your factors locks you out.'} Each signs you in once in place of your second factor. Making new codes ends the earlier ones.</p>
<form method="post" action="/account/two-factor/recovery" class="stack">
  ${csrfField(o.csrf)}
  ${password('current-recovery')}
  <div><button type="submit">Make new recovery codes</button></div>
</form>
</div>`
    : ''
}
<p><a href="/account">Back to your account</a></p>`;
}

export interface TotpSetupPage {
  csrf?: string;
  secret: string;
  uri: string;
  problems?: string[];
}

export function totpSetupBody(o: TotpSetupPage): Safe {
  // The QR code as SVG in the page: no script, no image from elsewhere (the CSP allows neither).
  const qr = renderSVG(o.uri, { border: 2, pixelSize: 6 });
  return html`<h1>Set up an authenticator app</h1>
<ol class="stack">
<li>Scan this code with your authenticator app (or add the key below by hand).
<figure class="qr" role="img" aria-label="QR code of your authenticator key">${raw(qr)}</figure>
<p>Key: <code id="totp-secret">${o.secret.match(/.{1,4}/g)!.join(' ')}</code></p></li>
<li>Type the six-digit code the app shows.</li>
</ol>
${errors(o.problems ?? [])}
<form method="post" action="/account/two-factor/totp/confirm" class="stack card">
  ${csrfField(o.csrf)}
  ${field({ label: 'Code from the app', name: 'code', autocomplete: 'one-time-code', required: true, maxlength: 9 })}
  <div><button type="submit">Turn on</button></div>
</form>
<p class="muted small">The key is shown only until the app is set up. <a href="/account/two-factor">Cancel</a></p>`;
}

export function recoveryCodesBody(codes: string[], done?: string): Safe {
  return html`<h1>Your recovery codes</h1>
${done && DONE[done] ? notice('ok', DONE[done]) : ''}
<p>Keep these codes somewhere safe, apart from your phone and passkeys: each signs you in once when you cannot use your second factor. <strong>They are shown only now.</strong></p>
<ul class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a href="/account/two-factor" class="button">I have kept them</a></p>`;
}

export interface FactorStepPage {
  csrf?: string;
  next?: string;
  totp: boolean;
  passkeys: boolean;
  problems?: string[];
}

export function factorStepBody(o: FactorStepPage): Safe {
  const next = o.next ? html`<input type="hidden" name="next" value="${o.next}">` : '';
  return html`<h1>Second step of sign-in</h1>
${errors(o.problems ?? [])}
${
  o.passkeys
    ? html`<div class="card stack">
<p>Use one of your passkeys.</p>
<div><button type="button" data-passkey="sign-in" data-options="/login/factor/passkey/options" data-action="/login/factor/passkey" data-next="${o.next ?? ''}" hidden>Use a passkey</button></div>
<p class="muted small" data-passkey-status role="status">A passkey needs JavaScript and a browser that supports passkeys.</p>
<input type="hidden" name="csrf" value="${o.csrf ?? ''}" data-csrf>
</div>`
    : ''
}
${
  o.totp
    ? html`<form method="post" action="/login/factor/totp" class="stack card">
  ${csrfField(o.csrf)}
  ${next}
  ${field({ label: 'Code from your authenticator app', name: 'code', autocomplete: 'one-time-code', required: true, maxlength: 9 })}
  <div><button type="submit">Verify</button></div>
</form>`
    : ''
}
<details><summary>Lost your ${o.totp ? 'phone' : 'passkeys'}? Use a recovery code</summary>
<form method="post" action="/login/factor/recovery" class="stack card">
  ${csrfField(o.csrf)}
  ${next}
  ${field({ label: 'Recovery code', name: 'code', autocomplete: 'off', required: true, maxlength: 40 })}
  <div><button type="submit">Sign in with the recovery code</button></div>
</form>
<p class="muted small">No recovery code either? An administrator of the service can reset your second factors.</p>
</details>`;
}

/** Passkeys are made and used by the page's script: a form sent without it lands here. */
export const needsScript = () =>
  html`Passkeys are made and used by the page's script: turn JavaScript on, or use a browser that supports passkeys. <a href="/account/two-factor">Back</a>`;
