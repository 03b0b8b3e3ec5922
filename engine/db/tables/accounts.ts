// Portal accounts and what hangs on them: sessions, one-time links, invites, keys shown once, upgrade
// requests and plan changes (portal/accounts/, portal/auth/, portal/keys/).
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  /** The address as compared (lower case, trimmed): unique, so two sign-ups of one address cannot both win. */
  emailKey: string;
  name: string;
  passwordHash: string;
  role: string;
  plan: string;
  status: string;
  createdAt: string;
  lastSignInAt: string | null;
  sessionGen: Generated<number>;
  /** 0 or 1. */
  unverified: Generated<number>;
  /** 0 or 1; null: on (the default). */
  quotaAlerts: number | null;
}

/** Accounts per plan, status and verification: kept by triggers on `accounts` (migration 0008). */
export interface AccountCountsTable {
  plan: string;
  status: string;
  unverified: number;
  n: number;
}

export interface SessionsTable {
  hash: string;
  csrf: string;
  accountId: string | null;
  gen: number | null;
  createdAt: number;
  seenAt: number;
  expiresAt: number;
  /** Half signed in: the password was right, the second factor is still asked for (until pending_until). */
  pendingAccountId: string | null;
  pendingGen: number | null;
  pendingUntil: number | null;
  /** A WebAuthn challenge handed to this browser, answered once before challenge_until. */
  challenge: string | null;
  challengeUntil: number | null;
}

export interface LinkTokensTable {
  hash: string;
  purpose: string;
  accountId: string;
  gen: number | null;
  mailed: number | null;
  fromEmail: string | null;
  toEmail: string | null;
  expiresAt: number;
}

export interface InvitesTable {
  hash: string;
  id: string;
  plan: string | null;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

export interface FreshKeysTable {
  id: string;
  accountId: string;
  iv: string;
  data: string;
  tag: string;
  expiresAt: number;
}

export interface UpgradeRequestsTable {
  accountId: string;
  fromPlan: string;
  toPlan: string;
  message: string | null;
  status: string;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  reason: string | null;
}

export interface PlanChangesTable {
  id: string;
  accountId: string;
  at: string;
  fromPlan: string;
  toPlan: string;
  by: string;
  actor: string | null;
  /** The billing event that made it: unique per account, so one event is recorded once. */
  eventId: string | null;
  eventType: string | null;
}

/** What a deleted account's usage partitions were, until their counters expire. */
export interface ErasedUsageTable {
  id: string;
  erasedAt: string;
  /** JSON array of partition names. */
  partitions: string;
}

export interface AccountTables {
  accounts: AccountsTable;
  accountCounts: AccountCountsTable;
  sessions: SessionsTable;
  linkTokens: LinkTokensTable;
  invites: InvitesTable;
  freshKeys: FreshKeysTable;
  upgradeRequests: UpgradeRequestsTable;
  planChanges: PlanChangesTable;
  erasedUsage: ErasedUsageTable;
}
