// /account/two-factor: the signed-in account's second factors. An authenticator app is set up in two steps
// (a new secret shown with its QR code, then a code of it that turns it on); a passkey is made by
// passkeys.js (options, then the authenticator's answer, both JSON). The first factor comes with ten
// recovery codes shown once (a passkey's, on the next visit of the page: its answer is the script's).
// Removing a factor or making new recovery codes asks for the current password (counted as a sign-in
// attempt); each factor added or removed is mailed to the account's address.
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import type { Account } from '../accounts/accounts.js';
import { checkCurrentPassword, requireSignedIn } from '../auth/index.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { PASSKEY_SCRIPTS } from '../shared/assets.js';
import { hasFactor } from './factors.js';
import { mailFactorChange } from './notices.js';
import { isCredentialJson, PASSKEY_NAME_MAX, PASSKEYS_MAX } from './passkeys.js';
import { jsonRoute, refused } from './json.js';
import { needsScript, recoveryCodesBody, totpSetupBody, twoFactorBody } from './views.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function twoFactorRoutes(ctx: PortalContext): Router {
  const { factors, sessions, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();
  r.use('/account/two-factor', requireSignedIn);

  const page = async (req: Request, res: Response, o: { problems?: string[]; status?: number } = {}) => {
    const account = res.locals.account!;
    const summary = await factors.summary(account.id);
    const required = ctx.deps.config.adminTwoFactor === 'required' && account.role === 'admin' && !hasFactor(summary);
    const done = typeof req.query.done === 'string' ? req.query.done : undefined;
    const body = twoFactorBody({ csrf: res.locals.csrf, done, required, factors: summary, problems: o.problems });
    pages.send(res, 'Two-factor sign-in', body, { status: o.status, scripts: PASSKEY_SCRIPTS });
  };

  /** The password check of a removal: the page again with the problem when it is wrong. */
  const passwordRight = async (req: Request, res: Response, account: Account): Promise<boolean> => {
    const wrong = await checkCurrentPassword(ctx, req, account, posted(req, 'current'));
    if (wrong) await page(req, res, { problems: [wrong], status: 422 });
    return !wrong;
  };

  /** Recovery codes for an account that has none yet: made now, to be shown once. */
  const firstCodes = async (accountId: string) =>
    (await factors.recovery.left(accountId)) ? undefined : factors.recovery.renew(accountId);

  r.get(
    '/account/two-factor',
    wrap((req, res) => page(req, res)),
  );

  // --- authenticator app -------------------------------------------------------------------------------

  r.post(
    '/account/two-factor/totp',
    wrap(async (_req, res) => {
      if (!(await factors.totp.start(res.locals.account!.id)))
        throw new PageError(409, 'An authenticator app is set up already', 'Remove it first to set up another one.');
      res.redirect(303, '/account/two-factor/totp');
    }),
  );

  const setupPage = async (res: Response, o: { problems?: string[]; status?: number } = {}) => {
    const setup = await factors.totp.setup(res.locals.account!);
    if (!setup) return res.redirect(303, '/account/two-factor');
    pages.send(res, 'Set up an authenticator app', totpSetupBody({ csrf: res.locals.csrf, ...setup, problems: o.problems }), {
      status: o.status,
    });
  };

  r.get(
    '/account/two-factor/totp',
    wrap((_req, res) => setupPage(res)),
  );

  r.post(
    '/account/two-factor/totp/confirm',
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!(await factors.totp.check(account.id, posted(req, 'code', 40), true)))
        return setupPage(res, { problems: ['That code is not right: type the code your app shows now.'], status: 422 });
      mailFactorChange(ctx, account, { added: 'an authenticator app' });
      log.info({ accountId: account.id }, 'portal: authenticator app added');
      const codes = await firstCodes(account.id);
      if (!codes) return res.redirect(303, '/account/two-factor?done=totp');
      pages.send(res, 'Your recovery codes', recoveryCodesBody(codes, 'totp'));
    }),
  );

  r.post(
    '/account/two-factor/totp/remove',
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!(await passwordRight(req, res, account))) return;
      if (await factors.totp.remove(account.id)) {
        await factors.afterRemoval(account.id);
        mailFactorChange(ctx, account, { removed: 'your authenticator app' });
        log.info({ accountId: account.id }, 'portal: authenticator app removed');
      }
      res.redirect(303, '/account/two-factor?done=totp-removed');
    }),
  );

  // --- passkeys ----------------------------------------------------------------------------------------

  r.post(
    '/account/two-factor/passkeys/options',
    jsonRoute(async (_req, res) => {
      const account = res.locals.account!;
      if ((await factors.passkeys.list(account.id)).length >= PASSKEYS_MAX)
        throw refused(409, `An account holds at most ${PASSKEYS_MAX} passkeys: remove one first.`);
      const options = await factors.passkeys.registrationOptions(account);
      await sessions.keepChallenge(res, options.challenge);
      res.json(options);
    }),
  );

  r.post(
    '/account/two-factor/passkeys',
    wrap(async (req, res, next) => {
      if (!req.is('json')) throw new PageError(400, 'Passkeys need JavaScript', needsScript());
      next();
    }),
    jsonRoute(async (req, res) => {
      const account = res.locals.account!;
      const body = req.body as { name?: unknown; response?: unknown };
      const name = typeof body.name === 'string' ? body.name.trim() : '';
      if (!name || name.length > PASSKEY_NAME_MAX || CONTROL.test(name))
        throw refused(422, `Name the passkey in at most ${PASSKEY_NAME_MAX} characters, without line breaks.`);
      if (!isCredentialJson(body.response)) throw refused(400, 'The browser sent no passkey.');
      const challenge = await sessions.takeChallenge(res);
      if (!challenge) throw refused(400, 'This took too long: try again.');
      const added = await factors.passkeys.register(account.id, body.response as never, challenge, name);
      if (!added) throw refused(400, 'The passkey could not be checked: try again.');
      mailFactorChange(ctx, account, { added: `the passkey “${name}”` });
      log.info({ accountId: account.id }, 'portal: passkey added');
      res.json({ redirect: '/account/two-factor?done=passkey' });
    }),
  );

  r.post(
    '/account/two-factor/passkeys/remove',
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!(await passwordRight(req, res, account))) return;
      const name = await factors.passkeys.remove(account.id, posted(req, 'id', 1500));
      if (name) {
        await factors.afterRemoval(account.id);
        mailFactorChange(ctx, account, { removed: `the passkey “${name}”` });
        log.info({ accountId: account.id }, 'portal: passkey removed');
      }
      res.redirect(303, '/account/two-factor?done=passkey-removed');
    }),
  );

  // --- recovery codes ----------------------------------------------------------------------------------

  r.post(
    '/account/two-factor/recovery',
    wrap(async (req, res) => {
      const account = res.locals.account!;
      if (!(await passwordRight(req, res, account))) return;
      if (!(await factors.has(account.id)))
        throw new PageError(409, 'No second factor yet', 'Recovery codes stand in for a second factor: set one up first.');
      const codes = await factors.recovery.renew(account.id);
      log.info({ accountId: account.id }, 'portal: recovery codes made');
      pages.send(res, 'Your recovery codes', recoveryCodesBody(codes));
    }),
  );

  return r;
}
