// The admin pages: the queue of upgrade requests and the accounts list with its search, one account (plan,
// status, keys, usage), and the invite links. The figures come from admin/routes.ts; the confirmations of
// ?done= are here.
import { html, type Safe } from '../../engine/html.js';
import { isLive, type KeyRecord, type LastUse } from '../../engine/access/keystore.js';
import { PLANS, STATES, type Account } from '../accounts/accounts.js';
import { INVITE_DAYS, type Invite } from '../auth/index.js';
import { REASON_MAX, type UpgradeRequest } from '../accounts/upgrades.js';
import { csrfField, notice } from '../shared/forms.js';
import { planName } from '../shared/format.js';
import { adminStatusCell, type BillingRecord } from '../billing/index.js';
import { hasFactor, type FactorSummary } from '../two-factor/index.js';

const DONE: Record<string, string> = {
  plan: "The plan was changed; the account's keys carry it from their next request.",
  active: 'The account is active.',
  suspended: 'The account is suspended: its sessions ended and its keys are refused from their next request.',
  revoked: 'The key was revoked.',
  withdrawn: 'The invite was withdrawn.',
  approved: 'The upgrade was approved: the account and its keys are on the new plan from their next request.',
  declined: 'The upgrade request was declined.',
  'two-factor-reset':
    "The account's second factors and recovery codes were removed: its password alone signs in now. Its owner was told by mail.",
  'already-decided': 'That request was decided already (by another admin, or withdrawn by the account being deleted).',
};

/** Requests of an account's personal keys in the last 24 hours and 30 days. */
export interface AccountUsage {
  day: number;
  month: number;
}

const day = (iso: string | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '—');
const options = (values: readonly string[], selected: string, blank?: string) =>
  html`${blank !== undefined ? html`<option value=""${selected ? '' : html` selected`}>${blank}</option>` : ''}${values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v}</option>`)}`;
/** An account's state: its status, or "unconfirmed" for an active account whose address is not confirmed yet. */
const statusBadge = (a: Account) =>
  a.status === 'active' && a.unverified
    ? html`<span class="badge warn">unconfirmed</span>`
    : html`<span class="badge${a.status === 'suspended' ? ' danger' : a.status === 'pending' ? ' warn' : ''}">${a.status}</span>`;
const doneNotice = (done: string | undefined) => (done && DONE[done] ? notice('ok', DONE[done]) : '');

function keyState(k: KeyRecord): Safe {
  if (k.revokedAt) return html`<span class="badge danger">revoked ${day(k.revokedAt)}</span>`;
  if (k.disabled) return html`<span class="badge danger">disabled</span>`;
  if (!isLive(k)) return html`<span class="badge danger">expired</span>`;
  return k.expiresAt ? html`<span class="badge warn">until ${day(k.expiresAt)}</span>` : html`<span class="badge">live</span>`;
}

// Free accounts call on the shared free key, counted per client IP, so their calls cannot be told apart
// per account.
const usageCell = (a: Account, u: AccountUsage) =>
  a.plan === 'free' && !u.month
    ? html`<span class="muted" title="free accounts share the free key">shared key</span>`
    : html`${u.day} <span class="muted small">/ ${u.month} in 30 d</span>`;

const nav = (here: string) =>
  html`<nav class="actions" aria-label="Admin"><a href="/admin"${here === 'accounts' ? html` aria-current="page"` : ''}>Accounts</a><a href="/admin/invites"${here === 'invites' ? html` aria-current="page"` : ''}>Invite links</a><a href="/admin/status">Probes</a></nav>`;

/** A pending upgrade request with the account that made it. */
export interface QueuedRequest {
  request: UpgradeRequest;
  account: Account;
}

function upgradeQueue(queue: QueuedRequest[], csrf: string | undefined): Safe {
  const token = csrfField(csrf);
  return html`<section aria-labelledby="queue-title">
<h2 id="queue-title">Upgrade requests <span class="badge${queue.length ? ' warn' : ''}">${queue.length}</span></h2>
${
  queue.length
    ? // One card per request, not a table: its decision stays on screen at 390 px.
      html`<ul class="queue">${queue.map(
        ({ request: r, account: a }) => html`<li class="card">
  <p><a href="/admin/accounts/${a.id}">${a.email}</a> <span class="muted small">${a.name}</span></p>
  <p>${planName(r.from)} → <strong>${planName(r.to)}</strong> <span class="muted small">asked ${day(r.requestedAt)} UTC</span></p>
  ${r.message ? html`<p class="message">“${r.message}”</p>` : ''}
  <div class="decide">
    <form method="post" action="/admin/upgrades/${a.id}/approve" class="inline">${token}<button type="submit" class="small" aria-label="Approve ${planName(r.to)} for ${a.email}">Approve</button></form>
    <details><summary>Decline…</summary>
      <form method="post" action="/admin/upgrades/${a.id}/decline" class="stack">${token}
        <label>Reason <span class="hint">optional, shown to the user</span><input name="reason" maxlength="${REASON_MAX}" autocomplete="off"></label>
        <div><button type="submit" class="danger small" aria-label="Decline ${planName(r.to)} for ${a.email}">Decline</button></div>
      </form>
    </details>
  </div></li>`,
      )}</ul>`
    : html`<p class="muted">None waiting.</p>`
}
</section>`;
}

interface AccountsPage {
  done?: string;
  csrf?: string;
  /** Pending upgrade requests, oldest first. */
  queue: QueuedRequest[];
  /** Requests of deleted accounts' keys (anonymised), in 24 hours and 30 days. */
  erased: AccountUsage & { accounts: number };
  /** The search: the start of an email, a key's id or hint; a state (a status, or 'unverified'); a plan ('' for any). */
  q: string;
  status: string;
  plan: string;
  /** How many accounts there are, how many the search matches, and how many wait for approval. */
  total: number;
  matching: number;
  pending: number;
  /** One page of the accounts the search matches, with their key count and usage. */
  rows: { account: Account; keys: number; usage: AccountUsage }[];
  /** The cursors of the pages before and after this one, when there are such pages. */
  prev?: string;
  next?: string;
  /** With billing on: each account's Stripe record (a Billing column). */
  billing?: Map<string, BillingRecord>;
}

/** The list's address with the search kept and a page's cursor. */
function pageHref(o: AccountsPage, cursor: { after: string } | { before: string }): string {
  const params = new URLSearchParams({
    ...(o.q && { q: o.q }),
    ...(o.status && { status: o.status }),
    ...(o.plan && { plan: o.plan }),
    ...cursor,
  });
  return `/admin?${params.toString()}`;
}

function pager(o: AccountsPage): Safe | '' {
  if (!o.prev && !o.next) return '';
  return html`<nav class="actions pager" aria-label="Pages of accounts">${o.prev ? html`<a href="${pageHref(o, { before: o.prev })}" rel="prev">← Previous</a>` : ''}${o.next ? html`<a href="${pageHref(o, { after: o.next })}" rel="next">Next page →</a>` : ''}</nav>`;
}

export function accountsBody(o: AccountsPage) {
  const rows = o.rows.map(
    ({ account: a, keys, usage }) => html`<tr>
  <td><a href="/admin/accounts/${a.id}">${a.email}</a></td><td>${a.name}</td><td>${a.plan}</td><td>${statusBadge(a)}</td>
  <td>${a.role}</td><td>${keys}</td><td>${day(a.createdAt)}</td><td>${day(a.lastSignInAt)}</td>
  <td>${usageCell(a, usage)}</td>${o.billing ? html`<td>${adminStatusCell(o.billing.get(a.id))}</td>` : ''}</tr>`,
  );
  const pending = o.pending;
  return html`<h1>Accounts</h1>
${nav('accounts')}
${doneNotice(o.done)}
${pending ? notice('info', html`${pending} account${pending === 1 ? ' waits' : 's wait'} for approval: <a href="/admin?status=pending">show them</a>.`) : ''}
${upgradeQueue(o.queue, o.csrf)}
<h2>All accounts</h2>
<form method="get" action="/admin" class="row" role="search">
  <label>Email, key id or hint <input name="q" type="search" value="${o.q}"></label>
  <label>Status <select name="status">${options(STATES, o.status, 'any')}</select></label>
  <label>Plan <select name="plan">${options(PLANS, o.plan, 'any')}</select></label>
  <button type="submit">Search</button>
</form>
<p class="muted small">${o.rows.length} shown of ${o.matching} matching · ${o.total} accounts in all</p>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Role</th><th scope="col">Keys</th><th scope="col">Created (UTC)</th><th scope="col">Last sign-in</th><th scope="col">Requests 24 h</th>${o.billing ? html`<th scope="col">Subscription</th>` : ''}</tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="${o.billing ? 10 : 9}" class="muted">No accounts match.</td></tr>`}</tbody>
</table></div>
${pager(o)}
${
  o.erased.accounts
    ? html`<p class="muted small" id="erased-usage">Deleted accounts (${o.erased.accounts}, anonymised): ${o.erased.day} requests in 24 h, ${o.erased.month} in 30 days.</p>`
    : ''
}`;
}

export interface AccountDetailPage {
  account: Account;
  /** The account is the viewer's own (its status cannot be changed here). */
  self: boolean;
  csrf?: string;
  done?: string;
  held: KeyRecord[];
  used: Map<string, LastUse>;
  usage: AccountUsage;
  /** A password reset link just made, shown once. */
  reset?: { url: string; expiresAt: string };
  /** The account's plan changes, recorded (accounts/plan-changes.ts). */
  history?: Safe;
  /** With billing on: the account's subscription (portal/billing/views.ts). */
  subscription?: Safe;
  /** The account's second factors (portal/two-factor/). */
  factors: FactorSummary;
}

function factorsSection(o: AccountDetailPage, csrf: Safe): Safe {
  const f = o.factors;
  const on = hasFactor(f);
  const what = [
    ...(f.totp ? [`an authenticator app (since ${day(f.totp)} UTC)`] : []),
    ...(f.passkeys.length ? [`${f.passkeys.length} passkey${f.passkeys.length === 1 ? '' : 's'}`] : []),
  ];
  return html`<h2 id="two-factor">Two-factor sign-in</h2>
<p>${on ? html`On: ${what.join(' and ')}; ${f.recoveryLeft} recovery code${f.recoveryLeft === 1 ? '' : 's'} left.` : html`<span class="muted">Off: the password alone signs in.</span>`}</p>
${
  on && !o.self
    ? html`<p class="muted small">For an owner who lost their factors and recovery codes: the reset removes every factor and recovery code, so the password alone signs in until they set new ones up. The owner is mailed, and the reset is logged with your account.</p>
<form method="post" action="/admin/accounts/${o.account.id}/two-factor/reset" class="row">${csrf}<button type="submit" class="danger">Reset two-factor sign-in</button></form>`
    : ''
}`;
}

export function accountDetailBody(o: AccountDetailPage) {
  const { account: a, held, used, usage } = o;
  const csrf = csrfField(o.csrf);
  const statusButton = (to: Account['status'], label: string, cls = '') =>
    html`<form method="post" action="/admin/accounts/${a.id}/status" class="inline">${csrf}<input type="hidden" name="status" value="${to}"><button type="submit" class="${cls}">${label}</button></form>`;
  return html`<p><a href="/admin">← Accounts</a></p>
<h1>${a.name}</h1>
${doneNotice(o.done)}
<div class="card"><p class="mono">${a.email}</p>
<p>${statusBadge(a)} <span class="badge">${a.plan}</span> <span class="badge">${a.role}</span>${a.unverified ? html` <span class="muted small">address not confirmed</span>` : ''}</p>
<p class="muted small">id ${a.id} · created ${day(a.createdAt)} UTC · last sign-in ${day(a.lastSignInAt)}</p></div>
<h2>Plan</h2>
<form method="post" action="/admin/accounts/${a.id}/plan" class="row">${csrf}
  <label>Plan <select name="plan">${options(PLANS, a.plan)}</select></label>
  <button type="submit">Change plan</button>
</form>
<p class="muted small">Free accounts use the shared free key; their personal keys are kept but refused until a paid plan.</p>
${o.subscription ? html`<h3 id="subscription-title">Subscription</h3>${o.subscription}` : ''}
${o.history ? html`<h3 id="plan-history">Plan changes</h3>${o.history}` : ''}
<h2>Status</h2>
<div class="actions">${
    o.self
      ? html`<p class="muted">This is your own account.</p>`
      : a.status === 'pending'
        ? html`${statusButton('active', 'Approve')} ${statusButton('suspended', 'Suspend', 'danger')}`
        : a.status === 'active'
          ? statusButton('suspended', 'Suspend', 'danger')
          : statusButton('active', 'Reactivate')
  }</div>
<h2 id="reset">Password</h2>
${
  o.reset
    ? html`<div class="notice ok" role="status"><p>A one-time password reset link for this account, valid until ${day(o.reset.expiresAt)} UTC. It is shown once: copy it now and hand it to the account's owner.</p>
<p class="secret"><code id="reset-url">${o.reset.url}</code></p></div>`
    : ''
}
<p class="muted small">A reset link lets whoever opens it choose a new password for this account, once, within an hour; every session of the account ends when it is used.</p>
<form method="post" action="/admin/accounts/${a.id}/reset-link" class="row">${csrf}<button type="submit">Make a password reset link</button></form>
${factorsSection(o, csrf)}
<h2>Keys</h2>
${
  held.length
    ? html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Plan</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${held.map(
        (
          k,
        ) => html`<tr><td>${k.name}</td><td class="mono">${k.hint ?? k.id}</td><td>${k.plan}</td><td>${keyState(k)}</td><td>${day(k.createdAt)}</td>
<td>${used.get(k.id) ? html`${day(used.get(k.id)!.at)} <span class="muted small">${used.get(k.id)!.ip || 'address not recorded'}</span>` : '—'}</td>
<td>${k.revokedAt ? '' : html`<form method="post" action="/admin/accounts/${a.id}/keys/${k.id}/revoke" class="inline">${csrf}<button type="submit" class="danger small" aria-label="Revoke key ${k.name}">Revoke</button></form>`}</td></tr>`,
      )}</tbody>
</table></div>`
    : html`<p class="muted">No personal keys.</p>`
}
<h2>Usage</h2>
<div class="grid"><div class="card"><div class="stat">${usage.day}</div><div class="muted">requests in 24 hours</div></div>
<div class="card"><div class="stat">${usage.month}</div><div class="muted">requests in 30 days</div></div></div>
<p class="muted small">Counted over this account's personal keys, revoked ones included${a.plan === 'free' ? '; as a free account it calls on the shared free key, which is counted per client IP, not per account' : ''}.</p>`;
}

export interface InvitesPage {
  done?: string;
  csrf?: string;
  /** The sign-up mode now (SIGNUP). */
  signup: string;
  /** The link just made, shown once. */
  created?: { url: string; plan: string; expiresAt: string };
  open: Invite[];
  /** Account id → email, for "created by". */
  by: Map<string, string>;
}

export function invitesBody(o: InvitesPage) {
  const { created, open, by } = o;
  const csrf = csrfField(o.csrf);
  return html`<h1>Invite links</h1>
${nav('invites')}
${doneNotice(o.done)}
${
  created
    ? html`<div class="notice ok" role="status"><p>A one-time invite link for a <strong>${created.plan}</strong> account, valid until ${day(created.expiresAt)} UTC. It is shown once: copy it now.</p>
<p class="secret"><code id="invite-url">${created.url}</code></p></div>`
    : ''
}
<p>An invite link creates one account, in every sign-up mode (now: <strong>${o.signup}</strong>), with the plan chosen here, active at once.</p>
<form method="post" action="/admin/invites" class="row card">${csrf}
  <label>Plan <select name="plan">${options(PLANS, 'free')}</select></label>
  <label>Valid for <select name="days">${INVITE_DAYS.map((d) => html`<option value="${d}"${d === 7 ? html` selected` : ''}>${d} day${d === 1 ? '' : 's'}</option>`)}</select></label>
  <button type="submit">Create invite link</button>
</form>
<h2>Open invites</h2>
${
  open.length
    ? html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Id</th><th scope="col">Plan</th><th scope="col">Created by</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${open.map(
        (
          i,
        ) => html`<tr><td class="mono">${i.id}</td><td>${i.plan ?? 'free'}</td><td>${by.get(i.createdBy) ?? i.createdBy}</td><td>${day(i.createdAt)}</td><td>${day(i.expiresAt)}</td>
<td><form method="post" action="/admin/invites/${i.id}/withdraw" class="inline">${csrf}<button type="submit" class="danger small" aria-label="Withdraw invite ${i.id}">Withdraw</button></form></td></tr>`,
      )}</tbody>
</table></div>`
    : html`<p class="muted">None open.</p>`
}`;
}
