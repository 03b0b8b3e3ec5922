// Recovery codes: ten random codes of 80 bits each (16 letters and digits of Crockford's base32, in groups of four), shown once
// when made and kept only as SHA-256 of the account id and the code (80 random bits need no slow hash).
// A code signs in in place of the second factor once: its row is deleted by the statement that checks it,
// so of two answers racing with one code, one wins. Making new codes replaces every earlier one.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';

const RECOVERY_CODES = 10;
/** Crockford's base32: no i, l, o or u, so a code copied from paper reads one way (o is read as 0, i and l as 1). */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

const hashOf = (accountId: string, code: string) => crypto.hash('sha256', `${accountId}:${code}`);

/** A code as typed, without spaces, dashes or case, o read as 0 and i or l as 1: what is hashed. */
const normal = (typed: string) =>
  typed
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');

/** 16 characters of 5 random bits each, written in groups of four. */
function newCode(): string {
  const bytes = crypto.randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let code = '';
  for (let i = 0; i < 16; i++) code += ALPHABET[Number((bits >> BigInt(5 * (15 - i))) & 31n)];
  return code.match(/.{4}/g)!.join('-');
}

export class RecoveryCodes {
  constructor(private readonly db: Db) {}

  /** How many unused codes the account has. */
  async left(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('recoveryCodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('accountId', '=', accountId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** New codes for the account (earlier ones stop working): returned once, to be shown once. */
  async renew(accountId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newCode);
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('recoveryCodes').where('accountId', '=', accountId).execute();
      await tx
        .insertInto('recoveryCodes')
        .values(codes.map((c) => ({ accountId, hash: hashOf(accountId, normal(c)) })))
        .execute();
    });
    return codes;
  }

  /** Uses a code: true when it was one of the account's unused codes (it is used up now). */
  async use(accountId: string, typed: string): Promise<boolean> {
    const code = normal(typed);
    if (code.length !== 16) return false;
    const gone = await this.db
      .deleteFrom('recoveryCodes')
      .where('accountId', '=', accountId)
      .where('hash', '=', hashOf(accountId, code))
      .executeTakeFirst();
    return Number(gone.numDeletedRows) > 0;
  }

  async forget(accountId: string): Promise<void> {
    await this.db.deleteFrom('recoveryCodes').where('accountId', '=', accountId).execute();
  }
}
