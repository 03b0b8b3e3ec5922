// Mail that account events set off (engine/access/account-events.ts, heard on keys.events): a notice to
// the owner for every personal key made, the answer to a request for a higher plan (heard from the
// upgrade requests), and the quota alerts at 80% and 100% of the allowance, unless the
// owner turned alerts off on /account. Each alert is sent once per account, kind and window however many
// instances hear the meter cross the line: the first to claim `<account>:<kind>:<resetAt>` (a row of
// `claims`, scope 'quota-mail', inserted unless there: one caller wins) sends it. A claim lasts a day past
// the end of its window (a late event of that window finds it), then a sweep deletes it.
import type { Db } from '../../engine/db/open.js';
import { SWEEP_BATCH, sweeper } from '../shared/sweep.js';
import type { AccountEvents, AccountEventData } from '../../engine/access/account-events.js';
import type { Accounts } from '../accounts/accounts.js';
import type { UpgradeRequests } from '../accounts/upgrades.js';
import { planName } from '../shared/format.js';
import type { Mailer } from './mailer.js';

const SCOPE = 'quota-mail';
/** How long a window's claim outlives the window. */
const KEPT_AFTER_MS = 86400_000;
/** A claim of a window whose end cannot be read is kept this long. */
const KEPT_UNKNOWN_MS = 31 * 86400_000;

type QuotaKind = 'quota.warning' | 'quota.exhausted';
const QUOTA_MAIL = { 'quota.warning': 'quota-warning', 'quota.exhausted': 'quota-exhausted' } as const;

/** Whether this instance is the one to send the alert of this window. */
async function firstForWindow(db: Db, accountId: string, kind: QuotaKind, resetAt: string): Promise<boolean> {
  const now = Date.now();
  const end = Date.parse(resetAt);
  const done = await db
    .insertInto('claims')
    .values({
      scope: SCOPE,
      id: `${accountId}:${kind}:${resetAt}`,
      at: now,
      expiresAt: Number.isNaN(end) ? now + KEPT_UNKNOWN_MS : Math.max(end, now) + KEPT_AFTER_MS,
      note: null,
    })
    .onConflict((oc) => oc.columns(['scope', 'id']).doNothing())
    .executeTakeFirst();
  return Number(done.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function mailNotices(o: {
  events: AccountEvents;
  upgrades: UpgradeRequests;
  accounts: Accounts;
  db: Db;
  mailer: Mailer;
  /** Whom operator alerts go to besides the admins (ALERT_EMAIL, else ADMIN_EMAIL). */
  operator?: string;
}): void {
  const { accounts, db, mailer } = o;
  const sweep = sweeper((now) =>
    db
      .deleteFrom('claims')
      .where('scope', '=', SCOPE)
      .where('id', 'in', (eb) =>
        eb.selectFrom('claims').select('id').where('scope', '=', SCOPE).where('expiresAt', '<', now).limit(SWEEP_BATCH),
      )
      .execute(),
  );

  o.upgrades.onDecided(async (request, account) => {
    if (request.status === 'pending') return;
    await mailer.send('upgrade-decided', account.email, {
      name: account.name,
      plan: planName(request.to),
      approved: request.status === 'approved',
      reason: request.reason,
    });
  });

  // A request waits for an admin: every active admin (and the operator's address) hears of it.
  o.upgrades.onRequested(async (request, account) => {
    const to = new Map((await accounts.activeAdmins()).map((a) => [a.email, a.name]));
    if (o.operator && !to.has(o.operator)) to.set(o.operator, 'operator');
    const data = {
      asker: account.name,
      email: account.email,
      from: planName(request.from),
      to: planName(request.to),
      message: request.message,
    };
    await Promise.all([...to].map(([address, name]) => mailer.send('upgrade-requested', address, { ...data, name })));
  });

  const quota = async (kind: QuotaKind, accountId: string, d: AccountEventData[QuotaKind]) => {
    const account = await accounts.get(accountId);
    if (!account || account.quotaAlerts === false) return;
    sweep();
    if (!(await firstForWindow(db, accountId, kind, d.resetAt))) return;
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
