// Password reset (OWASP Forgot Password cheat sheet): GET/POST /login/forgot mails a link when SMTP_URL is
// set, answering the same whether or not the address has an account. A client asking too often is refused
// (per IP); an address asked for too often simply gets no more mails that hour (its owner is never refused:
// the links already mailed still work); without mail the page says to ask an administrator, who makes a link on /admin. The link,
// /login/reset?token=…, works once, for an hour, not after any password change, and not once the account's
// address is another than the one it was mailed to; its GET only shows
// the form (mail scanners open links). The new password bumps the session generation, so every session of
// the account ends, and the user signs in again. A mailed link also proves the address is the account's.
import express, { type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { normalEmail, profileProblems } from '../accounts/accounts.js';
import { passwordProblem } from '../accounts/passwords.js';
import { LINK_TTL_MS } from './link-tokens.js';
import { mailReset } from './mail-links.js';
import { posted, queried, wrap } from '../shared/pages.js';
import { forgotBody, resetBody, type ForgotPage } from './reset-views.js';
import { linkedAccount, linkRefused, tooManyLinks } from './confirm-routes.js';

export function resetRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, throttle, links, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();
  const minutes = LINK_TTL_MS.reset / 60_000;

  const forgot = (res: Response, o: Pick<ForgotPage, 'sent' | 'email' | 'problems'> & { status?: number }) =>
    pages.send(res, 'Forgot your password?', forgotBody({ ...o, csrf: res.locals.csrf, mail: Boolean(ctx.mail), minutes }), {
      status: o.status,
    });

  r.get(
    '/login/forgot',
    wrap(async (req, res) => {
      await sessions.ensure(req, res);
      forgot(res, { sent: req.query.sent === '1' });
    }),
  );

  r.post(
    '/login/forgot',
    wrap(async (req, res) => {
      if (!ctx.mail) return forgot(res, { sent: false, status: 404 });
      const email = posted(req, 'email', 300).trim();
      if (profileProblems(email, 'x').length)
        return forgot(res, { sent: false, email, problems: ['Enter an email address like name@example.com.'], status: 422 });
      const until = await ctx.linkThrottle.hitClient(req.ip);
      if (until) throw tooManyLinks(until);
      const account = await accounts.byEmail(email);
      // A suspended account gets no link: a reset would not let it in. The mail counts on the address's
      // hourly allowance, past which it is not sent.
      if (account && account.status !== 'suspended') mailReset(ctx, account, false);
      log.info({ accountId: account?.id }, 'portal: password reset asked for');
      res.redirect(303, '/login/forgot?sent=1');
    }),
  );

  /** The reset link of a token, with its account, while no password change has ended it; else a 410. */
  const valid = (token: unknown) =>
    linkedAccount(
      ctx,
      'reset',
      token,
      (account, link) =>
        (account.sessionGen ?? 0) === link.gen && (link.to === undefined || normalEmail(link.to) === normalEmail(account.email)),
    );

  const form = (res: Response, o: { token: string; email: string; problems?: string[]; status?: number }) => {
    res.set('Referrer-Policy', 'no-referrer'); // the token is in the page's URL and form
    pages.send(res, 'Choose a new password', resetBody({ ...o, csrf: res.locals.csrf }), { status: o.status });
  };

  r.get(
    '/login/reset',
    wrap(async (req, res) => {
      const { account } = await valid(queried(req, 'token'));
      await sessions.ensure(req, res);
      form(res, { token: queried(req, 'token'), email: account.email });
    }),
  );

  r.post(
    '/login/reset',
    wrap(async (req, res) => {
      const token = posted(req, 'token', 100);
      const { found, account } = await valid(token);
      const password = posted(req, 'password');
      const weak = passwordProblem(password, account.email);
      if (weak) return form(res, { token, email: account.email, problems: [weak], status: 422 });
      if (!(await links.use(found))) throw linkRefused();
      await accounts.setPassword(account.id, password);
      if (found.link.mailed && account.unverified) await accounts.update(account.id, { unverified: undefined });
      // The owner is back in: failed sign-ins of the account (perhaps an attacker's) no longer hold it.
      await throttle.succeeded({ ip: req.ip, email: account.email });
      if (res.locals.viewer?.id === account.id) await sessions.signOut(req, res);
      log.info({ accountId: account.id, mailed: Boolean(found.link.mailed) }, 'portal: password reset');
      res.redirect(303, '/login?done=reset');
    }),
  );

  return r;
}
