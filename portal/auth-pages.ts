// GET/POST /signup, GET/POST /login, POST /logout, GET /account with POST /account/profile and
// /account/password. Sign-in answers "Wrong email or password" for either mistake, in the same time (an
// unknown email still costs one argon2id), and is throttled per IP and per account (throttle.ts).
import express, { type Request, type Response, type Router } from 'express';
import { html } from '../engine/html.js';
import type { AuthContext } from './auth.js';
import { MAX_LENGTH, MIN_LENGTH, burnVerify, needsRehash, passwordProblem, verifyPassword, hashPassword } from './passwords.js';
import { localPath, requireSignedIn } from './sessions.js';
import { csrfField, errors, field, notice, posted } from './forms.js';
import { PageError, wrap } from './pages.js';
import type { Invite } from './invites.js';
import { MAX_FAILURES } from './throttle.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const NAME_MAX = 80;
const WRONG = 'Wrong email or password';

export function profileProblems(email: string | undefined, name: string): string[] {
  const out: string[] = [];
  if (email !== undefined && (!EMAIL.test(email) || email.length > 254)) out.push('Enter an email address like name@example.com.');
  if (!name.trim()) out.push('Enter your name.');
  else if (name.trim().length > NAME_MAX || CONTROL.test(name))
    out.push(`Use at most ${NAME_MAX} characters for your name, without line breaks.`);
  return out;
}

export function authRoutes(ctx: AuthContext): Router {
  const { accounts, sessions, invites, throttle, pages } = ctx;
  const log = ctx.deps.log;
  const r = express.Router();

  // --- sign-up -----------------------------------------------------------------------------------------

  const signupForm = (res: Response, o: { email?: string; name?: string; invite?: string; problems?: string[]; status?: number }) => {
    const approval = ctx.signup === 'approval' && !o.invite;
    pages.send(
      res,
      'Create an account',
      html`<h1>Create an account</h1>
<p class="muted">${approval ? 'New accounts are approved by an administrator before they can sign in.' : 'Sign up to get your API key page and usage figures.'}</p>
${errors(o.problems ?? [])}
<form method="post" action="/signup" class="stack card">
  ${csrfField(res.locals.csrf)}
  ${o.invite ? html`<input type="hidden" name="invite" value="${o.invite}">` : ''}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'email', required: true, maxlength: 254 })}
  ${field({ label: 'Name', name: 'name', value: o.name, autocomplete: 'name', required: true, maxlength: NAME_MAX })}
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_LENGTH, maxlength: MAX_LENGTH, hint: `at least ${MIN_LENGTH} characters` })}
  <div><button type="submit">Create account</button></div>
</form>
<p>Already have an account? <a href="/login">Sign in</a>.</p>`,
      { status: o.status },
    );
  };

  const inviteRefused = () =>
    new PageError(
      410,
      'This invite link cannot be used',
      'It has been used already, has expired, or was withdrawn. Ask the administrator who sent it for a new one.',
    );
  const closed = () =>
    new PageError(
      403,
      'Sign-up is by invitation',
      html`New accounts are created from invite links sent by the administrators of this service. Already have an account? <a href="/login">Sign in</a>.`,
    );

  r.get(
    '/signup',
    wrap(async (req, res) => {
      if (res.locals.viewer) return res.redirect(303, '/dashboard');
      const token = typeof req.query.invite === 'string' ? req.query.invite : undefined;
      if (token && !(await invites.find(token))) throw inviteRefused();
      if (!token && ctx.signup === 'closed') throw closed();
      await sessions.ensure(req, res);
      res.set('Referrer-Policy', 'no-referrer'); // the invite token is in this page's URL
      signupForm(res, { invite: token });
    }),
  );

  r.post(
    '/signup',
    wrap(async (req, res) => {
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
      if (problems.length) return signupForm(res, { email, name, invite: token, problems, status: 422 });

      if (invite && !(await invites.claim(invite))) throw inviteRefused();
      const status = invite || ctx.signup === 'open' ? 'active' : 'pending';
      const account = await accounts.create({ email, name, password, plan: invite?.plan ?? 'free', status });
      if (!account) {
        if (invite) await invites.restore(invite);
        // No mail server to tell the owner instead: saying so is the only way to point them to sign-in.
        return signupForm(res, {
          email,
          name,
          invite: token,
          problems: ['An account with this email exists already. Sign in instead.'],
          status: 409,
        });
      }
      log.info({ accountId: account.id, status, invite: invite?.id }, 'portal: account created');
      if (status === 'pending') {
        return pages.send(
          res,
          'Waiting for approval',
          html`<h1>Thanks, ${account.name}</h1>
${notice('info', "Your account waits for an administrator's approval. You can sign in as soon as it is approved.")}
<p><a href="/docs">Browse the API reference</a> meanwhile: it works with the anonymous key.</p>`,
          { status: 202 },
        );
      }
      await sessions.signIn(req, res, account);
      res.redirect(303, '/dashboard');
    }),
  );

  // --- sign-in and sign-out ----------------------------------------------------------------------------

  const loginForm = (res: Response, o: { email?: string; next?: string; problems?: string[]; status?: number; info?: string }) => {
    pages.send(
      res,
      'Sign in',
      html`<h1>Sign in</h1>
${o.info ? notice('info', o.info) : ''}
${errors(o.problems ?? [])}
<form method="post" action="/login" class="stack card">
  ${csrfField(res.locals.csrf)}
  ${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
  ${field({ label: 'Email', name: 'email', type: 'email', value: o.email, autocomplete: 'username', required: true, maxlength: 254 })}
  ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  <div><button type="submit">Sign in</button></div>
</form>
${ctx.signup === 'closed' ? html`<p class="muted">New accounts are by invitation.</p>` : html`<p>No account yet? <a href="/signup">Create one</a>.</p>`}`,
      { status: o.status },
    );
  };

  const tooMany = (until: number) => {
    const minutes = Math.max(1, Math.ceil((until - Date.now()) / 60_000));
    const at = new Date(until).toISOString().slice(11, 16);
    return new PageError(
      429,
      'Too many failed sign-ins',
      `Sign-in is paused after ${MAX_FAILURES} failed attempts. Try again after ${at} UTC (in ${minutes} minute${minutes === 1 ? '' : 's'}).`,
      { 'Retry-After': String(Math.ceil((until - Date.now()) / 1000)) },
    );
  };

  r.get(
    '/login',
    wrap(async (req, res) => {
      const next = localPath(req.query.next, '');
      if (res.locals.viewer) return res.redirect(303, next || '/dashboard');
      await sessions.ensure(req, res);
      loginForm(res, { next, info: next ? 'Sign in to continue.' : undefined });
    }),
  );

  r.post(
    '/login',
    wrap(async (req, res) => {
      const email = posted(req, 'email', 300).trim();
      const password = posted(req, 'password');
      const next = localPath(posted(req, 'next'), '');
      const until = await throttle.blockedUntil(req.ip, email);
      if (until) throw tooMany(until);
      const account = email ? await accounts.byEmail(email) : undefined;
      const ok = account && password ? await verifyPassword(password, account.passwordHash) : await burnVerify(password);
      if (!ok || !account) {
        await throttle.failed(req.ip, email);
        log.info({ accountId: account?.id }, 'portal: sign-in failed');
        return loginForm(res, { email, next, problems: [WRONG], status: 401 });
      }
      await throttle.succeeded(email);
      if (account.status === 'pending')
        throw new PageError(
          403,
          'Waiting for approval',
          "Your account waits for an administrator's approval. You can sign in as soon as it is approved.",
        );
      if (account.status === 'suspended')
        throw new PageError(403, 'Account suspended', 'This account is suspended. Contact the operators of this service.');
      const signedIn = await accounts.update(account.id, {
        lastSignInAt: new Date().toISOString(),
        ...(needsRehash(account.passwordHash) ? { passwordHash: await hashPassword(password) } : {}),
      });
      await sessions.signIn(req, res, signedIn!);
      log.info({ accountId: account.id }, 'portal: signed in');
      res.redirect(303, next || '/dashboard');
    }),
  );

  r.post(
    '/logout',
    wrap(async (req, res) => {
      await sessions.signOut(req, res);
      res.redirect(303, '/');
    }),
  );

  // --- the account page --------------------------------------------------------------------------------

  const DONE: Record<string, string> = {
    name: 'Your name was saved.',
    password: 'Your password was changed; every other session of your account was signed out.',
  };

  const accountPage = (
    req: Request,
    res: Response,
    o: { name?: string; problems?: string[]; pwProblems?: string[]; status?: number } = {},
  ) => {
    const v = res.locals.viewer!;
    const done = typeof req.query.done === 'string' ? DONE[req.query.done] : undefined;
    pages.send(
      res,
      'Account',
      html`<h1>Account</h1>
${done ? notice('ok', done) : ''}
<p class="muted">Signed in as <strong>${v.email}</strong> · plan <span class="badge">${v.plan}</span>${v.role === 'admin' ? html` · <span class="badge">admin</span>` : ''}</p>
<h2 id="profile">Profile</h2>
${errors(o.problems ?? [])}
<form method="post" action="/account/profile" class="stack card" aria-labelledby="profile">
  ${csrfField(res.locals.csrf)}
  ${field({ label: 'Email', name: 'email', type: 'email', value: v.email, readonly: true, hint: 'cannot be changed here' })}
  ${field({ label: 'Name', name: 'name', value: o.name ?? v.name, autocomplete: 'name', required: true, maxlength: NAME_MAX })}
  <div><button type="submit">Save name</button></div>
</form>
<h2 id="password">Change password</h2>
${errors(o.pwProblems ?? [])}
<form method="post" action="/account/password" class="stack card" aria-labelledby="password">
  ${csrfField(res.locals.csrf)}
  <input type="text" name="username" value="${v.email}" autocomplete="username" hidden>
  ${field({ label: 'Current password', name: 'current', type: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })}
  ${field({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: MIN_LENGTH, maxlength: MAX_LENGTH, hint: `at least ${MIN_LENGTH} characters; signs out your other sessions` })}
  <div><button type="submit">Change password</button></div>
</form>`,
      { status: o.status },
    );
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
