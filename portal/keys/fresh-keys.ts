// A key just made (created or rotated), held for the page after the redirect and shown there once
// (post/redirect/get: a reload of that page makes no key and shows no key). The POST's redirect carries a
// random ticket (/dashboard?new=TICKET); `fresh_keys` holds, for 5 minutes at most, a row under the
// ticket's SHA-256 with the key encrypted (AES-256-GCM) under a key derived from the ticket, so the
// database alone never holds a usable API key. The first GET by the same account deletes the row and
// shows the key (a delete succeeds for one caller only); any later GET finds nothing. Rows nobody took are
// deleted by a sweep once expired.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import { SWEEP_BATCH, sweeper } from '../shared/sweep.js';

const TTL_MS = 5 * 60_000;
const TICKET = /^[A-Za-z0-9_-]{43}$/;

/** What the page after the redirect shows: the key, its record's id, and the key it replaced. */
export interface HeldKey {
  key: string;
  recordId: string;
  replaced?: { hint: string; expiresAt?: string };
}

const idOf = (ticket: string) => crypto.hash('sha256', ticket);
const cipherKey = (ticket: string) => Buffer.from(crypto.hkdfSync('sha256', ticket, '', 'uua fresh key', 32));

export class FreshKeys {
  private readonly sweep = sweeper((now) =>
    this.db
      .deleteFrom('freshKeys')
      .where('id', 'in', (eb) => eb.selectFrom('freshKeys').select('id').where('expiresAt', '<', now).limit(SWEEP_BATCH))
      .execute(),
  );

  constructor(private readonly db: Db) {}

  /** Holds the key for the account's next page; returns the ticket for the redirect's URL. */
  async hold(accountId: string, held: HeldKey): Promise<string> {
    const ticket = crypto.randomBytes(32).toString('base64url');
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', cipherKey(ticket), iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(held), 'utf8'), cipher.final()]);
    await this.db
      .insertInto('freshKeys')
      .values({
        id: idOf(ticket),
        accountId,
        iv: iv.toString('base64url'),
        data: data.toString('base64url'),
        tag: cipher.getAuthTag().toString('base64url'),
        expiresAt: Date.now() + TTL_MS,
      })
      .execute();
    this.sweep();
    return ticket;
  }

  /** The key held under `ticket` for this account, once: undefined when shown already, expired or another's. */
  async take(ticket: unknown, accountId: string): Promise<HeldKey | undefined> {
    if (typeof ticket !== 'string' || !TICKET.test(ticket)) return undefined;
    // One statement finds and deletes the row: of two GETs at once, one gets it.
    const sealed = await this.db
      .deleteFrom('freshKeys')
      .where('id', '=', idOf(ticket))
      .where('accountId', '=', accountId)
      .where('expiresAt', '>', Date.now())
      .returning(['iv', 'data', 'tag'])
      .executeTakeFirst();
    if (!sealed) return undefined;
    const decipher = crypto.createDecipheriv('aes-256-gcm', cipherKey(ticket), Buffer.from(sealed.iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as HeldKey;
  }
}
