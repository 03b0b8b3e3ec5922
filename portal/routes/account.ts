// GET /account, the signed-in account's own page, with POST /account/profile (the name),
// /account/password (a new password ends every other session of the account), and with SMTP_URL set
// /account/email (a change of address, made only when the link mailed to the new address is used, with a
// notice to the old one) and /account/alerts (quota alerts by email, on by default). A wrong current
// password counts as a failed sign-in (accounts/throttle.ts).
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { normalEmail, profileProblems, type Account } from '../accounts/accounts.js';
import { passwordProblem, verifyPassword } from '../accounts/passwords.js';
import { requireSignedIn } from '../accounts/sessions.js';
import type { FoundLink } from '../accounts/link-tokens.js';
import { mailEmailChange } from '../mail/links.js';
import { PageError, posted, queried, wrap } from '../pages.js';
import { accountBody, emailConfirmBody, type AccountPage } from '../views/account.js';
import { tooMany } from './auth.js';
import { linkRefused, tooManyLinks } from './confirm.js';

export function accountRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, throttle, links, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  const accountPage = (
    req: Request,
    res: Response,
    o: Pick<AccountPage, 'name' | 'problems' | 'pwProblems' | 'newEmail' | 'emailProblems'> & { status?: number } = {},
  ) => {
    const done = typeof req.query.done === 'string' ? req.query.done : undefined;
    const body = accountBody({
      ...o,
      viewer: res.locals.viewer!,
      csrf: res.locals.csrf,
      done,
      mail: Boolean(ctx.mail),
      alerts: res.locals.account!.quotaAlerts !== false,
    });
    pages.send(res, 'Account', body, { status: o.status });
  };

  r.get('/account', requireSignedIn, (req, res) => accountPage(req, res));

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
      const until = await throttle.blockedUntil(req.ip, account.email);
      if (until) throw tooMany(until);
      if (!(await verifyPassword(current, account.passwordHash))) {
        await throttle.failed(req.ip, account.email);
        return accountPage(req, res, { pwProblems: ['Your current password is not right.'], status: 422 });
      }
      const weak =
        passwordProblem(password, account.email) ?? (password === current ? 'Choose a password other than your current one.' : undefined);
      if (weak) return accountPage(req, res, { pwProblems: [weak], status: 422 });
      const changed = await accounts.setPassword(account.id, password);
      await sessions.signIn(req, res, changed!);
      log.info({ accountId: account.id }, 'portal: password changed');
      res.redirect(303, '/account?done=password');
    }),
  );

  r.post(
    '/account/email',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!ctx.mail) throw new PageError(404, 'Not available', 'This service sends no email, so addresses cannot be changed here.');
      const newEmail = posted(req, 'email', 300).trim();
      const current = posted(req, 'current');
      const until = await throttle.blockedUntil(req.ip, account.email);
      if (until) throw tooMany(until);
      if (!(await verifyPassword(current, account.passwordHash))) {
        await throttle.failed(req.ip, account.email);
        return accountPage(req, res, { newEmail, emailProblems: ['Your current password is not right.'], status: 422 });
      }
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
    const found = await links.find('email-change', token);
    const account = found && (await accounts.get(found.link.accountId));
    if (!found?.link.to || !account || account.email !== found.link.from) throw linkRefused();
    return { found, account, to: found.link.to };
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
