// GET /account, the signed-in account's own page, with POST /account/profile (the name),
// /account/password (a new password ends every other session of the account), /account/upgrade (ask the
// admins for a higher plan: accounts/upgrades.ts), /account/delete (confirmed with the password:
// account/deletion.ts), and with SMTP_URL set /account/email (a change of address, made only when the link
// mailed to the new address is used, with a notice to the old one) and /account/alerts (quota alerts by
// email, on by default). A wrong current password counts as a failed sign-in (auth/throttle.ts).
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { isPlan, normalEmail, profileProblems, type Account } from '../accounts/accounts.js';
import { passwordProblem } from '../accounts/passwords.js';
import {
  checkCurrentPassword,
  type FoundLink,
  linkedAccount,
  linkRefused,
  mailEmailChange,
  requireSignedIn,
  tooManyLinks,
} from '../auth/index.js';
import { deleteAccount, lastAdmin } from './deletion.js';
import { MESSAGE_MAX, higherPlans, textProblem } from '../accounts/upgrades.js';
import { PageError, posted, queried, wrap } from '../shared/pages.js';
import { accountBody, deletedBody, emailConfirmBody, type AccountPage } from './views.js';
import { billingFor, planHistory } from '../billing/index.js';

export function accountRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, devices, upgrades, links, pages, deps } = ctx;
  const log = deps.log;
  const r = express.Router();

  const accountPage = async (
    req: Request,
    res: Response,
    o: Pick<AccountPage, 'name' | 'problems' | 'pwProblems' | 'upgradeProblems' | 'deleteProblems' | 'newEmail' | 'emailProblems'> & {
      status?: number;
    } = {},
  ) => {
    const viewer = res.locals.viewer!;
    const done = typeof req.query.done === 'string' ? req.query.done : undefined;
    const account = res.locals.account!;
    // With billing on, plans sold through Stripe are bought, not requested: the request form keeps the others.
    const sold: string[] = ctx.billing?.sold ?? [];
    const higher = higherPlans(account.plan).filter((p) => !sold.includes(p));
    const upgrade = { request: await upgrades.of(viewer.id), higher, plans: deps.plans };
    const mail = Boolean(ctx.mail);
    const alerts = account.quotaAlerts !== false;
    const billing = ctx.billing && {
      section: await billingFor(ctx.billing, ctx, account, res.locals.csrf),
      history: planHistory(await ctx.planChanges.of(account.id)),
    };
    const twoFactor = await ctx.factors.has(account.id);
    pages.send(res, 'Account', accountBody({ ...o, viewer, csrf: res.locals.csrf, done, upgrade, mail, alerts, billing, twoFactor }), {
      status: o.status,
    });
  };

  const checkPassword = (req: Request, account: Account, password: string) => checkCurrentPassword(ctx, req, account, password);

  r.get(
    '/account',
    requireSignedIn,
    wrap((req, res) => accountPage(req, res)),
  );

  r.post(
    '/account/profile',
    requireSignedIn,
    wrap(async (req, res) => {
      const name = posted(req, 'name', 300);
      const problems = profileProblems(undefined, name);
      if (problems.length) return accountPage(req, res, { name, problems, status: 422 });
      await accounts.update(res.locals.viewer!.id, { name: name.trim() });
      res.redirect(303, '/account?done=name');
    }),
  );

  r.post(
    '/account/password',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account!;
      const current = posted(req, 'current');
      const password = posted(req, 'password');
      const wrong = await checkPassword(req, account, current);
      if (wrong) return accountPage(req, res, { pwProblems: [wrong], status: 422 });
      const weak =
        passwordProblem(password, account.email) ?? (password === current ? 'Choose a password other than your current one.' : undefined);
      if (weak) return accountPage(req, res, { pwProblems: [weak], status: 422 });
      const changed = await accounts.setPassword(account.id, password);
      await sessions.signIn(req, res, changed!);
      // The new generation ended every proof of the account; this browser, which knew the password, gets one.
      await devices.issue(req, res, changed!);
      log.info({ accountId: account.id }, 'portal: password changed');
      res.redirect(303, '/account?done=password');
    }),
  );

  r.post(
    '/account/upgrade',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account!;
      const plan = posted(req, 'plan', 20);
      const message = posted(req, 'message', 2000);
      if (!isPlan(plan) || !higherPlans(account.plan).includes(plan) || ctx.billing?.sold.includes(plan as 'premium'))
        return accountPage(req, res, { upgradeProblems: ['Choose a plan above the one you have.'], status: 422 });
      const problem = textProblem(message, MESSAGE_MAX, 'message');
      if (problem) return accountPage(req, res, { upgradeProblems: [problem], status: 422 });
      const made = await upgrades.request(account, plan, message);
      if (made === 'pending')
        return accountPage(req, res, {
          upgradeProblems: ['You have asked for an upgrade already: an administrator will decide on it.'],
          status: 409,
        });
      if (made === 'not-higher') return accountPage(req, res, { upgradeProblems: ['Choose a plan above the one you have.'], status: 422 });
      log.info({ accountId: account.id, from: account.plan, to: plan }, 'portal: upgrade requested');
      res.redirect(303, '/account?done=upgrade#plan');
    }),
  );

  r.post(
    '/account/delete',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account!;
      const wrong = await checkPassword(req, account, posted(req, 'password'));
      if (wrong) return accountPage(req, res, { deleteProblems: [wrong], status: 422 });
      if (await lastAdmin(accounts, account))
        throw new PageError(
          409,
          'You are the last admin',
          'The service needs an admin: make another account one first (npm run keys -- admin <email>, or ADMIN_EMAIL at boot).',
        );
      // A subscription is cancelled first: an account that cannot be told to Stripe is not deleted yet.
      if (ctx.billing)
        await ctx.billing.forget(account.id).catch((err: Error) => {
          log.warn({ err: err.message, accountId: account.id }, 'billing: cannot cancel the subscription of an account being deleted');
          throw new PageError(
            502,
            'Your subscription could not be cancelled',
            'Stripe did not answer, so your account is kept for now. Try again in a moment.',
          );
        });
      await ctx.planChanges.forget(account.id);
      await devices.forget(req, res, account);
      await deleteAccount({ ...deps, accounts, upgrades }, account);
      await ctx.factors.reset(account.id);
      await sessions.signOut(req, res);
      await sessions.forget(account.id);
      log.info({ accountId: account.id }, 'portal: account deleted');
      res.redirect(303, '/account/deleted');
    }),
  );

  r.get('/account/deleted', (_req, res) => {
    if (res.locals.viewer) return res.redirect(303, '/account');
    pages.send(res, 'Account deleted', deletedBody());
  });

  r.post(
    '/account/email',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!ctx.mail) throw new PageError(404, 'Not available', 'This service sends no email, so addresses cannot be changed here.');
      const newEmail = posted(req, 'email', 300).trim();
      const current = posted(req, 'current');
      const wrong = await checkPassword(req, account, current);
      if (wrong) return accountPage(req, res, { newEmail, emailProblems: [wrong], status: 422 });
      const problems = profileProblems(newEmail, account.name);
      if (!problems.length && normalEmail(newEmail) === normalEmail(account.email)) problems.push('That is your address already.');
      if (problems.length) return accountPage(req, res, { newEmail, emailProblems: problems, status: 422 });
      // Whether the new address is taken is told at confirmation, to its owner only.
      const wait = await ctx.linkThrottle.hit(req.ip, newEmail);
      if (wait) throw tooManyLinks(wait);
      mailEmailChange(ctx, account, newEmail);
      log.info({ accountId: account.id }, 'portal: email change asked for');
      res.redirect(303, '/account?done=email-sent');
    }),
  );

  /** The change of a token, while the account still has the address it was asked from; else a 410. */
  const change = async (token: unknown): Promise<{ found: FoundLink; account: Account; to: string }> => {
    const { found, account } = await linkedAccount(ctx, 'email-change', token, (a, link) => Boolean(link.to) && a.email === link.from);
    return { found, account, to: found.link.to! };
  };

  r.get(
    '/account/email/confirm',
    wrap(async (req, res) => {
      const { to } = await change(queried(req, 'token'));
      await sessions.ensure(req, res);
      res.set('Referrer-Policy', 'no-referrer'); // the token is in the page's URL and form
      pages.send(res, 'Confirm your new email address', emailConfirmBody({ csrf: res.locals.csrf, token: queried(req, 'token'), to }));
    }),
  );

  r.post(
    '/account/email/confirm',
    wrap(async (req, res) => {
      const { found, account, to } = await change(posted(req, 'token', 100));
      if (!(await links.use(found))) throw linkRefused();
      if (!(await accounts.changeEmail(account.id, to)))
        throw new PageError(
          409,
          'This address cannot be used',
          'It belongs to another account now. Sign in to your account and choose another address, or keep the one you have.',
        );
      log.info({ accountId: account.id }, 'portal: email changed');
      res.redirect(303, res.locals.viewer?.id === account.id ? '/account?done=email' : '/login?done=email');
    }),
  );

  r.post(
    '/account/alerts',
    requireSignedIn,
    wrap(async (req, res) => {
      const on = posted(req, 'alerts') === 'on';
      await accounts.update(res.locals.viewer!.id, { quotaAlerts: on });
      res.redirect(303, `/account?done=${on ? 'alerts-on' : 'alerts-off'}#alerts`);
    }),
  );

  return r;
}
