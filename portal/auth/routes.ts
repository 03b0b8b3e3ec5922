// GET/POST /signup, GET/POST /login and POST /logout. Sign-up is throttled per client IP. Sign-in answers
// "Wrong email or password" for either mistake, in the same time (an unknown email still costs one
// argon2id), and is throttled per IP and per account, or per device for a browser that signed in to the
// account before (auth/throttle.ts, auth/device-cookies.ts); a successful one gives the browser a
// new device cookie. An account with a second factor (portal/two-factor/) is half signed in by a right
// password and sent to /login/factor, which finishes with completeSignIn. With SMTP_URL set, sign-up
// confirms the address (auth/confirm-routes.ts): a new address and one that has an account get the same
// answer, the mail tells them apart, and an account that has not confirmed yet cannot sign in (its owner
// is mailed the link again instead).
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { profileProblems, type Account } from '../accounts/accounts.js';
import { burnVerify, needsRehash, passwordProblem, verifyPassword, hashPassword } from '../accounts/passwords.js';
import { localPath } from './sessions.js';
import type { Attempt } from './throttle.js';
import type { Invite } from './invites.js';
import { mailConfirmation, mailSignupExisting } from './mail-links.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { PASSKEY_SCRIPTS } from '../shared/assets.js';
import { loginBody, pendingBody, signupBody, signupClosed, type LoginForm, type SignupForm } from './views.js';

const WRONG = 'Wrong email or password';

/** Too many failed sign-ins: until when (epoch ms), said in minutes and as Retry-After. */
export function tooMany(until: number): PageError {
  const minutes = Math.max(1, Math.ceil((until - Date.now()) / 60_000));
  const at = new Date(until).toISOString().slice(11, 16);
  return new PageError(
    429,
    'Too many failed sign-ins',
    `Sign-in is paused after too many failed attempts. Try again after ${at} UTC (in ${minutes} minute${minutes === 1 ? '' : 's'}). A browser you signed in with before keeps an allowance of its own.`,
    { 'Retry-After': String(Math.ceil((until - Date.now()) / 1000)) },
  );
}

/** Too many sign-ups from one address in a minute. */
function tooManySignUps(until: number, max: number): PageError {
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  const at = new Date(until).toISOString().slice(11, 19);
  return new PageError(
    429,
    'Too many sign-ups from your address',
    `At most ${max} account${max === 1 ? '' : 's'} can be created from one address (IP) per minute. Try again after ${at} UTC (in ${seconds} second${seconds === 1 ? '' : 's'}).`,
    { 'Retry-After': String(seconds) },
  );
}

type SignIn = Pick<PortalContext, 'accounts' | 'sessions' | 'throttle' | 'devices' | 'deps'>;

/** What a right password does for an account without a second factor: its failures cleared, this browser trusted. */
async function passed(ctx: SignIn, req: Request, res: Response, account: Account, attempt: Attempt): Promise<void> {
  await ctx.throttle.succeeded(attempt);
  // This browser is known to the account from now on, whatever comes next.
  await ctx.devices.issue(req, res, account);
}

/** The account is signed in: its time of sign-in kept, a new session. */
async function enterSession(ctx: SignIn, req: Request, res: Response, account: Account): Promise<void> {
  const signedIn = await ctx.accounts.update(account.id, { lastSignInAt: new Date().toISOString() });
  await ctx.sessions.signIn(req, res, signedIn!);
  ctx.deps.log.info({ accountId: account.id }, 'portal: signed in');
}

/**
 * Checks the signed-in account's password before a change that needs it (throttled as a sign-in from this
 * browser): undefined when right, else the problem to show. Throws the 429 page while sign-in is paused.
 */
export async function checkCurrentPassword(ctx: SignIn, req: Request, account: Account, password: string): Promise<string | undefined> {
  const attempt = { ip: req.ip, email: account.email, device: await ctx.devices.trusted(req, account) };
  const until = await ctx.throttle.blockedUntil(attempt);
  if (until) throw tooMany(until);
  if (await verifyPassword(password, account.passwordHash)) return undefined;
  await ctx.throttle.failed(attempt);
  return 'Your current password is not right.';
}

/** A second factor was right after the password (or a passkey alone): what the password does without one, then the session. */
export async function completeSignIn(ctx: SignIn, req: Request, res: Response, account: Account, attempt: Attempt): Promise<void> {
  await passed(ctx, req, res, account, attempt);
  await enterSession(ctx, req, res, account);
}

export function authRoutes(ctx: PortalContext): Router {
  const { accounts, sessions, invites, throttle, signups, devices, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  // --- sign-up -----------------------------------------------------------------------------------------

  const freeTier = { plan: ctx.deps.plans.free, personal: ctx.deps.config.freePersonalKeys };
  /** What an invite's plan gives, when it opens a paid account (a Free invite says what Free gives). */
  const paidPlanOf = (invite: Invite | undefined) => {
    const plan = invite?.plan && invite.plan !== 'free' ? ctx.deps.plans[invite.plan] : undefined;
    return plan && { id: plan.id, limit: plan.limit, window: plan.window };
  };
  const signupForm = (
    res: Response,
    o: Omit<SignupForm, 'csrf' | 'approval' | 'confirm' | 'freeTier' | 'paidPlan'> & { status?: number; held?: Invite },
  ) => {
    const approval = ctx.signup === 'approval' && !o.invite;
    const body = signupBody({ ...o, approval, freeTier, paidPlan: paidPlanOf(o.held), confirm: Boolean(ctx.mail), csrf: res.locals.csrf });
    pages.send(res, 'Create an account', body, { status: o.status });
  };

  const inviteRefused = () =>
    new PageError(
      410,
      'This invite link cannot be used',
      'It has been used already, has expired, or was withdrawn. Ask the administrator who sent it for a new one.',
    );
  const closed = () => new PageError(403, 'Sign-up is by invitation', signupClosed());

  r.get(
    '/signup',
    wrap(async (req, res) => {
      if (res.locals.viewer) return res.redirect(303, '/dashboard');
      const token = typeof req.query.invite === 'string' ? req.query.invite : undefined;
      const held = token ? await invites.find(token) : undefined;
      if (token && !held) throw inviteRefused();
      if (!token && ctx.signup === 'closed') throw closed();
      await sessions.ensure(req, res);
      res.set('Referrer-Policy', 'no-referrer'); // the invite token is in this page's URL
      signupForm(res, { invite: token, held });
    }),
  );

  r.post(
    '/signup',
    wrap(async (req, res) => {
      const tooSoon = await signups.attempt(req.ip);
      if (tooSoon) throw tooManySignUps(tooSoon, signups.max);
      const token = posted(req, 'invite') || undefined;
      const email = posted(req, 'email', 300).trim();
      const name = posted(req, 'name', 300);
      const password = posted(req, 'password');
      let invite: Invite | undefined;
      if (token && !(invite = await invites.find(token))) throw inviteRefused();
      if (!invite && ctx.signup === 'closed') throw closed();
      const problems = profileProblems(email, name);
      const weak = passwordProblem(password, email);
      if (weak) problems.push(weak);
      if (problems.length) return signupForm(res, { email, name, invite: token, held: invite, problems, status: 422 });

      if (invite && !(await invites.claim(invite))) throw inviteRefused();
      const status = invite || ctx.signup === 'open' ? 'active' : 'pending';
      const confirming = Boolean(ctx.mail);
      const account = await accounts.create({ email, name, password, plan: invite?.plan ?? 'free', status, unverified: confirming });
      if (confirming) {
        // One answer whether the address is new or has an account (OWASP Authentication cheat sheet); the
        // mail tells the two apart: a link for a new account, a notice to the owner of an existing one.
        // The invite is used up either way, or trying it again would tell.
        const owner = account ? undefined : await accounts.byEmail(email);
        if (account) mailConfirmation(ctx, account);
        if (owner) mailSignupExisting(ctx, owner);
        log.info(
          { accountId: account?.id ?? owner?.id, invite: invite?.id },
          account ? 'portal: account created, to confirm' : 'portal: sign-up of a taken address',
        );
        return res.redirect(303, '/signup/sent');
      }
      if (!account) {
        if (invite) await invites.restore(invite);
        // No mail server to tell the owner instead: saying so is the only way to point them to sign-in.
        return signupForm(res, {
          email,
          name,
          invite: token,
          held: invite,
          problems: ['An account with this email exists already. Sign in instead.'],
          status: 409,
        });
      }
      log.info({ accountId: account.id, status, invite: invite?.id }, 'portal: account created');
      if (status === 'pending') return pages.send(res, 'Waiting for approval', pendingBody(account.name), { status: 202 });
      await sessions.signIn(req, res, account);
      res.redirect(303, '/dashboard');
    }),
  );

  // --- sign-in and sign-out ----------------------------------------------------------------------------

  const loginForm = (res: Response, o: Omit<LoginForm, 'csrf' | 'closed' | 'confirm'> & { status?: number }) => {
    pages.send(res, 'Sign in', loginBody({ ...o, csrf: res.locals.csrf, closed: ctx.signup === 'closed', confirm: Boolean(ctx.mail) }), {
      status: o.status,
      scripts: PASSKEY_SCRIPTS,
    });
  };

  r.get(
    '/login',
    wrap(async (req, res) => {
      const next = localPath(req.query.next, '');
      if (res.locals.viewer) return res.redirect(303, next || '/dashboard');
      await sessions.ensure(req, res);
      const done = typeof req.query.done === 'string' ? req.query.done : undefined;
      loginForm(res, { next, done, info: next ? 'Sign in to continue.' : undefined });
    }),
  );

  r.post(
    '/login',
    wrap(async (req, res) => {
      const email = posted(req, 'email', 300).trim();
      const password = posted(req, 'password');
      const next = localPath(posted(req, 'next'), '');
      const account = email ? await accounts.byEmail(email) : undefined;
      const attempt = { ip: req.ip, email, device: await devices.trusted(req, account) };
      const until = await throttle.blockedUntil(attempt);
      if (until) throw tooMany(until);
      const ok = account && password ? await verifyPassword(password, account.passwordHash) : await burnVerify(password);
      // An account whose address is not confirmed yet is answered as a wrong password, or sign-in would tell
      // which sign-ups made an account; its owner is mailed the link again (the page says so to everyone).
      // The mail counts as a sign-up of the client's (SIGNUP_LIMIT), as the sign-up that first sent it did.
      const unconfirmed = ok && account?.unverified && ctx.mail;
      if (unconfirmed && !(await signups.attempt(req.ip))) mailConfirmation(ctx, account);
      if (!ok || !account || unconfirmed) {
        await throttle.failed(attempt);
        log.info({ accountId: account?.id, trusted: Boolean(attempt.device) }, 'portal: sign-in failed');
        return loginForm(res, { email, next, problems: [WRONG], status: 401 });
      }
      // With a second factor to come, a right password alone clears no failures and trusts no browser yet.
      const twoStep = await ctx.factors.has(account.id);
      if (!twoStep) await passed(ctx, req, res, account, attempt);
      if (account.status === 'pending')
        throw new PageError(
          403,
          'Waiting for approval',
          "Your account waits for an administrator's approval. You can sign in as soon as it is approved.",
        );
      if (account.status === 'suspended')
        throw new PageError(403, 'Account suspended', 'This account is suspended. Contact the operators of this service.');
      if (needsRehash(account.passwordHash)) await accounts.update(account.id, { passwordHash: await hashPassword(password) });
      if (twoStep) {
        await sessions.halfSignIn(req, res, account);
        log.info({ accountId: account.id }, 'portal: password right, second factor asked');
        return res.redirect(303, `/login/factor${next ? `?next=${encodeURIComponent(next)}` : ''}`);
      }
      await enterSession(ctx, req, res, account);
      res.redirect(303, next || '/dashboard');
    }),
  );

  r.post(
    '/logout',
    wrap(async (req, res) => {
      await sessions.signOut(req, res);
      // Keys remembered for /docs' Try it (sessionStorage) leave with the session; cookies stay (the theme).
      res.set('Clear-Site-Data', '"storage"');
      res.redirect(303, '/');
    }),
  );

  return r;
}
