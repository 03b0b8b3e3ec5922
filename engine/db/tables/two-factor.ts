// Two-factor sign-in (portal/two-factor/): authenticator apps, passkeys and recovery codes, one account each.

/** An account's authenticator app: its TOTP secret sealed with AES-256-GCM (the account id as associated data). */
export interface TotpFactorsTable {
  accountId: string;
  iv: string;
  data: string;
  tag: string;
  /** 0 while being set up (no code checked yet), 1 once a code confirmed it. */
  confirmed: number;
  /** The time step of the last code accepted: a code is good once. */
  lastStep: number | null;
  createdAt: string;
}

/** A WebAuthn credential: its id and public key (base64url), the signature counter, its name for its owner. */
export interface PasskeysTable {
  id: string;
  accountId: string;
  publicKey: string;
  counter: number;
  /** JSON array of the transports the browser named, or null. */
  transports: string | null;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** A recovery code not used yet, as SHA-256 of the account id and the code. */
export interface RecoveryCodesTable {
  accountId: string;
  hash: string;
}

export interface TwoFactorTables {
  totpFactors: TotpFactorsTable;
  passkeys: PasskeysTable;
  recoveryCodes: RecoveryCodesTable;
}
