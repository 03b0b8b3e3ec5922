// /admin, for accounts with the admin role: the queue of upgrade requests (approve or decline), list
// accounts a page of 50 at a time and search them (email, key id or hint, plan, state), change an account's
// plan, approve, suspend and reactivate it, list and revoke its keys, make a one-time password reset link
// for it (how a user gets back in when the service sends no mail), reset its second factors (for an owner
// who lost them), and hand out one-time invite links. Every change of plan or status reaches the account's
// keys at once (Accounts.update → keys.updateAccount).
import express, { type Request, type Response, type Router } from 'express';
import type { KeyRecord } from '../../engine/access/keystore.js';
import type { PortalContext } from '../context.js';
import { PLANS, isPlan, isState } from '../accounts/accounts.js';
import { INVITE_DAYS, requireAdmin, requireSignedIn, resetLink } from '../auth/index.js';
import { REASON_MAX, textProblem } from '../accounts/upgrades.js';
import { erasedUsage } from '../account/index.js';
import type { Account } from '../accounts/accounts.js';
import { changePlan } from '../accounts/plan-changes.js';
import { adminSubscription, confirmPlanBody, isEntitled, planHistory } from '../billing/index.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { hasFactor, mailFactorChange } from '../two-factor/index.js';
import {
  accountDetailBody,
  accountsBody,
  invitesBody,
  type AccountDetailPage,
  type AccountUsage,
  type InvitesPage,
  type QueuedRequest,
} from './views.js';

/** ?done= of the redirect after a change. */
const doneOf = (req: Request) => (typeof req.query.done === 'string' ? req.query.done : undefined);

// Usage per account: the requests of its personal keys, revoked ones included, in the last 24 hours and 30
// days, from the usage history (features/usage/usage.ts). Free accounts call on the shared free key, counted
// per client IP, so their calls cannot be told apart per account.
async function usageOf(ctx: PortalContext, held: KeyRecord[]): Promise<AccountUsage> {
  return (await usageOfMany(ctx, [held]))[0];
}

/** The usage of each account of a page (the keys of each), in one read of the counters per period. */
async function usageOfMany(ctx: PortalContext, heldByAccount: KeyRecord[][]): Promise<AccountUsage[]> {
  const u = ctx.deps.usage;
  const groups = heldByAccount.map((held) => held.flatMap((k) => u.usageKeys(k.plan, { keyId: k.id }, undefined) ?? []));
  const [day, month] = await Promise.all([u.usage.totals(groups, 'hour'), u.usage.totals(groups, 'day')]);
  return groups.map((_, i) => ({ day: day[i], month: month[i] }));
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
      const text = (name: string) => {
        const v = req.query[name];
        return typeof v === 'string' ? v : undefined;
      };
      const q = (text('q') ?? '').trim().slice(0, 254);
      const status = isState(req.query.status) ? req.query.status : '';
      const plan = isPlan(req.query.plan) ? req.query.plan : '';
      const filter = { ...(q && { q }), ...(status && { state: status }), ...(plan && { plan }) };
      const filtered = Object.keys(filter).length > 0;
      const [page, total, matching, pending, requests] = await Promise.all([
        accounts.page({ ...filter, after: text('after'), before: text('before') }),
        accounts.count(),
        filtered ? accounts.count(filter) : undefined,
        accounts.count({ state: 'pending' }),
        upgrades.pending(),
      ]);
      const shown = page.accounts;
      const ids = shown.map((a) => a.id);
      const held = await keys.ofAccounts(ids, { revoked: true });
      const byAccount = new Map<string, KeyRecord[]>();
      for (const k of held) byAccount.set(k.accountId!, [...(byAccount.get(k.accountId!) ?? []), k]);
      const usage = await usageOfMany(
        ctx,
        ids.map((id) => byAccount.get(id) ?? []),
      );
      const rows = shown.map((account, i) => ({
        account,
        keys: byAccount.get(account.id)?.filter((k) => !k.revokedAt).length ?? 0,
        usage: usage[i],
      }));
      const byId = new Map((await accounts.getMany(requests.map((r) => r.accountId))).map((a) => [a.id, a]));
      const queue = requests.flatMap((request): QueuedRequest[] => {
        const account = byId.get(request.accountId);
        return account ? [{ request, account }] : [];
      });
      const erased = await erasedUsage(accounts.db, ctx.deps.usage);
      const billing = ctx.billing && (await ctx.billing.records(ids));
      const body = accountsBody({
        billing,
        done: doneOf(req),
        csrf: res.locals.csrf,
        queue,
        erased,
        q,
        status,
        plan,
        total,
        matching: matching ?? total,
        pending,
        rows,
        prev: page.prev,
        next: page.next,
      });
      pages.send(res, 'Admin', body, { wide: true });
    }),
  );

  const detailPage = async (req: Request, res: Response, account: Account, reset?: AccountDetailPage['reset']) => {
    const held = await keys.ofAccount(account.id, { revoked: true });
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
      factors: await ctx.factors.summary(account.id),
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

  // Audit: logged with the admin who did it; the owner is mailed.
  r.post(
    '/accounts/:id/two-factor/reset',
    wrap(async (req, res) => {
      const a = await accountOr404(req);
      if (a.id === res.locals.viewer!.id)
        throw new PageError(400, 'Not your own account', 'Remove your own factors on your Two-factor sign-in page, with your password.');
      const removed = await ctx.factors.reset(a.id);
      log.info(
        { by: res.locals.viewer!.id, accountId: a.id, totp: Boolean(removed.totp), passkeys: removed.passkeys.length },
        'portal: admin reset two-factor sign-in',
      );
      if (hasFactor(removed)) mailFactorChange(ctx, a, { removed: 'every sign-in factor and recovery code', byAdmin: true });
      res.redirect(303, `/admin/accounts/${a.id}?done=two-factor-reset`);
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
      // A suspended account's sessions end at their next request (auth/sessions.ts checks the status).
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
      const actor = res.locals.viewer!.email;
      const decided = await upgrades.decide(String(req.params.id), { approve: decision === 'approve', by, actor, reason });
      if (!decided) return res.redirect(303, '/admin?done=already-decided');
      const { request } = decided;
      log.info({ by, accountId: request.accountId, to: request.to, status: request.status }, 'portal: admin decided an upgrade request');
      res.redirect(303, `/admin?done=${request.status}`);
    }),
  );

  // --- invites -----------------------------------------------------------------------------------------

  const invitesPage = async (req: Request, res: Response, created?: InvitesPage['created']) => {
    const open = await invites.list();
    const by = new Map((await accounts.getMany(open.map((i) => i.createdBy))).map((a) => [a.id, a.email]));
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
