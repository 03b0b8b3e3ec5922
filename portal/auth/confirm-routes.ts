// Confirming the address of a new account, when SMTP_URL is set (auth/routes.ts signs up): GET
// /signup/sent ("check your inbox", the same page for every sign-up), POST /signup/resend (the link again,
// throttled, with the same answer whatever the address), and the link itself, /signup/confirm?token=…,
// whose GET only shows a form (mail scanners open links) and whose POST wants the sign-up's password: so a
// link opened by someone else, or an account someone else made with your address, confirms nothing.
import express, { type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { verifyPassword } from '../accounts/passwords.js';
import { LINK_TTL_MS, type FoundLink, type LinkPurpose, type LinkToken } from './link-tokens.js';
import { profileProblems, type Account } from '../accounts/accounts.js';
import { mailConfirmation } from './mail-links.js';
import { PageError, posted, queried, wrap } from '../shared/pages.js';
import { messageBody } from '../shared/error.js';
import { confirmBody, sentBody } from './confirm-views.js';
import { tooMany } from './routes.js';

/** A mailed link that is unknown, used, expired or no longer fits its account. */
export const linkRefused = () =>
  new PageError(
    410,
    'This link cannot be used',
    'It has been used already, has expired, or was replaced by a newer one. Ask for a new one.',
  );

/**
 * The mailed link of a token and the account it names, while `fits` says the link still fits the account;
 * otherwise the 410 of linkRefused (confirmation, reset and email change all look their links up so).
 */
export async function linkedAccount(
  ctx: PortalContext,
  purpose: LinkPurpose,
  token: unknown,
  fits: (account: Account, link: LinkToken) => boolean,
): Promise<{ found: FoundLink; account: Account }> {
  const found = await ctx.links.find(purpose, token);
  const account = found && (await ctx.accounts.get(found.link.accountId));
  if (!found || !account || !fits(account, found.link)) throw linkRefused();
  return { found, account };
}

/** Too many links asked for from this client or for this address: until when (epoch ms). */
export function tooManyLinks(until: number): PageError {
  const minutes = Math.max(1, Math.ceil((until - Date.now()) / 60_000));
  return new PageError(429, 'Too many requests for links', `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    'Retry-After': String(Math.ceil((until - Date.now()) / 1000)),
  });
}

export function confirmRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, throttle, links, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  // Without mail there is nothing to confirm: these pages do not exist.
  r.use('/signup', (_req, _res, next) => (ctx.mail ? next() : next('router')));

  r.get(
    '/signup/sent',
    wrap(async (req, res) => {
      await sessions.ensure(req, res);
      const body = sentBody({ csrf: res.locals.csrf, again: req.query.again === '1', hours: LINK_TTL_MS.verify / 3600_000 });
      pages.send(res, 'Check your inbox', body);
    }),
  );

  r.post(
    '/signup/resend',
    wrap(async (req, res) => {
      const email = posted(req, 'email', 300).trim();
      if (profileProblems(email, 'x').length)
        throw new PageError(422, 'Enter an email address', 'Go back and enter the address you signed up with.');
      const until = await ctx.linkThrottle.hit(req.ip, email);
      if (until) throw tooManyLinks(until);
      const account = await accounts.byEmail(email);
      if (account?.unverified) mailConfirmation(ctx, account, true);
      res.redirect(303, '/signup/sent?again=1');
    }),
  );

  /** The link of a token, with its account still waiting for confirmation, or a 410. */
  const pending = (token: unknown) => linkedAccount(ctx, 'verify', token, (account) => Boolean(account.unverified));

  const form = (res: Response, o: { token: string; email: string; problems?: string[]; status?: number }) => {
    res.set('Referrer-Policy', 'no-referrer'); // the token is in the page's URL and form
    pages.send(res, 'Confirm your email address', confirmBody({ ...o, csrf: res.locals.csrf }), { status: o.status });
  };

  r.get(
    '/signup/confirm',
    wrap(async (req, res) => {
      const { account } = await pending(queried(req, 'token'));
      await sessions.ensure(req, res);
      form(res, { token: queried(req, 'token'), email: account.email });
    }),
  );

  r.post(
    '/signup/confirm',
    wrap(async (req, res) => {
      const token = posted(req, 'token', 100);
      const { found, account } = await pending(token);
      // Counted as a sign-in (an unconfirmed account's browser holds no device cookie yet).
      const attempt = { ip: req.ip, email: account.email };
      const until = await throttle.blockedUntil(attempt);
      if (until) throw tooMany(until);
      if (!(await verifyPassword(posted(req, 'password'), account.passwordHash))) {
        await throttle.failed(attempt);
        return form(res, { token, email: account.email, problems: ['That is not the password chosen at sign-up.'], status: 401 });
      }
      if (!(await links.use(found))) throw linkRefused();
      await throttle.succeeded(attempt);
      const confirmed = (await accounts.update(account.id, { unverified: undefined }))!;
      log.info({ accountId: account.id }, 'portal: address confirmed');
      if (confirmed.status === 'pending') return res.redirect(303, '/signup/approval');
      if (confirmed.status !== 'active')
        throw new PageError(403, 'Account suspended', 'This account is suspended. Contact the operators of this service.');
      await sessions.signIn(req, res, confirmed);
      res.redirect(303, '/dashboard');
    }),
  );

  r.get('/signup/approval', (_req, res) => {
    const detail =
      "Your address is confirmed. Your account waits for an administrator's approval: you can sign in as soon as it is approved.";
    pages.send(res, 'Waiting for approval', messageBody('Waiting for approval', detail));
  });

  return r;
}
