// Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): after a successful
// sign-in the browser gets `uua_device`, a proof that it signed in to that account before: a random nonce
// and HMAC-SHA256(secret, account id | session generation | email | nonce). Bound so, a proof ends with the
// account it was made for: a deleted account's proofs are worth nothing to whoever signs up with its address
// later (another id), and a password reset or change (a new generation) or a change of address ends them.
// The secret is made once and kept in the `secrets` table (shared/server-secret.ts). A sign-in attempt that
// brings a proof valid for the account of the email typed is a trusted one and counts on that device's own allowance and
// on the account's ceiling for trusted devices (auth/throttle.ts); a missing, forged, ended or other
// account's proof makes the attempt an untrusted one. The account is not in the cookie: a proof is checked
// against the account of the email typed. One cookie holds the proofs of the
// last few accounts signed in from the browser, so one person's accounts do not push each other out; each
// sign-in replaces its account's proof with a new one.
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { Db } from '../../engine/db/open.js';
import { normalEmail, type Account } from '../accounts/accounts.js';
import { serverSecret } from '../shared/server-secret.js';

/** What a proof is bound to. */
export type Holder = Pick<Account, 'id' | 'email' | 'sessionGen'>;

const COOKIE = 'uua_device';
const SECRET_ID = 'device-cookie';
const MAX_AGE_S = 180 * 86400;
/** Proofs kept per browser: the accounts signed in from it most recently. */
const MAX_PROOFS = 5;
const PROOF = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function cookieValue(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class DeviceCookies {
  /** The server's secret the proofs are made with. */
  private readonly key: () => Promise<Buffer>;

  constructor(
    db: Db,
    private readonly publicUrl: string,
  ) {
    this.key = serverSecret(db, SECRET_ID);
  }

  private mac(key: Buffer, holder: Holder, nonce: string): Buffer {
    return crypto
      .createHmac('sha256', key)
      .update(`${holder.id}|${holder.sessionGen ?? 0}|${normalEmail(holder.email)}|${nonce}`)
      .digest();
  }

  /** The proofs the request's cookie carries, as [nonce, mac]. */
  private proofs(req: Request): [string, Buffer][] {
    const value = cookieValue(req);
    if (!value) return [];
    return value
      .split('~')
      .slice(0, MAX_PROOFS)
      .flatMap((p): [string, Buffer][] => {
        const m = PROOF.exec(p);
        return m ? [[m[1], Buffer.from(m[2], 'base64url')]] : [];
      });
  }

  /** The id of this browser's device for the account (its nonce), when it brings a live proof for it. */
  async deviceFor(req: Request, holder: Holder | undefined): Promise<string | undefined> {
    const proofs = this.proofs(req);
    if (!proofs.length || !holder) return undefined;
    const key = await this.key();
    return proofs.find(([nonce, mac]) => crypto.timingSafeEqual(mac, this.mac(key, holder, nonce)))?.[0];
  }

  /** The attempt's device for the throttle (auth/throttle.ts): the proof's id and its account, when live. */
  async trusted(req: Request, holder: Holder | undefined): Promise<{ id: string; accountId: string } | undefined> {
    const id = await this.deviceFor(req, holder);
    return id && holder ? { id, accountId: holder.id } : undefined;
  }

  /** After a successful sign-in: a new proof for the account, in front of the browser's other accounts' proofs. */
  async issue(req: Request, res: Response, holder: Holder): Promise<void> {
    const key = await this.key();
    const nonce = crypto.randomBytes(16).toString('base64url');
    const others = this.proofs(req).filter(([n, mac]) => !crypto.timingSafeEqual(mac, this.mac(key, holder, n)));
    const value = [[nonce, this.mac(key, holder, nonce)] as const, ...others]
      .slice(0, MAX_PROOFS)
      .map(([n, mac]) => `${n}.${mac.toString('base64url')}`)
      .join('~');
    res.append('Set-Cookie', `${COOKIE}=${value}; Path=/; Max-Age=${MAX_AGE_S}; HttpOnly; SameSite=Strict${this.secure(req)}`);
  }

  /** Drops the account's proof from this browser (the account was deleted). */
  async forget(req: Request, res: Response, holder: Holder): Promise<void> {
    const device = await this.deviceFor(req, holder);
    if (!device) return;
    const value = (cookieValue(req) ?? '')
      .split('~')
      .filter((p) => !p.startsWith(`${device}.`))
      .join('~');
    res.append('Set-Cookie', `${COOKIE}=${value}; Path=/; Max-Age=${value ? MAX_AGE_S : 0}; HttpOnly; SameSite=Strict${this.secure(req)}`);
  }

  private secure(req: Request): string {
    return req.secure || this.publicUrl.startsWith('https:') ? '; Secure' : '';
  }
}
