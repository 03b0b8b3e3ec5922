// /admin, for accounts with the admin role: the queue of upgrade requests (approve or decline), list and
// search accounts, change an account's plan, approve, suspend and reactivate it, list and revoke its keys,
// make a one-time password reset link for it (how a user gets back in when the service sends no mail), and
// hand out one-time invite links. Every change of plan or status reaches the account's keys at once
// (Accounts.update → keys.updateAccount).
import express, { type Request, type Response, type Router } from 'express';
import type { KeyRecord } from '../../engine/access/keystore.js';
import type { PortalContext } from '../context.js';
import { PLANS, isPlan, isStatus } from '../accounts/accounts.js';
import { INVITE_DAYS } from '../accounts/invites.js';
import { REASON_MAX, textProblem } from '../accounts/upgrades.js';
import { erasedUsage } from '../accounts/deletion.js';
import { requireAdmin, requireSignedIn } from '../accounts/sessions.js';
import type { Account } from '../accounts/accounts.js';
import { resetLink } from '../mail/links.js';
import { changePlan } from '../accounts/plan-changes.js';
import { isEntitled } from '../billing/records.js';
import { adminSubscription, confirmPlanBody, planHistory } from '../billing/views.js';
import { PageError, posted, wrap } from '../pages.js';
import {
  accountDetailBody,
  accountsBody,
  invitesBody,
  type AccountDetailPage,
  type AccountUsage,
  type InvitesPage,
  type QueuedRequest,
} from '../views/admin.js';

/** ?done= of the redirect after a change. */
const doneOf = (req: Request) => (typeof req.query.done === 'string' ? req.query.done : undefined);

// Usage per account: the requests of its personal keys, revoked ones included, in the last 24 hours and 30
// days, from the usage history (engine/access/usage.ts). Free accounts call on the shared free key, counted
// per client IP, so their calls cannot be told apart per account.
async function usageOf(ctx: PortalContext, held: KeyRecord[]): Promise<AccountUsage> {
  const u = ctx.deps.usage;
  const partitions = held.flatMap((k) => u.usageKeys(k.plan, { keyId: k.id }, undefined) ?? []);
  if (!partitions.length) return { day: 0, month: 0 };
  const [h, d] = await Promise.all([u.usage.history(partitions, 'hour'), u.usage.history(partitions, 'day')]);
  return { day: h.total, month: d.total };
}

export function adminRoutes(ctx: PortalContext): Router {
  const { accounts, invites, upgrades, pages } = ctx;
  const { keys, log, config } = ctx.deps;
  const r = express.Router();
  r.use(requireSignedIn, requireAdmin);

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
      for (const k of await keys.list({ revoked: true }))
        if (k.accountId) byAccount.set(k.accountId, [...(byAccount.get(k.accountId) ?? []), k]);
      const rows = await Promise.all(
        shown.map(async (account) => ({
          account,
          keys: byAccount.get(account.id)?.filter((k) => !k.revokedAt).length ?? 0,
          usage: await usageOf(ctx, byAccount.get(account.id) ?? []),
        })),
      );
      const pending = all.filter((a) => a.status === 'pending').length;
      const byId = new Map(all.map((a) => [a.id, a]));
      const queue = (await upgrades.pending()).flatMap((request): QueuedRequest[] => {
        const account = byId.get(request.accountId);
        return account ? [{ request, account }] : [];
      });
      const erased = await erasedUsage(ctx.deps.store, ctx.deps.usage);
      const billing = ctx.billing && (await ctx.billing.records(shown.map((a) => a.id)));
      const body = accountsBody({
        billing,
        done: doneOf(req),
        csrf: res.locals.csrf,
        queue,
        erased,
        q,
        status,
        plan,
        total: all.length,
        pending,
        rows,
      });
      pages.send(res, 'Admin', body, { wide: true });
    }),
  );

  const detailPage = async (req: Request, res: Response, account: Account, reset?: AccountDetailPage['reset']) => {
    const held = await keys.list({ accountId: account.id, revoked: true });
    const used = await keys.lastUsed(held.map((k) => k.id));
    const self = account.id === res.locals.viewer!.id;
    const usage = await usageOf(ctx, held);
    const history = planHistory(await ctx.planChanges.of(account.id), true);
    const subscription = ctx.billing && (await billingOf(account.id)).body;
    const body = accountDetailBody({
      account,
      self,
      csrf: res.locals.csrf,
      done: doneOf(req),
      held,
      used,
      usage,
      reset,
      history,
      subscription,
    });
    pages.send(res, `${account.name} · Admin`, body, { wide: true });
  };

  /** The account's billing record, the price it pays and the admin page's part for it (billing on). */
  const billingOf = async (accountId: string) => {
    const record = await ctx.billing!.record(accountId);
    const price = record?.plan ? (await ctx.billing!.prices())[record.plan as 'premium'] : undefined;
    return { record, price, body: adminSubscription(record, price) };
  };

  r.get(
    '/accounts/:id',
    wrap(async (req, res) => detailPage(req, res, await accountOr404(req))),
  );

  // The link is shown once, in the answer to this POST (never in a URL or a redirect), as invite links are.
  r.post(
    '/accounts/:id/reset-link',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const link = await resetLink(ctx, a, false);
      log.info({ by: res.locals.viewer!.id, accountId: a.id }, 'portal: admin made a reset link');
      await detailPage(req, res, a, { url: link.url, expiresAt: new Date(link.expiresAt).toISOString() });
    }),
  );

  r.post(
    '/accounts/:id/plan',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      const plan = posted(req, 'plan');
      if (!isPlan(plan)) throw new PageError(400, 'No such plan', `Choose one of ${PLANS.join(', ')}.`);
      // An account that pays through Stripe: the admin confirms, told what Stripe keeps billing.
      if (ctx.billing && plan !== a.plan && posted(req, 'confirm') !== 'yes') {
        const { record, price } = await billingOf(a.id);
        if (record?.subscriptionId && isEntitled(record.status))
          return pages.send(
            res,
            `Change plan · ${a.name} · Admin`,
            confirmPlanBody({ account: a, to: plan, record, price, csrf: res.locals.csrf }),
            {
              status: 409,
              wide: true,
            },
          );
      }
      await changePlan(ctx, a.id, plan, { by: 'admin', actor: res.locals.viewer!.email });
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
      // A suspended account's sessions end at their next request (accounts/sessions.ts checks the status).
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

  // --- upgrade requests --------------------------------------------------------------------------------

  r.post(
    '/upgrades/:id/:decision',
    wrap(async (req, res) => {
      const decision = String(req.params.decision);
      if (decision !== 'approve' && decision !== 'decline') throw new PageError(404, 'No such page', 'Approve or decline a request.');
      const reason = posted(req, 'reason', 2000);
      const problem = textProblem(reason, REASON_MAX, 'reason');
      if (problem) throw new PageError(400, 'The reason is too long', problem);
      const by = res.locals.viewer!.id;
      const before = await accounts.get(String(req.params.id));
      const decided = await upgrades.decide(String(req.params.id), { approve: decision === 'approve', by, reason });
      if (!decided) return res.redirect(303, '/admin?done=already-decided');
      const { request, account } = decided;
      if (before && account.plan !== before.plan)
        await ctx.planChanges.record(account.id, {
          at: request.decidedAt!,
          from: before.plan,
          to: account.plan,
          by: 'upgrade',
          actor: res.locals.viewer!.email,
        });
      log.info({ by, accountId: request.accountId, to: request.to, status: request.status }, 'portal: admin decided an upgrade request');
      res.redirect(303, `/admin?done=${request.status}`);
    }),
  );

  // --- invites -----------------------------------------------------------------------------------------

  const invitesPage = async (req: Request, res: Response, created?: InvitesPage['created']) => {
    const open = await invites.list();
    const by = new Map((await accounts.list()).map((a) => [a.id, a.email]));
    const body = invitesBody({ done: doneOf(req), csrf: res.locals.csrf, signup: ctx.signup, created, open, by });
    pages.send(res, 'Invite links · Admin', body, { wide: true });
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
