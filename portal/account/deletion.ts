// Deleting an account, by its owner: its keys are revoked first (refused at once everywhere, 'key.revoked'
// with the reason 'account-deleted'), then its personal data is erased: the account's row (its address free
// again), its upgrade request, its keys' records (revoked ones too) and when and from where they were last
// used, and its calls in the request log (they hold what it sent). Its sessions end at their next request (the account they name is gone). The usage history of its
// keys stays: it is counted per key id and names no person, and once the keys and the account are gone
// nothing links it to one; the history's partitions are listed in a row of `erased_usage` (under a random
// id, with no account id), so the operator's totals on /admin still count those calls.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import type { KeyStore } from '../../engine/access/keystore.js';
import type { AccountUsageDeps } from '../../features/usage/account-usage.js';
import type { LogRecords } from '../../features/request-log/records.js';
import type { PlanSpec } from '../../engine/catalog/load.js';
import type { Account, Accounts } from '../accounts/accounts.js';
import type { UpgradeRequests } from '../accounts/upgrades.js';

/** How long the usage history keeps a day (features/usage/usage.ts). */
const HISTORY_MS = 31 * 86400_000;

export interface DeletionDeps {
  accounts: Accounts;
  keys: KeyStore;
  upgrades: UpgradeRequests;
  usage: AccountUsageDeps;
  requestLog: LogRecords;
  plans: Record<string, PlanSpec>;
}

/** True when `account` is the only active admin: it cannot be deleted (nobody could run the service then). */
export async function lastAdmin(accounts: Accounts, account: Account): Promise<boolean> {
  if (account.role !== 'admin') return false;
  return !(await accounts.otherActiveAdmin(account.id));
}

export async function deleteAccount(d: DeletionDeps, account: Account): Promise<void> {
  const held = await d.keys.ofAccount(account.id, { revoked: true });
  // A key's history is its own partition, and earlier builds kept it under the plan of each call: every
  // personal-key plan's is listed.
  const keyPlans = Object.values(d.plans).filter((p) => p.keyedBy === 'key');
  const partitions = held.flatMap((k) => keyPlans.flatMap((p) => d.usage.usageKeys(p.id, { keyId: k.id }, undefined) ?? []));
  for (const k of held) if (k.revokedAt === undefined) await d.keys.revoke(k.id, 'account-deleted');
  if (partitions.length)
    await d.accounts.db
      .insertInto('erasedUsage')
      .values({ id: crypto.randomUUID(), erasedAt: new Date().toISOString(), partitions: JSON.stringify([...new Set(partitions)]) })
      .execute();
  // Calls of the last second are written first, so their addresses are not left behind.
  await d.usage.usage.flush();
  for (const k of held) await d.keys.erase(k.id);
  await d.upgrades.forget(account.id);
  await d.requestLog.forget(account.id);
  await d.accounts.erase(account);
}

/**
 * Requests of deleted accounts' keys in the last 24 hours and 30 days, and how many such accounts had keys
 * in that time. A list older than the history it points to (31 days) is dropped on the way.
 */
export async function erasedUsage(db: Db, usage: AccountUsageDeps): Promise<{ accounts: number; day: number; month: number }> {
  const since = new Date(Date.now() - HISTORY_MS).toISOString();
  await db.deleteFrom('erasedUsage').where('erasedAt', '<', since).execute();
  const docs = await db.selectFrom('erasedUsage').select('partitions').where('erasedAt', '>=', since).execute();
  const partitions = docs.flatMap((d) => JSON.parse(d.partitions) as string[]);
  if (!partitions.length) return { accounts: docs.length, day: 0, month: 0 };
  const [h, m] = await Promise.all([usage.usage.history(partitions, 'hour'), usage.usage.history(partitions, 'day')]);
  return { accounts: docs.length, day: h.total, month: m.total };
}
