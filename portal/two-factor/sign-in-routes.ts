// The second step of sign-in, /login/factor: after a right password (auth/routes.ts) the session is half
// signed in for 5 minutes, and this page asks for a code of the authenticator app, a passkey, or a recovery
// code. A wrong code or passkey counts as a failed sign-in on the same allowances as a wrong password
// (auth/throttle.ts), so the second factor cannot be guessed faster than the first. And /login/passkey:
// a passkey alone (discoverable, with user verification) signs in without the password.
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import type { Account } from '../accounts/accounts.js';
import { completeSignIn, localPath, tooMany, type Attempt } from '../auth/index.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { PASSKEY_SCRIPTS } from '../shared/assets.js';
import { isCredentialJson } from './passkeys.js';
import { jsonRoute, refused } from './json.js';
import { factorStepBody } from './views.js';

const WRONG_CODE = 'That code is not right.';

export function factorSignInRoutes(ctx: PortalContext): Router {
  const { factors, sessions, throttle, devices, accounts, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  const nextOf = (v: unknown) => localPath(v, '');
  const loginAgain = (next: string) => `/login${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  const attemptOf = async (req: Request, account: Account): Promise<Attempt> => ({
    ip: req.ip,
    email: account.email,
    device: await devices.trusted(req, account),
  });

  /** The account this half-signed-in session waits for, and its attempt, once the allowance lets it try. */
  const pending = async (req: Request, res: Response) => {
    const account = await sessions.pendingAccount(res);
    if (!account) return undefined;
    const attempt = await attemptOf(req, account);
    const until = await throttle.blockedUntil(attempt);
    if (until) throw tooMany(until);
    return { account, attempt };
  };

  const stepPage = async (res: Response, account: Account, next: string, o: { problems?: string[]; status?: number } = {}) => {
    const summary = await factors.summary(account.id);
    const body = factorStepBody({
      csrf: res.locals.csrf,
      next,
      totp: Boolean(summary.totp),
      passkeys: summary.passkeys.length > 0,
      problems: o.problems,
    });
    pages.send(res, 'Second step of sign-in', body, { status: o.status, scripts: PASSKEY_SCRIPTS });
  };

  r.get(
    '/login/factor',
    wrap(async (req, res) => {
      const next = nextOf(req.query.next);
      if (res.locals.viewer) return res.redirect(303, next || '/dashboard');
      const account = await sessions.pendingAccount(res);
      if (!account) return res.redirect(303, loginAgain(next));
      await stepPage(res, account, next);
    }),
  );

  /** A code typed on the step page: the app's (`check`) or a recovery code. */
  const byCode = (kind: 'totp' | 'recovery') =>
    wrap(async (req, res) => {
      const next = nextOf(posted(req, 'next'));
      const found = await pending(req, res);
      if (!found) return res.redirect(303, loginAgain(next));
      const { account, attempt } = found;
      const code = posted(req, 'code', 40);
      const ok = kind === 'totp' ? await factors.totp.check(account.id, code) : await factors.recovery.use(account.id, code);
      if (!ok) {
        await throttle.failed(attempt);
        log.info({ accountId: account.id, factor: kind }, 'portal: second factor failed');
        return stepPage(res, account, next, { problems: [WRONG_CODE], status: 401 });
      }
      await completeSignIn(ctx, req, res, account, attempt);
      if (kind === 'recovery')
        log.info({ accountId: account.id, left: await factors.recovery.left(account.id) }, 'portal: recovery code used');
      res.redirect(303, next || '/dashboard');
    });

  r.post('/login/factor/totp', byCode('totp'));
  r.post('/login/factor/recovery', byCode('recovery'));

  r.post(
    '/login/factor/passkey/options',
    jsonRoute(async (req, res) => {
      const found = await pending(req, res);
      if (!found) throw refused(401, 'Your sign-in took too long: sign in again.');
      const options = await factors.passkeys.authenticationOptions(found.account.id);
      await sessions.keepChallenge(res, options.challenge);
      res.json(options);
    }),
  );

  r.post(
    '/login/factor/passkey',
    jsonRoute(async (req, res) => {
      const body = req.body as { response?: unknown; next?: unknown };
      const next = nextOf(body.next);
      const found = await pending(req, res);
      if (!found) throw refused(401, 'Your sign-in took too long: sign in again.');
      const { account, attempt } = found;
      const challenge = await sessions.takeChallenge(res);
      if (!challenge) throw refused(400, 'This took too long: try again.');
      const signer = isCredentialJson(body.response)
        ? await factors.passkeys.authenticate(body.response as never, challenge, account.id)
        : undefined;
      if (!signer) {
        await throttle.failed(attempt);
        log.info({ accountId: account.id, factor: 'passkey' }, 'portal: second factor failed');
        throw refused(401, 'That passkey could not be checked: try again.');
      }
      await completeSignIn(ctx, req, res, account, attempt);
      res.json({ redirect: next || '/dashboard' });
    }),
  );

  // --- a passkey alone ---------------------------------------------------------------------------------

  r.post(
    '/login/passkey/options',
    jsonRoute(async (_req, res) => {
      if (res.locals.viewer) throw refused(409, 'You are signed in already.');
      const options = await factors.passkeys.authenticationOptions();
      await sessions.keepChallenge(res, options.challenge);
      res.json(options);
    }),
  );

  r.post(
    '/login/passkey',
    jsonRoute(async (req, res) => {
      const body = req.body as { response?: unknown; next?: unknown };
      const next = nextOf(body.next);
      if (!isCredentialJson(body.response)) throw refused(400, 'The browser sent no passkey.');
      // Counted per client IP and per passkey: no email was typed.
      const anonymous: Attempt = { ip: req.ip, email: `passkey:${body.response.id.slice(0, 200)}` };
      const until = await throttle.blockedUntil(anonymous);
      if (until) throw tooMany(until);
      const challenge = await sessions.takeChallenge(res);
      if (!challenge) throw refused(400, 'This took too long: try again.');
      const accountId = await factors.passkeys.authenticate(body.response as never, challenge);
      const account = accountId ? await accounts.get(accountId) : undefined;
      if (!account) {
        await throttle.failed(anonymous);
        log.info({}, 'portal: passkey sign-in failed');
        throw refused(401, 'That passkey could not be checked. Sign in with your password instead.');
      }
      if (account.status !== 'active' || account.unverified)
        throw new PageError(403, 'Not active', 'This account cannot sign in now: it waits for approval or is suspended.');
      await completeSignIn(ctx, req, res, account, await attemptOf(req, account));
      res.json({ redirect: next || '/dashboard' });
    }),
  );

  return r;
}
