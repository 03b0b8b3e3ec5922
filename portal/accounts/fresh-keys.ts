// A key just made (created or rotated), held for the page after the redirect and shown there once
// (post/redirect/get: a reload of that page makes no key and shows no key). The POST's redirect carries a
// random ticket (/dashboard?new=TICKET); the store holds, for 5 minutes at most, a short-lived document under
// the ticket's SHA-256 with the key encrypted (AES-256-GCM) under a key derived from the ticket, so the
// store alone never holds a usable API key. The first GET by the same account deletes the document and
// shows the key (a delete succeeds for one caller only); any later GET finds nothing.
import crypto from 'node:crypto';
import type { Store } from '../../engine/store/index.js';

const COLL = 'fresh-keys';
const TTL_MS = 5 * 60_000;
const TICKET = /^[A-Za-z0-9_-]{43}$/;

/** What the page after the redirect shows: the key, its record's id, and the key it replaced. */
export interface HeldKey {
  key: string;
  recordId: string;
  replaced?: { hint: string; expiresAt?: string };
}

interface Sealed {
  accountId: string;
  iv: string;
  data: string;
  tag: string;
}

const idOf = (ticket: string) => crypto.hash('sha256', ticket);
const cipherKey = (ticket: string) => Buffer.from(crypto.hkdfSync('sha256', ticket, '', 'uua fresh key', 32));

export class FreshKeys {
  constructor(private readonly store: Store) {}

  /** Holds the key for the account's next page; returns the ticket for the redirect's URL. */
  async hold(accountId: string, held: HeldKey): Promise<string> {
    const ticket = crypto.randomBytes(32).toString('base64url');
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', cipherKey(ticket), iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(held), 'utf8'), cipher.final()]);
    const sealed: Sealed = {
      accountId,
      iv: iv.toString('base64url'),
      data: data.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
    await this.store.putTemp(COLL, idOf(ticket), sealed, TTL_MS);
    return ticket;
  }

  /** The key held under `ticket` for this account, once: undefined when shown already, expired or another's. */
  async take(ticket: unknown, accountId: string): Promise<HeldKey | undefined> {
    if (typeof ticket !== 'string' || !TICKET.test(ticket)) return undefined;
    const id = idOf(ticket);
    const sealed = await this.store.getTemp<Sealed>(COLL, id);
    if (sealed?.accountId !== accountId || !(await this.store.delTemp(COLL, id))) return undefined;
    const decipher = crypto.createDecipheriv('aes-256-gcm', cipherKey(ticket), Buffer.from(sealed.iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as HeldKey;
  }
}
