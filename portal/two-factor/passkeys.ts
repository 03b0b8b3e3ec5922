// Passkeys (WebAuthn, through @simplewebauthn/server): the relying party is PUBLIC_URL's host and origin.
// A passkey is made discoverable (resident key required), so it can sign in on its own as well as be the
// second factor after a password; kept are its credential id, public key, signature counter and a name its
// owner gave it, never anything secret. Signing in with a passkey alone asks the authenticator to verify
// its user (a PIN or a fingerprint: two factors in one); as the second factor, presence is enough. The
// challenge of each ceremony lives on the browser's session row (auth/sessions.ts) and is used once.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { PasskeysTable } from '../../engine/db/tables/two-factor.js';

export const PASSKEY_NAME_MAX = 60;
/** EdDSA, ES256 and RS256 (COSE ids): what authenticators make; named, so no post-quantum probe runs at each ceremony. */
const ALGORITHMS = [-8, -7, -257];
/** Passkeys one account may hold. */
export const PASSKEYS_MAX = 10;

export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt?: string;
}

/** Who the passkeys are for: PUBLIC_URL's host (the RP ID) and origin, and the service's name. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export const relyingParty = (publicUrl: string, serviceName: string): RelyingParty => {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: serviceName };
};

const fromRow = (r: Selectable<PasskeysTable>): Passkey => ({
  id: r.id,
  name: r.name,
  createdAt: r.createdAt,
  ...(r.lastUsedAt !== null && { lastUsedAt: r.lastUsedAt }),
});

/** Whether a posted value has the outer shape of a credential's answer (the library checks the rest). */
export const isCredentialJson = (v: unknown): v is { id: string; response: object } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { id?: unknown }).id === 'string' &&
  typeof (v as { response?: unknown }).response === 'object';

export class Passkeys {
  constructor(
    private readonly db: Db,
    private readonly rp: RelyingParty,
  ) {}

  async list(accountId: string): Promise<Passkey[]> {
    const rows = await this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('accountId', '=', accountId)
      .orderBy('createdAt')
      .limit(PASSKEYS_MAX)
      .execute();
    return rows.map(fromRow);
  }

  /** The options of navigator.credentials.create() for a new passkey of the account. */
  async registrationOptions(account: { id: string; email: string; name: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const held = await this.list(account.id);
    return generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: account.email,
      userDisplayName: account.name,
      userID: new TextEncoder().encode(account.id),
      attestationType: 'none',
      excludeCredentials: held.map((p) => ({ id: p.id })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
  }

  /** Checks a new passkey's answer to `challenge` and keeps it: the passkey, or undefined when it does not hold. */
  async register(accountId: string, response: RegistrationResponseJSON, challenge: string, name: string): Promise<Passkey | undefined> {
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.rp.origin,
      expectedRPID: this.rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    }).catch(() => undefined);
    if (!verified?.verified) return undefined;
    const { credential } = verified.registrationInfo;
    const row = {
      id: credential.id,
      accountId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      name,
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    };
    const kept = await this.db
      .insertInto('passkeys')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(kept.numInsertedOrUpdatedRows ?? 0) > 0 ? fromRow(row) : undefined;
  }

  /** The options of navigator.credentials.get(): the account's passkeys, or any of this site's (a passkey alone). */
  async authenticationOptions(accountId?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allow = accountId ? await this.list(accountId) : undefined;
    return generateAuthenticationOptions({
      rpID: this.rp.id,
      allowCredentials: allow?.map((p) => ({ id: p.id })),
      userVerification: accountId ? 'preferred' : 'required',
    });
  }

  /**
   * Checks an answer to `challenge`: the account whose passkey signed it (of `accountId` only, when given;
   * with user verification when not), or undefined. The signature counter and last use are kept.
   */
  async authenticate(response: AuthenticationResponseJSON, challenge: string, accountId?: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('passkeys').selectAll().where('id', '=', response.id).executeTakeFirst();
    if (!row || (accountId && row.accountId !== accountId)) return undefined;
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.rp.origin,
      expectedRPID: this.rp.id,
      credential: {
        id: row.id,
        publicKey: Buffer.from(row.publicKey, 'base64url'),
        counter: row.counter,
        ...(row.transports && { transports: JSON.parse(row.transports) as string[] }),
      },
      requireUserVerification: !accountId,
    }).catch(() => undefined);
    if (!verified?.verified) return undefined;
    await this.db
      .updateTable('passkeys')
      .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: new Date().toISOString() })
      .where('id', '=', row.id)
      .execute();
    return row.accountId;
  }

  /** Removes one of the account's passkeys: its name, or undefined when it had no such passkey. */
  async remove(accountId: string, id: string): Promise<string | undefined> {
    const gone = await this.db
      .deleteFrom('passkeys')
      .where('id', '=', id)
      .where('accountId', '=', accountId)
      .returning('name')
      .executeTakeFirst();
    return gone?.name;
  }

  async forget(accountId: string): Promise<void> {
    await this.db.deleteFrom('passkeys').where('accountId', '=', accountId).execute();
  }
}
