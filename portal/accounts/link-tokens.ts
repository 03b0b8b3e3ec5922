// One-time links: confirm an address at sign-up, reset a password, confirm a new address. As with invites
// (invites.ts), only the token's SHA-256 is stored, here as a short-lived document of the shared store
// ('link-tokens') that expires by itself; a link is used up by deleting its document, which succeeds for
// one caller only, so a link works once even when two requests race.
import crypto from 'node:crypto';
import type { Store } from '../../engine/store/index.js';

export type LinkPurpose = 'verify' | 'reset' | 'email-change';

/** How long each kind of link works. */
export const LINK_TTL_MS: Record<LinkPurpose, number> = {
  verify: 24 * 3600_000,
  reset: 3600_000,
  'email-change': 24 * 3600_000,
};

export interface LinkToken {
  purpose: LinkPurpose;
  accountId: string;
  /** reset: the account's session generation when made, so a password changed since ends the link. */
  gen?: number;
  /** reset: the link was emailed to the account's address, so using it proves the address is theirs. */
  mailed?: boolean;
  /** email-change: the address the account had when asked (a change since ends the link) and the new one. */
  from?: string;
  to?: string;
  expiresAt: number;
}

export interface FoundLink {
  hash: string;
  link: LinkToken;
}

const COLL = 'link-tokens';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => crypto.hash('sha256', token);

export class LinkTokens {
  constructor(private readonly store: Store) {}

  /** A new link's token (to put in the URL) and when it expires. */
  async issue(o: Omit<LinkToken, 'expiresAt'>): Promise<{ token: string; expiresAt: number }> {
    const token = crypto.randomBytes(32).toString('base64url');
    const ttl = LINK_TTL_MS[o.purpose];
    const expiresAt = Date.now() + ttl;
    await this.store.putTemp(COLL, hashOf(token), { ...o, expiresAt }, ttl);
    return { token, expiresAt };
  }

  /** The unused, unexpired link of this purpose that a token stands for. */
  async find(purpose: LinkPurpose, token: unknown): Promise<FoundLink | undefined> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    const hash = hashOf(token);
    const link = await this.store.getTemp<LinkToken>(COLL, hash);
    return link && link.purpose === purpose && link.expiresAt > Date.now() ? { hash, link } : undefined;
  }

  /** Uses the link up; false when another request used it first. */
  use(found: FoundLink): Promise<boolean> {
    return this.store.delTemp(COLL, found.hash);
  }
}
