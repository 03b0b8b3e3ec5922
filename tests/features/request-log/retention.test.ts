// Retention: each call is kept its plan's days (Free 1, Premium 7, Enterprise 30, from catalog/plans.yaml)
// and then dropped with its whole day: on PostgreSQL the day's partition goes, on SQLite the day's rows.
import { sql } from 'kysely';
import pino from 'pino';
import type { Call } from '../../../engine/pipeline/call.js';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { createRequestLog } from '../../../features/request-log/request-log.js';
import { DAY_MS, LogRecords } from '../../../features/request-log/records.js';
import type { PlanSpec } from '../../../engine/catalog/load.js';

const plan = (id: string, logDays: number): PlanSpec => ({ id, limit: 10, window: '24h', keyedBy: 'key', description: id, logDays });
const PLANS = { free: plan('free', 1), premium: plan('premium', 7), enterprise: plan('enterprise', 30) };

/** A call as the observer sees it once answered: only what the log reads. */
const answered = (keyId: string, plan: string, id: string) =>
  ({
    id,
    identity: { status: 'ok', plan, keyId, accountId: `acct-${plan}` },
    endpoint: 'tools/ccgen',
    method: 'GET',
    elapsedMs: 1.5,
    bytesOut: 10,
    ip: '203.0.113.9',
    query: { bin: '457173' },
    req: { headers: {} },
  }) as unknown as Call;

describeEngines('the request log keeps each plan its days, then drops them whole', (engine, open) => {
  engineTest('Free 1 day, Premium 7, Enterprise 30', async () => {
    const db = await open();
    const records = new LogRecords(db);
    let now = Date.UTC(2026, 10, 29, 12);
    const log = createRequestLog({ records, plans: PLANS, endpoints: [], ip: 'truncated', log: pino({ level: 'silent' }), now: () => now });
    for (const p of Object.keys(PLANS)) log.record(answered(`k-${p}`, p, `r-${p}`), 200, now);
    await log.flush();
    const left = async () => (await records.list({ limit: 100 })).rows.map((r) => r.requestId).sort();
    const partitions = async () =>
      engine === 'postgres'
        ? Number(
            (
              await sql<{ n: string }>`select count(*) as n from pg_inherits where inhparent = to_regclass('request_log_batch')`.execute(
                db.db,
              )
            ).rows[0].n,
          )
        : undefined;
    expect(await left()).toEqual(['r-enterprise', 'r-free', 'r-premium']);
    if (engine === 'postgres') expect(await partitions()).toBe(3);

    const at = (days: number) => (now = Date.UTC(2026, 10, 29, 12) + days * DAY_MS);
    at(1);
    await log.sweep();
    expect(await left()).toEqual(['r-enterprise', 'r-free', 'r-premium']);
    at(2); // a free call is kept at least a day, dropped the day after
    await log.sweep();
    expect(await left()).toEqual(['r-enterprise', 'r-premium']);
    if (engine === 'postgres') expect(await partitions()).toBe(2);
    at(8);
    await log.sweep();
    expect(await left()).toEqual(['r-enterprise']);
    at(31);
    await log.sweep();
    expect(await left()).toEqual([]);
    if (engine === 'postgres') expect(await partitions()).toBe(0);

    // A call after the sweep gets its partition made again.
    log.record(answered('k-free', 'free', 'r-later'), 200, now);
    await log.flush();
    expect(await left()).toEqual(['r-later']);
    await log.close();
  });

  engineTest('a plan without logDays, and calls of no key, are kept one day', async () => {
    const db = await open();
    const records = new LogRecords(db);
    const now = Date.UTC(2026, 10, 29, 12);
    const log = createRequestLog({
      records,
      plans: { other: { ...plan('other', 1), logDays: undefined } },
      endpoints: [],
      ip: 'truncated',
      log: pino({ level: 'silent' }),
      now: () => now,
    });
    log.record(answered('k', 'other', 'r-other'), 200, now);
    log.record({ ...answered('k', 'other', 'r-nokey'), identity: { status: 'missing' } } as unknown as Call, 401, now);
    await log.flush();
    const rows = (await records.list({ limit: 100 })).rows
      .map(({ requestId, dropDay, owner }) => ({ requestId, dropDay, owner }))
      .sort((a, b) => a.requestId.localeCompare(b.requestId));
    const day = Math.floor(now / DAY_MS);
    expect(rows).toEqual([
      { requestId: 'r-nokey', dropDay: day + 2, owner: null },
      { requestId: 'r-other', dropDay: day + 2, owner: 'acct-other' },
    ]);
    await log.close();
  });
});
