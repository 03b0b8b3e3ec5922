// The attempts the webhook page lists (`webhook_attempts`): each account keeps its newest LOG_CAP, for at
// most LOG_TTL_MS. Older rows of the account are dropped as each attempt is written, so no account's log
// grows and no sweep of the table is needed.
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { WebhookAttemptsTable } from '../../engine/db/tables/webhooks.js';

/** One attempt, as the webhook page lists it. */
export interface AttemptRecord {
  id: string;
  type: string;
  attempt: number;
  /** How many attempts a delivery gets. */
  attempts: number;
  at: string;
  ms: number;
  status?: number;
  /** Why no answer came. */
  error?: string;
  /** The first bytes of the answer. */
  body?: string;
  outcome: 'delivered' | 'retrying' | 'failed' | 'stopped';
  nextAt?: string;
}

export const LOG_CAP = 20;
const LOG_TTL_MS = 30 * 86_400_000;

const cutoff = (now: number) => new Date(now - LOG_TTL_MS).toISOString();

function recordOf(row: Selectable<WebhookAttemptsTable>): AttemptRecord {
  return {
    id: row.deliveryId,
    type: row.type,
    attempt: row.attempt,
    attempts: row.attempts,
    at: row.at,
    ms: row.ms,
    ...(row.status !== null && { status: row.status }),
    ...(row.error !== null && { error: row.error }),
    ...(row.body !== null && { body: row.body }),
    outcome: row.outcome as AttemptRecord['outcome'],
    ...(row.nextAt !== null && { nextAt: row.nextAt }),
  };
}

export class AttemptLog {
  constructor(private readonly db: Db) {}

  /** Writes the attempt and drops the account's rows beyond the newest LOG_CAP or older than LOG_TTL_MS. */
  async add(accountId: string, r: AttemptRecord, now = Date.now()): Promise<void> {
    await this.db
      .insertInto('webhookAttempts')
      .values({
        accountId,
        deliveryId: r.id,
        type: r.type,
        attempt: r.attempt,
        attempts: r.attempts,
        at: r.at,
        ms: r.ms,
        status: r.status ?? null,
        error: r.error ?? null,
        body: r.body ?? null,
        outcome: r.outcome,
        nextAt: r.nextAt ?? null,
      })
      .execute();
    // By the (account_id, seq) index: the account's rows only, LOG_CAP and one at most in the usual case.
    await this.db
      .deleteFrom('webhookAttempts')
      .where('accountId', '=', accountId)
      .where((eb) =>
        eb.or([
          eb('at', '<', cutoff(now)),
          eb(
            'seq',
            '<=',
            eb
              .selectFrom('webhookAttempts')
              .select('seq')
              .where('accountId', '=', accountId)
              .orderBy('seq', 'desc')
              .limit(1)
              .offset(LOG_CAP),
          ),
        ]),
      )
      .execute();
  }

  /** The account's last attempts, newest first. */
  async recent(accountId: string, now = Date.now()): Promise<AttemptRecord[]> {
    const rows = await this.db
      .selectFrom('webhookAttempts')
      .selectAll()
      .where('accountId', '=', accountId)
      .where('at', '>=', cutoff(now))
      .orderBy('seq', 'desc')
      .limit(LOG_CAP)
      .execute();
    return rows.map(recordOf);
  }
}
