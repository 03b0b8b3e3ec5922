// Authenticator apps (TOTP, RFC 6238, through otplib): 30-second steps of 6 digits over HMAC-SHA1, what
// every authenticator app reads from an otpauth:// QR code. The secret is made here, sealed with
// AES-256-GCM under a server secret (shared/server-secret.ts) with the account id as associated data, and
// shown only while it is being set up: once a code confirms it, no page shows it again. A code is
// accepted one step early or late (clocks drift), and each step once: the last step used is kept, and a
// code of that step or an earlier one is refused, by one conditional update (two answers racing with one
// code cannot both win). The clock is handed in, so tests can set the time.
import crypto from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Db } from '../../engine/db/open.js';
import { serverSecret } from '../shared/server-secret.js';

const SECRET_ID = 'totp-key';
const PERIOD_S = 30;
/** A code is good from one step before its own to one after (RFC 6238 §5.2's one step of drift each way). */
const TOLERANCE_S = PERIOD_S;
const CODE = /^\d{6}$/;

/** The six digits typed, without the spaces or dashes people add; undefined when it cannot be a code. */
const codeOf = (typed: string): string | undefined => {
  const digits = typed.replace(/[\s-]/g, '');
  return CODE.test(digits) ? digits : undefined;
};

export class TotpFactors {
  private readonly key: () => Promise<Buffer>;

  constructor(
    private readonly db: Db,
    private readonly issuer: string,
    private readonly clock: () => number = () => Date.now(),
  ) {
    this.key = serverSecret(db, SECRET_ID);
  }

  private async seal(accountId: string, secret: string) {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', await this.key(), iv).setAAD(Buffer.from(accountId));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64url'), data: data.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
  }

  private async open(accountId: string, sealed: { iv: string; data: string; tag: string }): Promise<string> {
    const decipher = crypto
      .createDecipheriv('aes-256-gcm', await this.key(), Buffer.from(sealed.iv, 'base64url'))
      .setAAD(Buffer.from(accountId));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether the account has a confirmed authenticator app, and since when. */
  async of(accountId: string): Promise<{ since: string } | undefined> {
    const row = await this.db
      .selectFrom('totpFactors')
      .select('createdAt')
      .where('accountId', '=', accountId)
      .where('confirmed', '=', 1)
      .executeTakeFirst();
    return row && { since: row.createdAt };
  }

  /** Starts a setup: a new secret (replacing an unconfirmed one; never a confirmed one: remove it first). */
  async start(accountId: string): Promise<boolean> {
    const sealed = await this.seal(accountId, generateSecret());
    const made = await this.db
      .insertInto('totpFactors')
      .values({ accountId, ...sealed, confirmed: 0, lastStep: null, createdAt: new Date(this.clock()).toISOString() })
      .onConflict((oc) =>
        oc
          .column('accountId')
          .doUpdateSet({ ...sealed, createdAt: new Date(this.clock()).toISOString() })
          .where('totpFactors.confirmed', '=', 0),
      )
      .executeTakeFirst();
    return Number(made.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** The secret being set up and its otpauth:// URI for the QR code; undefined once confirmed or when none. */
  async setup(account: { id: string; email: string }): Promise<{ secret: string; uri: string } | undefined> {
    const row = await this.db
      .selectFrom('totpFactors')
      .select(['iv', 'data', 'tag'])
      .where('accountId', '=', account.id)
      .where('confirmed', '=', 0)
      .executeTakeFirst();
    if (!row) return undefined;
    const secret = await this.open(account.id, row);
    return { secret, uri: generateURI({ issuer: this.issuer, label: account.email, secret, period: PERIOD_S }) };
  }

  /**
   * Checks a code: of the confirmed secret, or with `setup` of the one being set up (which it confirms).
   * True once per time step.
   */
  async check(accountId: string, typed: string, setup = false): Promise<boolean> {
    const token = codeOf(typed);
    if (!token) return false;
    const row = await this.db
      .selectFrom('totpFactors')
      .select(['iv', 'data', 'tag', 'lastStep'])
      .where('accountId', '=', accountId)
      .where('confirmed', '=', setup ? 0 : 1)
      .executeTakeFirst();
    if (!row) return false;
    const result = await verify({
      secret: await this.open(accountId, row),
      token,
      period: PERIOD_S,
      epoch: Math.floor(this.clock() / 1000),
      epochTolerance: TOLERANCE_S,
      ...(row.lastStep !== null && { afterTimeStep: row.lastStep }),
    });
    if (!result.valid || !('timeStep' in result)) return false;
    const step = result.timeStep;
    const used = await this.db
      .updateTable('totpFactors')
      .set({ lastStep: step, confirmed: 1 })
      .where('accountId', '=', accountId)
      .where('confirmed', '=', setup ? 0 : 1)
      .where((eb) => eb.or([eb('lastStep', 'is', null), eb('lastStep', '<', step)]))
      .executeTakeFirst();
    return Number(used.numUpdatedRows) > 0;
  }

  /** Removes the account's authenticator app (or the setup in progress); true when there was a confirmed one. */
  async remove(accountId: string): Promise<boolean> {
    const gone = await this.db.deleteFrom('totpFactors').where('accountId', '=', accountId).returning('confirmed').executeTakeFirst();
    return gone?.confirmed === 1;
  }
}
