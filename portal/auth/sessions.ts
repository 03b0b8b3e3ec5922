// Sessions (OWASP Session Management cheat sheet): a random 256-bit id in the cookie `uua_session`
// (HttpOnly, SameSite=Lax, Path=/, Secure over https, no Expires: it ends with the browser), kept in the
// `sessions` table only as its SHA-256 (a leaked database holds no usable id): 12 hours idle, renewed on use
// at most once a minute, 7 days at most in all. A row past its expires_at is treated as absent and deleted
// by the next sweep. A new id at sign-in (the pre-session of the sign-in form is destroyed), destroyed at
// sign-out; a password change bumps the account's session generation, which ends every other session of
// it. Anonymous visitors get a pre-session only when a form needs a CSRF token (sign-in, sign-up), never on
// a plain page view. Between a right password and the second factor (portal/two-factor/) the session is
// half signed in: a new id, no account, and the account it waits for, for 5 minutes. A WebAuthn challenge
// handed to the browser is kept on the row too, for 5 minutes, and taken (cleared) by its first answer.
import crypto from 'node:crypto';
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import type { Db } from '../../engine/db/open.js';
import type { Viewer } from '../shared/types.js';
import type { Account, Accounts } from '../accounts/accounts.js';
import { PageError } from '../shared/pages.js';
import { SWEEP_BATCH, sweeper } from '../shared/sweep.js';

const COOKIE = 'uua_session';
const IDLE_MS = 12 * 3600_000;
const ANON_IDLE_MS = 2 * 3600_000;
const ABSOLUTE_MS = 7 * 24 * 3600_000;
const RENEW_MS = 60_000;
/** How long a half-signed-in session waits for the second factor, and a WebAuthn challenge for its answer. */
const PENDING_MS = 5 * 60_000;
const ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

interface SessionDoc {
  /** The synchronizer token of the session's forms (portal/shared/csrf.ts). */
  csrf: string;
  accountId?: string;
  gen?: number;
  createdAt: number;
  seenAt: number;
  /** Half signed in: the account whose second factor is asked for, its session generation, until when. */
  pending?: { accountId: string; gen: number; until: number };
}

interface Loaded {
  hash: string;
  doc: SessionDoc;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The signed-in account's view (pages, the top bar), when there is one. */
      viewer?: Viewer;
      /** The session's CSRF token, when the request has one. */
      csrf?: string;
      session?: Loaded;
      account?: Account;
    }
  }
}

const idHash = (id: string) => crypto.hash('sha256', id);
const token = () => crypto.randomBytes(32).toString('base64url');

const viewerOf = (a: Account): Viewer => ({ id: a.id, email: a.email, name: a.name, role: a.role, plan: a.plan, status: a.status });

function cookieValue(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** When a session ends unless used again: idle time from its last use, never past its absolute end. */
const expiryOf = (doc: SessionDoc) => Math.min(doc.seenAt + (doc.accountId ? IDLE_MS : ANON_IDLE_MS), doc.createdAt + ABSOLUTE_MS);

export class Sessions {
  private readonly sweep = sweeper((now) =>
    this.db
      .deleteFrom('sessions')
      .where('hash', 'in', (eb) => eb.selectFrom('sessions').select('hash').where('expiresAt', '<', now).limit(SWEEP_BATCH))
      .execute(),
  );

  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
    private readonly publicUrl: string,
  ) {}

  private secure(req: Request) {
    return req.secure || this.publicUrl.startsWith('https:');
  }

  private setCookie(req: Request, res: Response, id: string) {
    res.append('Set-Cookie', `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${this.secure(req) ? '; Secure' : ''}`);
  }

  private clearCookie(req: Request, res: Response) {
    res.append('Set-Cookie', `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure(req) ? '; Secure' : ''}`);
  }

  private async save(req: Request, res: Response, doc: SessionDoc): Promise<void> {
    const id = token();
    const hash = idHash(id);
    await this.db
      .insertInto('sessions')
      .values({
        hash,
        csrf: doc.csrf,
        accountId: doc.accountId ?? null,
        gen: doc.gen ?? null,
        createdAt: doc.createdAt,
        seenAt: doc.seenAt,
        expiresAt: expiryOf(doc),
        pendingAccountId: doc.pending?.accountId ?? null,
        pendingGen: doc.pending?.gen ?? null,
        pendingUntil: doc.pending?.until ?? null,
      })
      .execute();
    this.sweep();
    this.setCookie(req, res, id);
    res.locals.session = { hash, doc };
    res.locals.csrf = doc.csrf;
  }

  /** Middleware: loads the session and its viewer into res.locals (viewer, csrf, account). */
  load(): RequestHandler {
    return (req, res, next) => {
      const id = cookieValue(req);
      if (!id || !ID_SHAPE.test(id)) return next();
      this.resume(req, res, id).then(() => next(), next);
    };
  }

  private async resume(req: Request, res: Response, id: string) {
    const hash = idHash(id);
    const now = Date.now();
    const row = await this.db
      .selectFrom('sessions')
      .select(['csrf', 'accountId', 'gen', 'createdAt', 'seenAt', 'pendingAccountId', 'pendingGen', 'pendingUntil'])
      .where('hash', '=', hash)
      .where('expiresAt', '>', now)
      .executeTakeFirst();
    if (!row) return this.end(req, res, hash);
    const doc: SessionDoc = {
      csrf: row.csrf,
      ...(row.accountId !== null ? { accountId: row.accountId, gen: row.gen ?? 0 } : {}),
      createdAt: row.createdAt,
      seenAt: row.seenAt,
      ...(row.pendingAccountId !== null &&
        (row.pendingUntil ?? 0) > now && {
          pending: { accountId: row.pendingAccountId, gen: row.pendingGen ?? 0, until: row.pendingUntil! },
        }),
    };
    if (doc.accountId) {
      const account = await this.accounts.get(doc.accountId);
      // Suspended, no longer there, or signed out everywhere by a password change.
      if (!account || account.status !== 'active' || (account.sessionGen ?? 0) !== doc.gen) return this.end(req, res, hash);
      res.locals.account = account;
      res.locals.viewer = viewerOf(account);
    }
    res.locals.session = { hash, doc };
    res.locals.csrf = doc.csrf;
    if (now - doc.seenAt > RENEW_MS) {
      doc.seenAt = now;
      await this.db
        .updateTable('sessions')
        .set({ seenAt: now, expiresAt: expiryOf(doc) })
        .where('hash', '=', hash)
        .execute();
    }
  }

  private async end(req: Request, res: Response, hash: string) {
    await this.drop(hash);
    this.clearCookie(req, res);
  }

  private async drop(hash: string) {
    await this.db.deleteFrom('sessions').where('hash', '=', hash).execute();
  }

  /** The CSRF token of this visitor, making a pre-session for an anonymous one (forms need it). */
  async ensure(req: Request, res: Response): Promise<string> {
    if (res.locals.csrf) return res.locals.csrf;
    const now = Date.now();
    await this.save(req, res, { csrf: token(), createdAt: now, seenAt: now });
    return res.locals.csrf!;
  }

  /** A new session id for the account (the old session, signed in or not, is destroyed). */
  async signIn(req: Request, res: Response, account: Account): Promise<void> {
    if (res.locals.session) await this.drop(res.locals.session.hash);
    const now = Date.now();
    await this.save(req, res, { csrf: token(), accountId: account.id, gen: account.sessionGen ?? 0, createdAt: now, seenAt: now });
    res.locals.account = account;
    res.locals.viewer = viewerOf(account);
  }

  /**
   * The password was right and a second factor is asked for: a new session id that names the account it
   * waits for (for PENDING_MS), signed in to nothing yet.
   */
  async halfSignIn(req: Request, res: Response, account: Account): Promise<void> {
    if (res.locals.session) await this.drop(res.locals.session.hash);
    const now = Date.now();
    await this.save(req, res, {
      csrf: token(),
      createdAt: now,
      seenAt: now,
      pending: { accountId: account.id, gen: account.sessionGen ?? 0, until: now + PENDING_MS },
    });
  }

  /** The account a half-signed-in session waits for, while it waits and the account is still as it was. */
  async pendingAccount(res: Response): Promise<Account | undefined> {
    const pending = res.locals.session?.doc.pending;
    if (!pending || pending.until <= Date.now()) return undefined;
    const account = await this.accounts.get(pending.accountId);
    return account && account.status === 'active' && (account.sessionGen ?? 0) === pending.gen ? account : undefined;
  }

  /** Keeps a WebAuthn challenge handed to this browser, replacing any earlier one. */
  async keepChallenge(res: Response, challenge: string): Promise<void> {
    const hash = res.locals.session?.hash;
    if (!hash) throw new Error('a challenge needs a session');
    await this.db
      .updateTable('sessions')
      .set({ challenge, challengeUntil: Date.now() + PENDING_MS })
      .where('hash', '=', hash)
      .execute();
  }

  /** The challenge kept for this browser, once (the row forgets it): undefined when none or expired. */
  async takeChallenge(res: Response): Promise<string | undefined> {
    const hash = res.locals.session?.hash;
    if (!hash) return undefined;
    const row = await this.db.selectFrom('sessions').select(['challenge', 'challengeUntil']).where('hash', '=', hash).executeTakeFirst();
    if (!row?.challenge) return undefined;
    // Cleared only if it is still the one read: of two answers at once, one takes it.
    const taken = await this.db
      .updateTable('sessions')
      .set({ challenge: null, challengeUntil: null })
      .where('hash', '=', hash)
      .where('challenge', '=', row.challenge)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) > 0 && (row.challengeUntil ?? 0) > Date.now() ? row.challenge : undefined;
  }

  /** Ends every session of the account (it is being deleted), by the account's index. */
  async forget(accountId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('accountId', '=', accountId).execute();
  }

  async signOut(req: Request, res: Response): Promise<void> {
    if (res.locals.session) await this.end(req, res, res.locals.session.hash);
    res.locals.session = res.locals.viewer = res.locals.account = res.locals.csrf = undefined;
  }
}

/** A safe place to return to after sign-in: a path on this site, never another origin. */
export function localPath(next: unknown, fallback = '/dashboard'): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) && !/[\r\n]/.test(next) ? next : fallback;
}

/** Pages for signed-in accounts: others are sent to sign in and brought back. */
export function requireSignedIn(req: Request, res: Response, next: NextFunction) {
  if (res.locals.viewer) return next();
  res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
}

/** Pages for admins: anonymous visitors are sent to sign in; signed-in users get 403 (requireSignedIn first). */
export function requireAdmin(req: Request, res: Response, next: NextFunction) {
  if (!res.locals.viewer) return requireSignedIn(req, res, next);
  if (res.locals.viewer.role === 'admin') return next();
  next(new PageError(403, 'Admins only', "This page is for the service's administrators."));
}
