// GET /account, the signed-in account's own page, with POST /account/profile (the name) and
// /account/password (a new password ends every other session of the account). A wrong current password
// counts as a failed sign-in (accounts/throttle.ts).
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { profileProblems } from '../accounts/accounts.js';
import { passwordProblem, verifyPassword } from '../accounts/passwords.js';
import { requireSignedIn } from '../accounts/sessions.js';
import { posted, wrap } from '../pages.js';
import { accountBody, type AccountPage } from '../views/account.js';
import { tooMany } from './auth.js';

export function accountRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, throttle, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  const accountPage = (
    req: Request,
    res: Response,
    o: Pick<AccountPage, 'name' | 'problems' | 'pwProblems'> & { status?: number } = {},
  ) => {
    const done = typeof req.query.done === 'string' ? req.query.done : undefined;
    pages.send(res, 'Account', accountBody({ ...o, viewer: res.locals.viewer!, csrf: res.locals.csrf, done }), { status: o.status });
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

  return r;
}
