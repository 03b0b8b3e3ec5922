// An account's second factors together: its authenticator app, its passkeys and its recovery codes. An
// account with an app or a passkey signs in in two steps; its recovery codes stand in for either once
// each. When the last factor goes, its recovery codes go with it (they would recover nothing).
import type { Db } from '../../engine/db/open.js';
import { TotpFactors } from './totp.js';
import { Passkeys, relyingParty, type Passkey } from './passkeys.js';
import { RecoveryCodes } from './recovery-codes.js';

/** What the account pages and the admin's page show of an account's factors. */
export interface FactorSummary {
  /** Since when the account has an authenticator app. */
  totp?: string;
  passkeys: Passkey[];
  recoveryLeft: number;
}

export const hasFactor = (s: FactorSummary) => Boolean(s.totp) || s.passkeys.length > 0;

export class Factors {
  readonly totp: TotpFactors;
  readonly passkeys: Passkeys;
  readonly recovery: RecoveryCodes;

  constructor(db: Db, site: { publicUrl: string; serviceName: string }, clock: () => number = () => Date.now()) {
    this.totp = new TotpFactors(db, site.serviceName, clock);
    this.passkeys = new Passkeys(db, relyingParty(site.publicUrl, site.serviceName));
    this.recovery = new RecoveryCodes(db);
  }

  async summary(accountId: string): Promise<FactorSummary> {
    const [totp, passkeys, recoveryLeft] = await Promise.all([
      this.totp.of(accountId),
      this.passkeys.list(accountId),
      this.recovery.left(accountId),
    ]);
    return { ...(totp && { totp: totp.since }), passkeys, recoveryLeft };
  }

  /** Whether signing in to the account asks for a second factor. */
  async has(accountId: string): Promise<boolean> {
    return hasFactor(await this.summary(accountId));
  }

  /** After a factor was removed: the recovery codes go too when none is left. */
  async afterRemoval(accountId: string): Promise<void> {
    if (!(await this.has(accountId))) await this.recovery.forget(accountId);
  }

  /** Removes every factor and recovery code of the account (an admin's reset, the account's deletion). */
  async reset(accountId: string): Promise<FactorSummary> {
    const before = await this.summary(accountId);
    await this.totp.remove(accountId);
    await this.passkeys.forget(accountId);
    await this.recovery.forget(accountId);
    return before;
  }
}
