// Moves an earlier layout's data into today's tables, once per source: every collection that is not
// rebuilt by use is copied (rows already there are left as they are), the counts are recorded in
// `legacy_imports`, and a source recorded there is never read again, so a second run moves nothing (and a
// key deleted since is not brought back). The source itself is left as it was.
import type { Db } from '../open.js';
import type { Database } from '../tables.js';
import type { LegacySource } from './source.js';
import * as rows from './rows.js';

/** Each table, where its rows come from (the earlier layout's collection), and how. */
const PLAN: { table: keyof Database; coll: string; temp?: boolean; rows: (docs: never[]) => object[] }[] = [
  { table: 'accounts', coll: 'accounts', rows: rows.accounts },
  { table: 'apiKeys', coll: 'keys', rows: rows.apiKeys },
  { table: 'keyLastUsed', coll: 'key-last-used', rows: rows.keyLastUsed },
  { table: 'invites', coll: 'invites', rows: rows.invites },
  { table: 'upgradeRequests', coll: 'upgrade-requests', rows: rows.upgradeRequests },
  { table: 'planChanges', coll: 'plan-changes', rows: rows.planChanges },
  { table: 'erasedUsage', coll: 'erased-usage', rows: rows.erasedUsage },
  { table: 'webhooks', coll: 'webhooks', rows: rows.webhooks },
  { table: 'webhookDeliveries', coll: 'webhook-queue', rows: rows.webhookDeliveries },
  { table: 'billingSubscriptions', coll: 'billing', rows: rows.billingSubscriptions },
  { table: 'billingCustomers', coll: 'billing-customers', rows: rows.billingCustomers },
  { table: 'billingEvents', coll: 'billing-events', rows: rows.billingEvents },
  { table: 'probes', coll: 'health-probe', rows: rows.probes },
  { table: 'incidents', coll: 'health-incidents', rows: rows.incidents },
  { table: 'secrets', coll: 'portal-secrets', rows: rows.secrets },
  { table: 'sessions', coll: 'sessions', temp: true, rows: rows.sessions },
  { table: 'linkTokens', coll: 'link-tokens', temp: true, rows: rows.linkTokens },
];
const CHUNK = 200;

export interface ImportResult {
  source: string;
  /** When the source had been imported before (nothing was read this time). */
  importedBefore?: string;
  /** Per table: documents read, rows written (fewer when a row was there already). */
  counts: Partial<Record<keyof Database, { read: number; written: number }>>;
  /** What else it found or did, in a line each. */
  notes?: string[];
}

export async function importLegacy(source: LegacySource, db: Db): Promise<ImportResult> {
  const before = await db.selectFrom('legacyImports').select('at').where('source', '=', source.name).executeTakeFirst();
  if (before) return { source: source.name, importedBefore: before.at, counts: {} };
  const read = await Promise.all(PLAN.map(async (p) => (p.temp ? source.tempDocs(p.coll) : source.docs(p.coll))));
  const counts: ImportResult['counts'] = {};
  await db.transaction().execute(async (trx) => {
    for (const [i, p] of PLAN.entries()) {
      const made = p.rows(read[i] as never[]);
      let written = 0;
      for (let at = 0; at < made.length; at += CHUNK) {
        const r = await trx
          .insertInto(p.table)
          .values(made.slice(at, at + CHUNK))
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        written += Number(r.numInsertedOrUpdatedRows ?? 0);
      }
      if (made.length) counts[p.table] = { read: made.length, written };
    }
    await trx
      .insertInto('legacyImports')
      .values({ source: source.name, at: new Date().toISOString(), counts: JSON.stringify(counts) })
      .execute();
  });
  return { source: source.name, counts };
}
/** Says what to do when a source still holds keys or accounts that were never imported; undefined when none. */
export async function unmigrated(source: LegacySource, db: Db): Promise<string | undefined> {
  const held = await source.held();
  if (!held) return undefined;
  const done = await db.selectFrom('legacyImports').select('source').where('source', '=', source.name).executeTakeFirst();
  if (done) return undefined;
  return (
    `${source.name} holds ${held} keys and accounts in the earlier layout, not yet in the tables. ` +
    "Run `npm run migrate` (with this deployment's DATA_DIR, REDIS_URL and DATABASE_URL) to move them, then start again."
  );
}
