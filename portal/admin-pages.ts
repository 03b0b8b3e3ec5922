// /admin, for accounts with the admin role: list and search accounts, change an account's plan, approve,
// suspend and reactivate it, list and revoke its keys, and hand out one-time invite links. Every change of
// plan or status reaches the account's keys at once (Accounts.update → keys.updateAccount).
import express, { type Request, type Response, type Router } from 'express';
import { html, type Safe } from '../engine/html.js';
import type { AuthContext } from './auth.js';
import { PLANS, STATUSES, isPlan, isStatus, type Account } from './accounts.js';
import { isLive, type KeyRecord } from '../engine/access/keystore.js';
import { requireAdmin, requireSignedIn } from './sessions.js';
import { csrfField, notice, posted } from './forms.js';
import { PageError, wrap } from './pages.js';

const DONE: Record<string, string> = {
  plan: "The plan was changed; the account's keys carry it from their next request.",
  active: 'The account is active.',
  suspended: 'The account is suspended: its sessions ended and its keys are refused from their next request.',
  revoked: 'The key was revoked.',
  withdrawn: 'The invite was withdrawn.',
};
const INVITE_DAYS = [1, 7, 30];

const day = (iso: string | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '—');
const options = (values: readonly string[], selected: string, blank?: string) =>
  html`${blank !== undefined ? html`<option value=""${selected ? '' : html` selected`}>${blank}</option>` : ''}${values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v}</option>`)}`;
const statusBadge = (s: Account['status']) =>
  html`<span class="badge${s === 'suspended' ? ' danger' : s === 'pending' ? ' warn' : ''}">${s}</span>`;
const doneNotice = (req: Request) => (typeof req.query.done === 'string' && DONE[req.query.done] ? notice('ok', DONE[req.query.done]) : '');

function keyState(k: KeyRecord): Safe {
  if (k.disabled) return html`<span class="badge danger">disabled</span>`;
  if (!isLive(k)) return html`<span class="badge danger">expired</span>`;
  return k.expiresAt ? html`<span class="badge warn">until ${day(k.expiresAt)}</span>` : html`<span class="badge">live</span>`;
}

// Usage per account: the requests of its personal keys in the last 24 hours and 30 days, from the usage
// history (engine/access/usage.ts). Free accounts call on the shared free key, counted per client IP, so their
// calls cannot be told apart per account. A key's history is kept under its current plan.
async function usageOf(ctx: AuthContext, held: KeyRecord[]): Promise<{ day: number; month: number }> {
  const u = ctx.deps.usage;
  let day = 0;
  let month = 0;
  for (const k of held) {
    const partition = u.usageKey(k.plan, k.id, undefined);
    if (!partition) continue;
    const [h, d] = await Promise.all([u.usage.history(partition, 'hour'), u.usage.history(partition, 'day')]);
    day += h.total;
    month += d.total;
  }
  return { day, month };
}

const usageCell = (a: Account, u: { day: number; month: number }) =>
  a.plan === 'free' && !u.month
    ? html`<span class="muted" title="free accounts share the free key">shared key</span>`
    : html`${u.day} <span class="muted small">/ ${u.month} in 30 d</span>`;

export function adminRoutes(ctx: AuthContext): Router {
  const { accounts, invites, pages } = ctx;
  const { keys, log, config } = ctx.deps;
  const r = express.Router();
  r.use(requireSignedIn, requireAdmin);

  const nav = (here: string) =>
    html`<nav class="actions" aria-label="Admin"><a href="/admin"${here === 'accounts' ? html` aria-current="page"` : ''}>Accounts</a><a href="/admin/invites"${here === 'invites' ? html` aria-current="page"` : ''}>Invite links</a></nav>`;

  const accountOr404 = async (req: Request) => {
    const account = await accounts.get(String(req.params.id));
    if (!account) throw new PageError(404, 'No such account', 'It may have been removed.');
    return account;
  };

  // --- accounts ----------------------------------------------------------------------------------------

  r.get(
    '/',
    wrap(async (req, res) => {
      const q = typeof req.query.q === 'string' ? req.query.q.trim().toLowerCase() : '';
      const status = isStatus(req.query.status) ? req.query.status : '';
      const plan = isPlan(req.query.plan) ? req.query.plan : '';
      const all = await accounts.list();
      const shown = all.filter(
        (a) =>
          (!q || a.email.toLowerCase().includes(q) || a.name.toLowerCase().includes(q)) &&
          (!status || a.status === status) &&
          (!plan || a.plan === plan),
      );
      const byAccount = new Map<string, KeyRecord[]>();
      for (const k of await keys.list()) if (k.accountId) byAccount.set(k.accountId, [...(byAccount.get(k.accountId) ?? []), k]);
      const pending = all.filter((a) => a.status === 'pending').length;
      const rows = await Promise.all(
        shown.map(
          async (a) => html`<tr>
  <td><a href="/admin/accounts/${a.id}">${a.email}</a></td><td>${a.name}</td><td>${a.plan}</td><td>${statusBadge(a.status)}</td>
  <td>${a.role}</td><td>${byAccount.get(a.id)?.length ?? 0}</td><td>${day(a.createdAt)}</td><td>${day(a.lastSignInAt)}</td>
  <td>${usageCell(a, await usageOf(ctx, byAccount.get(a.id) ?? []))}</td></tr>`,
        ),
      );
      pages.send(
        res,
        'Admin',
        html`<h1>Accounts</h1>
${nav('accounts')}
${doneNotice(req)}
${pending ? notice('info', html`${pending} account${pending === 1 ? ' waits' : 's wait'} for approval: <a href="/admin?status=pending">show them</a>.`) : ''}
<form method="get" action="/admin" class="row" role="search">
  <label>Email or name <input name="q" type="search" value="${q}"></label>
  <label>Status <select name="status">${options(STATUSES, status, 'any')}</select></label>
  <label>Plan <select name="plan">${options(PLANS, plan, 'any')}</select></label>
  <button type="submit">Search</button>
</form>
<p class="muted small">${shown.length} of ${all.length} accounts</p>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Role</th><th scope="col">Keys</th><th scope="col">Created (UTC)</th><th scope="col">Last sign-in</th><th scope="col">Requests 24 h</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="9" class="muted">No accounts match.</td></tr>`}</tbody>
</table></div>`,
        { wide: true },
      );
    }),
  );

  r.get(
    '/accounts/:id',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const held = await keys.list({ accountId: a.id });
      const used = await keys.lastUsed(held.map((k) => k.id));
      const self = a.id === res.locals.viewer!.id;
      const csrf = csrfField(res.locals.csrf);
      const statusButton = (to: Account['status'], label: string, cls = '') =>
        html`<form method="post" action="/admin/accounts/${a.id}/status" class="inline">${csrf}<input type="hidden" name="status" value="${to}"><button type="submit" class="${cls}">${label}</button></form>`;
      const usage = await usageOf(ctx, held);
      pages.send(
        res,
        `${a.name} · Admin`,
        html`<p><a href="/admin">← Accounts</a></p>
<h1>${a.name}</h1>
${doneNotice(req)}
<div class="card"><p class="mono">${a.email}</p>
<p>${statusBadge(a.status)} <span class="badge">${a.plan}</span> <span class="badge">${a.role}</span></p>
<p class="muted small">id ${a.id} · created ${day(a.createdAt)} UTC · last sign-in ${day(a.lastSignInAt)}</p></div>
<h2>Plan</h2>
<form method="post" action="/admin/accounts/${a.id}/plan" class="row">${csrf}
  <label>Plan <select name="plan">${options(PLANS, a.plan)}</select></label>
  <button type="submit">Change plan</button>
</form>
<p class="muted small">Free accounts use the shared free key; their personal keys are kept but refused until a paid plan.</p>
<h2>Status</h2>
<div class="actions">${
          self
            ? html`<p class="muted">This is your own account.</p>`
            : a.status === 'pending'
              ? html`${statusButton('active', 'Approve')} ${statusButton('suspended', 'Suspend', 'danger')}`
              : a.status === 'active'
                ? statusButton('suspended', 'Suspend', 'danger')
                : statusButton('active', 'Reactivate')
        }</div>
<h2>Keys</h2>
${
  held.length
    ? html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Plan</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${held.map(
        (
          k,
        ) => html`<tr><td>${k.name}</td><td class="mono">${k.hint ?? k.id}</td><td>${k.plan}</td><td>${keyState(k)}</td><td>${day(k.createdAt)}</td>
<td>${used.get(k.id) ? html`${day(used.get(k.id)!.at)} <span class="muted small">${used.get(k.id)!.ip}</span>` : '—'}</td>
<td><form method="post" action="/admin/accounts/${a.id}/keys/${k.id}/revoke" class="inline">${csrf}<button type="submit" class="danger small" aria-label="Revoke key ${k.name}">Revoke</button></form></td></tr>`,
      )}</tbody>
</table></div>`
    : html`<p class="muted">No personal keys.</p>`
}
<h2>Usage</h2>
<div class="grid"><div class="card"><div class="stat">${usage.day}</div><div class="muted">requests in 24 hours</div></div>
<div class="card"><div class="stat">${usage.month}</div><div class="muted">requests in 30 days</div></div></div>
<p class="muted small">Counted over this account's personal keys${a.plan === 'free' ? '; as a free account it calls on the shared free key, which is counted per client IP, not per account' : ''}.</p>`,
        { wide: true },
      );
    }),
  );

  r.post(
    '/accounts/:id/plan',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const plan = posted(req, 'plan');
      if (!isPlan(plan)) throw new PageError(400, 'No such plan', `Choose one of ${PLANS.join(', ')}.`);
      await accounts.update(a.id, { plan });
      log.info({ by: res.locals.viewer!.id, accountId: a.id, plan }, 'portal: admin changed plan');
      res.redirect(303, `/admin/accounts/${a.id}?done=plan`);
    }),
  );

  r.post(
    '/accounts/:id/status',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const status = posted(req, 'status');
      if (status !== 'active' && status !== 'suspended')
        throw new PageError(400, 'No such status', 'An account can be made active or suspended.');
      if (a.id === res.locals.viewer!.id)
        throw new PageError(400, 'Not your own account', "Another admin can change your account's status.");
      // A suspended account's sessions end at their next request (sessions.ts checks the status).
      await accounts.update(a.id, { status });
      log.info({ by: res.locals.viewer!.id, accountId: a.id, status }, 'portal: admin changed status');
      res.redirect(303, `/admin/accounts/${a.id}?done=${status}`);
    }),
  );

  r.post(
    '/accounts/:id/keys/:keyId/revoke',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const key = await keys.get(String(req.params.keyId));
      if (!key || key.accountId !== a.id) throw new PageError(404, 'No such key', 'It may have been revoked already.');
      await keys.revoke(key.id);
      log.info({ by: res.locals.viewer!.id, accountId: a.id, keyId: key.id }, 'portal: admin revoked key');
      res.redirect(303, `/admin/accounts/${a.id}?done=revoked`);
    }),
  );

  // --- invites -----------------------------------------------------------------------------------------

  const invitesPage = async (req: Request, res: Response, created?: { url: string; plan: string; expiresAt: string }) => {
    const open = await invites.list();
    const by = new Map((await accounts.list()).map((a) => [a.id, a.email]));
    const csrf = csrfField(res.locals.csrf);
    pages.send(
      res,
      'Invite links · Admin',
      html`<h1>Invite links</h1>
${nav('invites')}
${doneNotice(req)}
${
  created
    ? html`<div class="notice ok" role="status"><p>A one-time invite link for a <strong>${created.plan}</strong> account, valid until ${day(created.expiresAt)} UTC. It is shown once: copy it now.</p>
<p class="secret"><code id="invite-url">${created.url}</code></p></div>`
    : ''
}
<p>An invite link creates one account, in every sign-up mode (now: <strong>${ctx.signup}</strong>), with the plan chosen here, active at once.</p>
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
}`,
      { wide: true },
    );
  };

  r.get(
    '/invites',
    wrap((req, res) => invitesPage(req, res)),
  );

  r.post(
    '/invites',
    wrap(async (req, res) => {
      const plan = posted(req, 'plan') || 'free';
      const days = Number(posted(req, 'days'));
      if (!isPlan(plan)) throw new PageError(400, 'No such plan', `Choose one of ${PLANS.join(', ')}.`);
      if (!INVITE_DAYS.includes(days)) throw new PageError(400, 'No such validity', `Choose ${INVITE_DAYS.join(', ')} days.`);
      const { token, invite } = await invites.create({ plan, days, createdBy: res.locals.viewer!.id });
      log.info({ by: res.locals.viewer!.id, invite: invite.id, plan }, 'portal: admin created invite');
      await invitesPage(req, res, { url: `${config.publicUrl}/signup?invite=${token}`, plan, expiresAt: invite.expiresAt });
    }),
  );

  r.post(
    '/invites/:id/withdraw',
    wrap(async (req, res) => {
      await invites.withdraw(String(req.params.id));
      res.redirect(303, '/admin/invites?done=withdrawn');
    }),
  );

  return r;
}
