// Personal API keys and when each was last used (engine/access/keystore.ts).
import type { Generated } from 'kysely';

export interface ApiKeysTable {
  /** The key's SHA-256 (hex): the API's look-up. */
  hash: string;
  /** The public id (the hash's first 12 characters): the portal's look-up. */
  id: string;
  accountId: string | null;
  plan: string;
  name: string;
  createdAt: string;
  hint: string | null;
  expiresAt: string | null;
  cap: number | null;
  /** 0 or 1 (node:sqlite binds no booleans). */
  disabled: Generated<number>;
  replacedBy: string | null;
  revokedAt: string | null;
}

export interface KeyLastUsedTable {
  keyId: string;
  at: string;
  ip: string;
}

export interface KeyTables {
  apiKeys: ApiKeysTable;
  keyLastUsed: KeyLastUsedTable;
}
