// One-time links: confirm an address at sign-up, reset a password, confirm a new address. As with invites
// (invites.ts), only the token's SHA-256 is stored (`link_tokens`); a row past its expires_at is treated as
// absent and deleted by the next sweep. A link is used up by deleting its row, which succeeds for one caller
// only, so a link works once even when two requests race.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import { SWEEP_BATCH, sweeper } from '../shared/sweep.js';

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

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => crypto.hash('sha256', token);

export class LinkTokens {
  private readonly sweep = sweeper((now) =>
    this.db
      .deleteFrom('linkTokens')
      .where('hash', 'in', (eb) => eb.selectFrom('linkTokens').select('hash').where('expiresAt', '<', now).limit(SWEEP_BATCH))
      .execute(),
  );

  constructor(private readonly db: Db) {}

  /** A new link's token (to put in the URL) and when it expires. */
  async issue(o: Omit<LinkToken, 'expiresAt'>): Promise<{ token: string; expiresAt: number }> {
    const token = crypto.randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + LINK_TTL_MS[o.purpose];
    await this.db
      .insertInto('linkTokens')
      .values({
        hash: hashOf(token),
        purpose: o.purpose,
        accountId: o.accountId,
        gen: o.gen ?? null,
        mailed: o.mailed === undefined ? null : Number(o.mailed),
        fromEmail: o.from ?? null,
        toEmail: o.to ?? null,
        expiresAt,
      })
      .execute();
    this.sweep();
    return { token, expiresAt };
  }

  /** The unused, unexpired link of this purpose that a token stands for. */
  async find(purpose: LinkPurpose, token: unknown): Promise<FoundLink | undefined> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    const hash = hashOf(token);
    const row = await this.db
      .selectFrom('linkTokens')
      .selectAll()
      .where('hash', '=', hash)
      .where('purpose', '=', purpose)
      .where('expiresAt', '>', Date.now())
      .executeTakeFirst();
    if (!row) return undefined;
    const link: LinkToken = {
      purpose,
      accountId: row.accountId,
      ...(row.gen !== null ? { gen: row.gen } : {}),
      ...(row.mailed !== null ? { mailed: row.mailed === 1 } : {}),
      ...(row.fromEmail !== null ? { from: row.fromEmail } : {}),
      ...(row.toEmail !== null ? { to: row.toEmail } : {}),
      expiresAt: row.expiresAt,
    };
    return { hash, link };
  }

  /** Uses the link up; false when another request used it first. */
  async use(found: FoundLink): Promise<boolean> {
    const done = await this.db.deleteFrom('linkTokens').where('hash', '=', found.hash).executeTakeFirst();
    return done.numDeletedRows > 0n;
  }
}
