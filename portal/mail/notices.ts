// Mail that account events set off (engine/access/account-events.ts, heard on keys.events): a notice to
// the owner for every personal key made, the answer to a request for a higher plan (heard from the
// upgrade requests), and the quota alerts at 80% and 100% of the allowance, unless the
// owner turned alerts off on /account. Each alert is sent once per account, kind and window however many
// instances hear the meter cross the line: the first to insert `<account>:<kind>:<resetAt>` into
// 'mail-alerts' sends it (insert succeeds for one caller only). The marker of the window before is removed
// then, so the collection holds at most one marker per account and kind.
import type { Store } from '../../engine/store/index.js';
import type { AccountEvents, AccountEventData } from '../../engine/access/account-events.js';
import type { Accounts } from '../accounts/accounts.js';
import type { UpgradeRequests } from '../accounts/upgrades.js';
import { planName } from '../views/format.js';
import type { Mailer } from './mailer.js';

const SENT = 'mail-alerts';

type QuotaKind = 'quota.warning' | 'quota.exhausted';
const QUOTA_MAIL = { 'quota.warning': 'quota-warning', 'quota.exhausted': 'quota-exhausted' } as const;

/** Whether this instance is the one to send the alert of this window (and forgets the window before). */
async function firstForWindow(store: Store, accountId: string, kind: QuotaKind, resetAt: string): Promise<boolean> {
  if (!(await store.insert(SENT, `${accountId}:${kind}:${resetAt}`, { at: new Date().toISOString() }))) return false;
  const last = `${accountId}:${kind}`;
  const before = await store.get<{ resetAt: string }>(SENT, last);
  await store.put(SENT, last, { resetAt });
  if (before && before.resetAt !== resetAt) await store.del(SENT, `${last}:${before.resetAt}`);
  return true;
}

export function mailNotices(o: {
  events: AccountEvents;
  upgrades: UpgradeRequests;
  accounts: Accounts;
  store: Store;
  mailer: Mailer;
}): void {
  const { accounts, store, mailer } = o;

  o.upgrades.onDecided(async (request, account) => {
    if (request.status === 'pending') return;
    await mailer.send('upgrade-decided', account.email, {
      name: account.name,
      plan: planName(request.to),
      approved: request.status === 'approved',
      reason: request.reason,
    });
  });

  const quota = async (kind: QuotaKind, accountId: string, d: AccountEventData[QuotaKind]) => {
    const account = await accounts.get(accountId);
    if (!account || account.quotaAlerts === false) return;
    if (!(await firstForWindow(store, accountId, kind, d.resetAt))) return;
    await mailer.send(QUOTA_MAIL[kind], account.email, {
      name: account.name,
      plan: d.plan,
      limit: d.limit,
      used: d.used,
      resetAt: d.resetAt,
    });
  };

  o.events.on(async (e) => {
    if (e.type === 'quota.warning' || e.type === 'quota.exhausted') return quota(e.type, e.accountId, e.data);
    if (e.type !== 'key.created') return;
    const account = await accounts.get(e.accountId);
    if (!account) return;
    await mailer.send('key-created', account.email, {
      name: account.name,
      keyName: e.data.name,
      hint: e.data.hint,
      plan: e.data.plan,
      at: e.at,
    });
  });
}
