// One-time invite links made by admins: /signup?invite=TOKEN works in every sign-up mode, once, until it
// expires. Only the token's SHA-256 is stored ('invites'), with an optional plan for the new account. The
// link is used up by deleting its document: a delete succeeds for one caller only, so two sign-ups with
// the same link cannot both win.
import crypto from 'node:crypto';
import type { Store } from '../../engine/store/index.js';
import type { Plan } from './accounts.js';

export interface Invite {
  /** Short public id (first 12 hex characters of the hash), to list and withdraw by. */
  id: string;
  hash: string;
  plan?: Plan;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

/** How many days an invite link may be valid, as the admin page offers them. */
export const INVITE_DAYS = [1, 7, 30];

const COLL = 'invites';
const hashOf = (token: string) => crypto.hash('sha256', token);
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class Invites {
  constructor(private readonly store: Store) {}

  async create(o: { plan?: Plan; days: number; createdBy: string }): Promise<{ token: string; invite: Invite }> {
    const token = crypto.randomBytes(32).toString('base64url');
    const hash = hashOf(token);
    const now = Date.now();
    const invite: Invite = {
      id: hash.slice(0, 12),
      hash,
      ...(o.plan ? { plan: o.plan } : {}),
      createdBy: o.createdBy,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + o.days * 86400_000).toISOString(),
    };
    await this.store.put(COLL, hash, invite);
    return { token, invite };
  }

  /** The unused, unexpired invite of a token. */
  async find(token: unknown): Promise<Invite | undefined> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    const invite = await this.store.get<Invite>(COLL, hashOf(token));
    return invite && Date.parse(invite.expiresAt) > Date.now() ? invite : undefined;
  }

  /** Uses the invite up; false when another sign-up used it first. */
  async claim(invite: Invite): Promise<boolean> {
    return this.store.del(COLL, invite.hash);
  }

  /** Gives a claimed invite back (the sign-up it was claimed for did not happen). */
  async restore(invite: Invite): Promise<void> {
    await this.store.put(COLL, invite.hash, invite);
  }

  /** Open invites, newest first; expired ones are dropped on the way. */
  async list(): Promise<Invite[]> {
    const now = Date.now();
    const out: Invite[] = [];
    for (const inv of await this.store.list<Invite>(COLL)) {
      if (Date.parse(inv.expiresAt) > now) out.push(inv);
      else await this.store.del(COLL, inv.hash);
    }
    return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async withdraw(id: string): Promise<boolean> {
    const inv = (await this.list()).find((i) => i.id === id);
    return inv ? this.store.del(COLL, inv.hash) : false;
  }
}
