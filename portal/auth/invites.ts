// One-time invite links made by admins: /signup?invite=TOKEN works in every sign-up mode, once, until it
// expires. Only the token's SHA-256 is stored (`invites`), with an optional plan for the new account. The
// link is used up by deleting its row: a delete succeeds for one caller only, so two sign-ups with the same
// link cannot both win. Expired invites are treated as absent and deleted by the next sweep.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import type { Plan } from '../accounts/accounts.js';
import { SWEEP_BATCH, sweeper } from '../shared/sweep.js';

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
/** Open invites listed at most (newest first). */
const INVITES_LISTED = 200;

const hashOf = (token: string) => crypto.hash('sha256', token);
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

type Row = { hash: string; id: string; plan: string | null; createdBy: string; createdAt: string; expiresAt: string };

const inviteOf = (r: Row): Invite => ({
  id: r.id,
  hash: r.hash,
  ...(r.plan !== null ? { plan: r.plan as Plan } : {}),
  createdBy: r.createdBy,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
});

const rowOf = (i: Invite): Row => ({ ...i, plan: i.plan ?? null });

export class Invites {
  // Expiry times are ISO strings of one length: they compare as the times they stand for.
  private readonly sweep = sweeper((now) =>
    this.db
      .deleteFrom('invites')
      .where('hash', 'in', (eb) =>
        eb.selectFrom('invites').select('hash').where('expiresAt', '<', new Date(now).toISOString()).limit(SWEEP_BATCH),
      )
      .execute(),
  );

  constructor(private readonly db: Db) {}

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
    await this.db.insertInto('invites').values(rowOf(invite)).execute();
    this.sweep();
    return { token, invite };
  }

  /** The unused, unexpired invite of a token. */
  async find(token: unknown): Promise<Invite | undefined> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    const row = await this.db
      .selectFrom('invites')
      .selectAll()
      .where('hash', '=', hashOf(token))
      .where('expiresAt', '>', new Date().toISOString())
      .executeTakeFirst();
    return row && inviteOf(row);
  }

  /** Uses the invite up; false when another sign-up used it first. */
  async claim(invite: Invite): Promise<boolean> {
    const done = await this.db.deleteFrom('invites').where('hash', '=', invite.hash).executeTakeFirst();
    return done.numDeletedRows > 0n;
  }

  /** Gives a claimed invite back (the sign-up it was claimed for did not happen). */
  async restore(invite: Invite): Promise<void> {
    await this.db
      .insertInto('invites')
      .values(rowOf(invite))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }

  /** Open invites, newest first (the newest INVITES_LISTED); expired ones are swept on the way. */
  async list(): Promise<Invite[]> {
    this.sweep();
    const rows = await this.db
      .selectFrom('invites')
      .selectAll()
      .where('expiresAt', '>', new Date().toISOString())
      .orderBy('createdAt', 'desc')
      .orderBy('hash', 'desc')
      .limit(INVITES_LISTED)
      .execute();
    return rows.map(inviteOf);
  }

  async withdraw(id: string): Promise<boolean> {
    const done = await this.db.deleteFrom('invites').where('id', '=', id).executeTakeFirst();
    return done.numDeletedRows > 0n;
  }
}
