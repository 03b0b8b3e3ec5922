// The API key page: the shared free key and its allowance (Free accounts), the form that makes a personal
// key and the cards of the account's keys (Premium, Enterprise; Free with FREE_PERSONAL_KEYS), a new key
// shown once (focused, so keyboard and screen-reader users land on it), how to call the API with it, where
// to ask for a higher plan; the page that confirms a revocation; and the refusals of the key actions, each
// with a way back.
import { LANGUAGES, sample, type SampleRequest } from '../shared/snippets.js';
import { html, type Safe } from '../../engine/html.js';
import { isLive, type KeyRecord, type LastUse } from '../../engine/access/keystore.js';
import type { AllowanceFigures } from '../shared/types.js';
import type { KeyUse } from '../../engine/pipeline/steps/meter.js';
import { FREE_KEY_ID, GRACE, KEY_NAME_MAX, type AddressNote } from './keys.js';
import { csrfField, errors, notice } from '../shared/forms.js';
import { allowanceFacts, count, planName, relative, time, windowText } from '../shared/format.js';

const DONE: Record<string, string> = {
  renamed: 'The key was renamed.',
  revoked: 'The key was revoked: calls with it are refused (401) from now on.',
  limits: "The key's limits were saved: they apply from its next call.",
};

/** A freshly made key, to show once. */
export interface FreshKey {
  key: string;
  record: KeyRecord;
  /** The key it replaced (a rotation): its hint, and until when it keeps working. */
  replaced?: { hint: string; expiresAt?: string };
}

/** One of the account's personal keys with its last use and its own use of the account's allowance. */
interface KeyCard {
  record: KeyRecord;
  lastUse?: LastUse & { note?: AddressNote };
  use?: KeyUse;
}

export interface KeysPage {
  csrf?: string;
  done?: string;
  problems?: string[];
  /** The name typed in the create form, when it is shown again. */
  name?: string;
  fresh?: FreshKey;
  /** The page was asked for a new key that was shown already (a reload of that page). */
  shownAlready?: boolean;
  /** The account holds personal keys (a paid plan, or Free with FREE_PERSONAL_KEYS; active). */
  personal: boolean;
  /** The viewer's plan and its allowance (shown when personal). */
  plan: { id: string; limit: number; window: string } | undefined;
  /** The allowance every key of the account spends, as it stands (shown when personal). */
  allowance?: AllowanceFigures;
  /** How many live keys the account may hold. */
  maxKeys: number;
  /** The account's personal keys, newest first. */
  keys: KeyCard[];
  /** The shared free key and its allowance from the viewer's address (shown when not personal). */
  free?: FreeKeyCard;
  /** A higher plan can be asked for (on /account), or one was asked for and waits. */
  upgrade: { possible: boolean; pending?: string };
  /** With billing on: the plan table and the subscription (portal/billing/views.ts). */
  billing?: Safe;
  publicUrl: string;
}

interface FreeKeyCard {
  key: string;
  limit: number;
  window: string;
  ip: string | undefined;
  allowance?: AllowanceFigures;
  /** The per-key allowances of the paid plans, to say what they give. */
  premiumLimit: number;
  enterpriseLimit: number;
}

export function keysBody(o: KeysPage) {
  const { personal, keys: own } = o;
  const done = o.done !== undefined ? DONE[o.done] : undefined;
  const cards = own.map((k) => keyCard(k, o.csrf, o.fresh?.record.id === k.record.id));
  const freePersonal = o.plan?.id === 'free';
  return html`<h1>API keys</h1>
${done ? notice('ok', done) : ''}
${o.shownAlready ? notice('info', 'That new key was shown once already: the service keeps only its hint, below. If you did not copy it, rotate the key to get a new one.') : ''}
${errors(o.problems ?? [])}
${o.fresh ? freshCard(o.fresh) : ''}
${personal || !o.free ? html`` : freeCard(o.free, o.upgrade)}
${personal ? allowanceCard(o) : ''}
${
  personal
    ? html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">${freePersonal ? 'Your personal key' : 'Create a key'}</h2>
  ${
    own.filter((k) => isLive(k.record)).length >= o.maxKeys
      ? o.maxKeys === 1
        ? html`<p>You hold your personal key. Rotate it to replace it, or revoke it to make a new one.</p>`
        : html`<p>You hold ${o.maxKeys} keys, the most an account may hold. Revoke one you no longer use to make another.</p>`
      : html`<form method="post" action="/dashboard/keys" class="row">
    ${csrfField(o.csrf)}
    <label>Name <span class="hint">what will use it, e.g. “billing server”</span>
      <input name="name" required maxlength="${KEY_NAME_MAX}" value="${o.name ?? ''}" autocomplete="off"></label>
    <button type="submit">Create key</button>
  </form>`
  }
  <p class="small muted">The whole key is shown once, when it is made.</p>
</section>`
    : ''
}
${
  own.length
    ? html`<h2>${personal ? 'Your keys' : 'Your personal keys'}</h2>
${personal ? '' : notice('info', 'Personal keys work only on the Premium and Enterprise plans, for active accounts: these are kept but refused while your account is on the Free plan.')}
<div class="keys">${cards}</div>`
    : personal
      ? html`<p class="muted">No keys yet: create your first one above.</p>`
      : ''
}
${o.billing ? html`<section class="card" aria-labelledby="plans-title"><h2 id="plans-title">Your plan: ${planName(o.plan?.id ?? 'free')}</h2>${o.billing}</section>` : ''}
${snippet(o.publicUrl, personal ? undefined : o.free?.key, o.fresh?.key)}`;
}

/** The one allowance every key of the account spends, and how it stands. */
function allowanceCard(o: KeysPage): Safe {
  const p = o.plan!;
  return html`<section class="card" aria-labelledby="allowance-title">
  <h2 id="allowance-title">Your allowance: ${planName(p.id)} plan</h2>
  <p>${
    p.id === 'free'
      ? html`Your Free account holds one personal key: <strong>${count(p.limit)} requests per ${windowText(p.window)}</strong>, whatever address calls with it (the shared free key's allowance is counted per client address instead).`
      : html`Every key of your account spends its one allowance: <strong>${count(p.limit)} requests per ${windowText(p.window)}</strong>. Each key's card shows its own calls in this window.`
  }</p>
  <dl class="facts">${allowanceFacts(o.allowance)}</dl>
  ${upgradeLine(o.upgrade)}
</section>`;
}

/** A key's own calls in its window, against its cap when it has one. */
function useFacts(k: KeyRecord, use: KeyUse | undefined): Safe {
  const used = use?.used ?? 0;
  if (k.cap === undefined) return html`<div><dt>Its calls in this window</dt><dd><span class="num">${count(used)}</span></dd></div>`;
  return html`<div><dt>Its own cap</dt><dd><span class="num">${count(Math.min(used, k.cap))}</span> of ${count(k.cap)} used</dd></div>`;
}

/** Where to ask for a higher plan, or that a request waits. */
function upgradeLine(u: KeysPage['upgrade']): Safe | string {
  if (u.pending)
    return html`<p class="small">Your request for the ${planName(u.pending)} plan waits for an administrator: <a href="/account#plan">see it</a>.</p>`;
  return u.possible
    ? html`<p class="small">Need a larger allowance? <a href="/account#plan">Request an upgrade</a> (no payment: an administrator decides).</p>`
    : '';
}

function freeCard(f: FreeKeyCard, upgrade: KeysPage['upgrade']): Safe {
  return html`<section class="card" aria-labelledby="free-title">
  <h2 id="free-title">Your key: the shared free key</h2>
  <p>Free accounts call the API with this one key, shared by every free user:</p>
  <div class="secret"><code id="free-key" data-api-key>${f.key}</code><button type="button" class="secondary small" data-copy="free-key" hidden>Copy</button></div>
  <p>It allows <strong>${count(f.limit)} requests per ${windowText(f.window)}, counted per client IP address</strong>: every address has its own count, shared by everyone who calls with this key from that address (a household, an office, a server behind one address). From your address now (<code>${f.ip ?? 'unknown'}</code>):</p>
  <dl class="facts">${allowanceFacts(f.allowance)}</dl>
  <p class="small muted">Personal keys come with a paid plan, and spend their account's own allowance (Premium: ${count(f.premiumLimit)}, Enterprise: ${count(f.enterpriseLimit)} per 24 h). <a href="/dashboard/usage?key=${FREE_KEY_ID}">Usage of this key</a></p>
  ${upgradeLine(upgrade)}
</section>`;
}

function freshCard(f: FreshKey): Safe {
  // autofocus: focus lands on the key itself (tabindex -1 makes it focusable without adding a tab stop).
  return html`<section class="card fresh" aria-labelledby="fresh-title">
  <h2 id="fresh-title">Your new key “${f.record.name}”</h2>
  <p><strong>Copy it now: it is shown this once only.</strong> The service keeps only a hash of it; afterwards this page shows <code>${f.record.hint ?? ''}</code>.</p>
  <div class="secret"><code id="new-key" data-api-key data-key-id="${f.record.id}" tabindex="-1" autofocus aria-label="Your new key">${f.key}</code><button type="button" class="small" data-copy="new-key" hidden>Copy</button></div>
  ${
    f.replaced
      ? html`<p>It replaces <code>${f.replaced.hint}</code>, which ${
          f.replaced.expiresAt && Date.parse(f.replaced.expiresAt) > Date.now()
            ? html`keeps working until ${time(f.replaced.expiresAt)} (${relative(f.replaced.expiresAt)})`
            : 'was revoked at once'
        }.</p>`
      : ''
  }
  <p class="small muted">The API reference's Try it uses it in this browser tab until the tab is closed: <a href="/docs">try it now</a>.</p>
</section>`;
}

function statusBadge(k: KeyRecord): Safe {
  if (k.disabled) return html`<span class="badge danger">Disabled</span>`;
  if (k.expiresAt && Date.parse(k.expiresAt) <= Date.now()) return html`<span class="badge danger">Expired</span>`;
  // Keys rotated before rotations recorded their replacement have an expiry and no replacedBy.
  if (k.expiresAt && (k.replacedBy !== undefined || Date.parse(k.expiresAt) - Date.now() <= 86_400_000))
    return html`<span class="badge warn">${k.replacedBy !== undefined ? 'Replaced: works' : 'Works'} until ${time(k.expiresAt)}</span>`;
  return html`<span class="badge ok">Active</span>`;
}

/** The limits form of a key: its own cap per window of its plan, and the day it stops working. */
function limitsForm(k: KeyRecord, csrf: string | undefined): Safe {
  const day = k.expiresAt?.slice(0, 10) ?? '';
  return html`<details><summary>Limits</summary>
      <form method="post" action="/dashboard/keys/${k.id}/limits" class="stack">
        ${csrfField(csrf)}
        <label>Cap of its own <span class="hint" id="cap-${k.id}">requests per allowance window, below your plan's; empty: none</span>
          <input name="cap" inputmode="numeric" pattern="[0-9]*" value="${k.cap ?? ''}" aria-describedby="cap-${k.id}" autocomplete="off"></label>
        <label>Expires after <span class="hint" id="exp-${k.id}">a day (UTC) from tomorrow on; empty: never</span>
          <input name="expires" type="date" value="${day}" aria-describedby="exp-${k.id}"></label>
        <div><button type="submit" class="secondary">Save limits</button></div>
      </form>
      <p class="small muted">Every key of your account spends the account's one allowance; a cap keeps this key (a test server, a shared script) to a part of it.</p>
    </details>`;
}

function keyCard({ record: k, lastUse: use, use: own }: KeyCard, csrf: string | undefined, isNew: boolean): Safe {
  const rotatable = isLive(k) && k.replacedBy === undefined;
  return html`<article class="card key${isNew ? ' new' : ''}" id="key-${k.id}" aria-labelledby="key-${k.id}-name">
  <div class="key-head"><h3 id="key-${k.id}-name">${k.name}</h3>${statusBadge(k)}</div>
  <dl class="facts">
    <div><dt>Key</dt><dd><code>${k.hint ?? k.id}</code></dd></div>
    <div><dt>Created</dt><dd>${time(k.createdAt)}</dd></div>
    <div><dt>Last used</dt><dd>${use ? lastUse(use) : html`<span class="muted">never</span>`}</dd></div>
    ${useFacts(k, own)}
    ${k.expiresAt && k.replacedBy === undefined ? html`<div><dt>Expires</dt><dd>${time(k.expiresAt)}</dd></div>` : ''}
  </dl>
  <div class="key-actions">
    <details><summary>Rename</summary>
      <form method="post" action="/dashboard/keys/${k.id}/rename" class="row">
        ${csrfField(csrf)}
        <label>New name <input name="name" required maxlength="${KEY_NAME_MAX}" value="${k.name}" autocomplete="off"></label>
        <button type="submit" class="secondary">Save name</button>
      </form>
    </details>
    ${
      rotatable
        ? html`<details><summary>Rotate</summary>
      <form method="post" action="/dashboard/keys/${k.id}/rotate" class="row">
        ${csrfField(csrf)}
        <label>The old key keeps working
          <select name="grace">${Object.entries(GRACE).map(([v, g]) => html`<option value="${v}"${v === '1h' ? html` selected` : ''}>${g.label}</option>`)}</select></label>
        <button type="submit" class="secondary">Rotate key</button>
      </form>
      <p class="small muted">A new key replaces this one; you see it once, on the next page.</p>
    </details>`
        : ''
    }
    ${rotatable ? limitsForm(k, csrf) : ''}
    <a href="/dashboard/usage?key=${k.id}">Usage</a>
    <a href="/dashboard/keys/${k.id}/revoke" class="danger-link">Revoke…</a>
  </div>
</article>`;
}

/** Why an address is missing or may not be the caller's (keys/keys.ts addressNote). */
const NOTES: Record<AddressNote, string> = {
  'not-recorded':
    'address not recorded: the call was made before this version, which read the address only after the caller had closed its connection',
  private:
    "a private address: the call came from the service's own network, or through a proxy, whose address this then is (this service is not set to read the caller's address from its proxy)",
};

function lastUse(use: NonNullable<KeyCard['lastUse']>): Safe {
  const from = use.note === 'not-recorded' ? '' : html` from <code>${use.ip}</code>`;
  const note = use.note ? html`<br><span class="muted small">${NOTES[use.note]}</span>` : '';
  return html`${relative(use.at)}${from} <span class="muted small">(${time(use.at)})</span>${note}`;
}

/** The first call's languages: the reference has them all, with a Try it. */
const FIRST_CALL = LANGUAGES.filter((l) => ['curl', 'javascript', 'python'].includes(l.id));

function snippet(publicUrl: string, sharedKey: string | undefined, fresh: string | undefined): Safe {
  const base = publicUrl.replace(/\/+$/, '');
  const key = sharedKey ?? fresh;
  const request: SampleRequest = {
    method: 'GET',
    url: `${base}/api/v1/tools/ccgen`,
    params: { bin: '457173' },
    key: key ?? '$UUA_API_KEY',
  };
  return html`<section class="card" aria-labelledby="call-title">
  <h2 id="call-title">Call the API</h2>
  <p>Send the key in the <code>X-API-Key</code> header (or as the <code>apikey</code> parameter)${
    key
      ? ''
      : html`; the samples read it from the <code>UUA_API_KEY</code> environment variable (<code>export UUA_API_KEY=uua_…</code>, the key as shown once when you made it)`
  }. In ${FIRST_CALL.map((l) => l.label)
    .join(', ')
    .replace(/, ([^,]*)$/, ' and $1')}:</p>
  ${FIRST_CALL.map((l) => html`<h3 class="small">${l.label}</h3><pre class="wrap"><code>${sample(l.id, request)}</code></pre>`)}
  <p>Every answer carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code>, the figures shown here.
  All endpoints, with these samples and a Try it: <a href="/docs">API reference</a>.</p>
</section>`;
}

/** The revocation's confirmation, a page of its own so it works without JavaScript. */
export function revokeBody(o: { record: KeyRecord; csrf?: string }) {
  const rec = o.record;
  return html`<h1>Revoke “${rec.name}”?</h1>
<div class="card">
  <p>The key <code>${rec.hint ?? rec.id}</code> stops working at once: every call made with it is refused with 401 from then on. This cannot be undone.</p>
  <form method="post" action="/dashboard/keys/${rec.id}/revoke" class="actions">
    ${csrfField(o.csrf)}
    <button type="submit" class="danger">Revoke this key</button>
    <a class="button secondary" href="/dashboard">Cancel</a>
  </form>
</div>`;
}

const backToKeys = html`<a href="/dashboard">Back to your keys</a>`;

/** Why a key action is refused, each with the way back to the key page. */
export const keyRefusals = {
  noSuchKey: () => html`There is no such key in your account. ${backToKeys}`,
  needsPaidPlan: () => html`Free accounts use the shared free key. <a href="/dashboard">Back to your key</a>`,
  disabled: () => html`Disabled keys cannot be rotated. ${backToKeys}`,
  beingReplaced: (expiresAt: string) => html`It was rotated already and stops working ${relative(expiresAt)}. ${backToKeys}`,
  cannotRotate: () => html`It no longer works. ${backToKeys}`,
  cannotLimit: () => html`Only a key that works and is not being replaced can be given a cap or an expiry. ${backToKeys}`,
};
