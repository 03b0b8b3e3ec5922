// Calls kept in batches read back as calls: two writers (instances) recording the calls of three owners at
// once, in batches that overlap in time, are listed by every filter and cursor exactly as a plain filter and
// sort of every call would list them; one call is found by its own id and by its request id (the service's
// UUIDv7, a caller's own id, and a UUIDv7 of a clock far off); and the one-row-a-call table of an earlier
// version moves into batches with every call kept.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import type { Call, ProviderAttempt } from '../../../engine/pipeline/call.js';
import { timeOfRequestId, timeOrderedId } from '../../../engine/request-id.js';
import type { PlanSpec } from '../../../engine/catalog/load.js';
import { describeEngines, engineTest, freshDatabase } from '../../helpers/db.js';
import { createRequestLog } from '../../../features/request-log/request-log.js';
import { LogRecords, type LogQuery, type LogRow } from '../../../features/request-log/records.js';
import { requestLog as oneRowACall } from '../../../engine/db/migrations/0010-request-log.js';
import { makeDayPartition } from '../../../engine/db/partitions.js';
import { blankCall, CallBatch, callId, callsOf, idAt, type CallRecord } from '../../../engine/db/tables/request-log.js';
import { requestLogBatches } from '../../../engine/db/migrations/0011-request-log-batches.js';
import { requestLogCallFiles } from '../../../engine/db/migrations/0012-request-log-call-files.js';
import { requestLogCallBytes } from '../../../engine/db/migrations/0013-request-log-call-bytes.js';
import { FORMAT, requestIdBytes } from '../../../engine/db/tables/request-log-calls.js';

const plan = (id: string): PlanSpec => ({ id, limit: 10, window: '24h', keyedBy: 'key', description: id, logDays: 7 });
const PLANS = { premium: plan('premium') };
const OWNERS = ['acct-a', 'acct-b', 'acct-c'];
const KEYS = ['k1', 'k2'];
const ENDPOINTS = ['tools/ccgen', 'fake-data/creature', 'utilities/ip-lookup'];
const OUTCOMES: [number, string | undefined][] = [
  [200, undefined],
  [200, undefined],
  [404, 'not_found'],
  [429, 'rate_limited'],
  [502, 'upstream_error'],
];

/** A small deterministic random source, so a failure can be replayed. */
function randomOf(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

const answered = (
  requestId: string,
  owner: string,
  keyId: string,
  endpoint: string,
  status: number,
  code: string | undefined,
  idGiven = requestId.startsWith('caller-'),
) =>
  ({
    id: requestId,
    idGiven,
    identity: { status: 'ok', plan: 'premium', keyId, accountId: owner },
    endpoint,
    method: 'GET',
    elapsedMs: 2.25,
    bytesOut: 42,
    ip: '203.0.113.9',
    errorCode: code,
    query: { bin: '457173' },
    req: { headers: {} },
  }) as unknown as Call;

describeEngines('the request log in batches', (engine, open) => {
  engineTest('every filter and cursor lists what a plain filter of every call lists', async () => {
    const db = await open();
    const records = new LogRecords(db);
    let now = Date.UTC(2026, 10, 29, 12);
    const silent = pino({ level: 'silent' });
    const writers = [0, 1].map(() =>
      createRequestLog({ records, plans: PLANS, endpoints: [], ip: 'truncated', log: silent, now: () => now }),
    );
    const random = randomOf(7);
    const sent: string[] = [];
    for (let i = 0; i < 1500; i++) {
      now += random(40); // several calls a millisecond, and gaps
      const [status, code] = OUTCOMES[random(OUTCOMES.length)];
      const requestId = i % 10 === 3 ? `caller-own-${i}` : timeOrderedId(now);
      sent.push(requestId);
      writers[random(2)].record(answered(requestId, OWNERS[random(3)], KEYS[random(2)], ENDPOINTS[random(3)], status, code), status, now);
      // Each writer flushes on its own beat, so their batches overlap in time.
      if (random(60) === 0) await writers[random(2)].flush();
    }
    for (const w of writers) await w.flush();

    const every = (await listAll(records, { limit: 50 })).map((r) => r.id);
    expect(every).toHaveLength(1500);
    const all = await listAll(records, { limit: 1000 });
    expect(new Set(all.map((r) => r.requestId))).toEqual(new Set(sent));
    const start = Date.UTC(2026, 10, 29, 12);
    const queries: Omit<LogQuery, 'limit'>[] = [
      {},
      { owner: 'acct-a' },
      { owner: 'acct-b', keyId: 'k2' },
      { owner: 'acct-c', endpoint: 'fake-data/creature' },
      { owner: 'acct-a', statusClass: 4 },
      { owner: 'acct-b', status: 502 },
      { owner: 'acct-c', code: 'rate_limited' },
      { owner: 'acct-a', from: start + 5_000, to: start + 20_000 },
      { code: 'not_found', endpoint: 'tools/ccgen' },
      { owner: 'nobody' },
    ];
    for (const q of queries)
      for (const limit of [1, 7, 100]) {
        const expected = all.filter((r) => matches(r, q)).map((r) => r.id);
        expect({ q, limit, ids: (await listAll(records, { ...q, limit })).map((r) => r.id) }).toEqual({ q, limit, ids: expected });
      }

    // One call by its id, and by its request id: the service's, a caller's own, and a UUIDv7 of a clock far off.
    const some = [all[0], all[700], all[1499]];
    for (const r of some) expect(await records.byId(r.id)).toEqual(r);
    expect(await records.byId('zzzzzzzzz00nothere')).toBeUndefined();
    const caller = all.find((r) => r.requestId.startsWith('caller-own-'))!;
    const ours = all.find((r) => !r.requestId.startsWith('caller-own-'))!;
    for (const r of [caller, ours]) expect((await records.list({ owner: r.owner!, requestId: r.requestId, limit: 1 })).rows).toEqual([r]);
    expect((await records.list({ owner: 'nobody', requestId: ours.requestId, limit: 1 })).rows).toEqual([]);
    // Only the callers' own ids are indexed; the service's carry their time.
    const named = await db.db.selectFrom('requestLogNamed').select('requestId').execute();
    expect(named.map((n) => n.requestId).sort()).toEqual(sent.filter((id) => id.startsWith('caller-own-')).sort());
    const skewed = timeOrderedId(Date.UTC(2020, 0, 1));
    writers[0].record(answered(skewed, 'acct-a', 'k1', 'tools/ccgen', 200, undefined, true), 200, now);
    await writers[0].flush();
    expect((await records.list({ owner: 'acct-a', requestId: skewed, limit: 1 })).rows.map((r) => r.requestId)).toEqual([skewed]);
    // An account deleted takes its calls and their index with it; the sweep drops both by day.
    await records.forget('acct-a');
    expect((await records.list({ owner: 'acct-a', limit: 1 })).rows).toEqual([]);
    // On SQLite its calls' bytes are zeroed in their files at once, the other owners' left as they were.
    const filesText = () =>
      db.dir === undefined
        ? ''
        : callFiles(db.dir)
            .map((f) => fs.readFileSync(f, 'latin1'))
            .join('\n');
    // A request id as the files hold it: its length, then its text.
    const [a, b] = ['acct-a', 'acct-b'].map((o) =>
      all.filter((r) => r.owner === o).map((r) => requestIdBytes(r.requestId).toString('latin1')),
    );
    if (db.dir !== undefined) {
      expect(a.filter((id) => filesText().includes(id))).toEqual([]);
      expect(b.filter((id) => !filesText().includes(id))).toEqual([]);
    }
    expect(await db.db.selectFrom('requestLogNamed').select('owner').where('owner', '=', 'acct-a').execute()).toEqual([]);
    await records.sweep(Math.floor(now / 86_400_000) + 8);
    expect((await records.list({ limit: 1 })).rows).toEqual([]);
    expect(await db.db.selectFrom('requestLogNamed').select('owner').execute()).toEqual([]);
    if (db.dir !== undefined) expect(callFiles(db.dir)).toEqual([]);
    for (const w of writers) await w.close();
  });

  engineTest(
    'a batch reads back the same whether its calls are in a file (SQLite), in the row as bytes (PostgreSQL) or as the JSON of rows written before',
    async () => {
      const db = await open();
      const records = new LogRecords(db);
      const now = Date.UTC(2026, 10, 29, 12);
      const log = createRequestLog({
        records,
        plans: PLANS,
        endpoints: [],
        ip: 'truncated',
        log: pino({ level: 'silent' }),
        now: () => now,
      });
      const ids = [timeOrderedId(now), 'caller-own-1', timeOrderedId(now + 1)];
      ids.forEach((id, i) => log.record(answered(id, 'acct-a', 'k1', 'tools/ccgen', 200, undefined), 200, now + i));
      await log.flush();
      const [stored] = await db.db.selectFrom('requestLogBatch').selectAll().execute();
      expect([stored.callsFile === null, stored.callsBin === null]).toEqual(engine === 'postgres' ? [true, false] : [false, true]);
      const read = async () => ({
        page: (await records.list({ owner: 'acct-a', limit: 10 })).rows,
        byRequestId: await Promise.all(
          ids.map(async (requestId) => (await records.list({ owner: 'acct-a', requestId, limit: 1 })).rows[0]?.requestId),
        ),
      });
      const before = await read();
      expect(before.page.map((r) => r.requestId)).toEqual([...ids].reverse());
      expect(before.byRequestId).toEqual(ids);
      const bytes = Buffer.from(
        stored.callsBin ??
          fs
            .readFileSync(path.join(db.dir!, 'request-log', stored.callsFile!))
            .subarray(Number(stored.callsAt), Number(stored.callsAt) + Number(stored.callsBytes)),
      );
      expect(bytes[0]).toBe(FORMAT);
      // The same calls as the JSON rows of before held them (a list of tuples), in the row as text (and as its
      // bytes on SQLite), and the bytes in the row. The tuples are written here by hand, apart from the
      // migration's writer of them, so that one mistake in both cannot pass.
      const json = JSON.stringify(
        before.page
          .reverse()
          .map((r) => [
            r.id,
            r.requestId,
            r.keyId,
            r.plan,
            r.endpoint,
            r.method,
            r.status,
            r.code,
            r.ms,
            r.source,
            JSON.parse(r.providers!),
            r.cached,
            r.bytesOut,
            r.ip,
            JSON.parse(r.params!),
            null,
            r.error,
          ]),
      );
      before.page.reverse();
      const inRow: { calls: string | Buffer; callsBin: Buffer | null }[] = [
        { calls: json, callsBin: null },
        { calls: '', callsBin: bytes },
        ...(engine === 'sqlite' ? [{ calls: Buffer.from(json), callsBin: null }] : []),
      ];
      for (const calls of inRow) {
        await db.db
          .updateTable('requestLogBatch')
          .set({ ...calls, callsFile: null, callsAt: null, callsBytes: null })
          .execute();
        expect(await read()).toEqual(before);
      }
      await log.close();
    },
  );

  engineTest('the one-row-a-call table of an earlier version moves into batches, every call kept', async () => {
    const db = await open();
    // The table as version 0010 made it, with its calls, beside an empty batch table.
    await oneRowACall.up(db.db, db.engine);
    await db.db.schema.dropTable('request_log_batch').execute();
    await db.db.schema.dropTable('request_log_named').execute();
    const day = Math.floor(Date.UTC(2026, 10, 29) / 86_400_000);
    const rows = Array.from({ length: 1203 }, (_, i) => {
      const at = Date.UTC(2026, 10, 29, 12) + i * 97;
      return {
        id: `${at.toString(36).padStart(9, '0')}${String(i % 100).padStart(2, '0')}abcdefgh`,
        drop_day: day + 8,
        at,
        request_id: `req-${i}`,
        owner: i % 3 === 0 ? null : `acct-${i % 3}`,
        key_id: i % 3 === 0 ? 'free' : `k${i % 2}`,
        plan: 'premium',
        endpoint: ENDPOINTS[i % 3],
        method: 'GET',
        status: i % 5 === 0 ? 404 : 200,
        status_class: i % 5 === 0 ? 4 : 2,
        code: i % 5 === 0 ? 'not_found' : null,
        ms: 1.5,
        source: i % 4 === 0 ? 'binlist' : null,
        providers: i % 4 === 0 ? JSON.stringify([{ upstream: 'binlist', status: 200, ms: 1.2 }]) : null,
        cached: i % 2,
        bytes_out: 100 + i,
        ip: '203.0.113.0',
        params: JSON.stringify({ bin: String(400000 + i) }),
        uploads: null,
        error: i % 5 === 0 ? 'no such thing' : null,
      };
    });
    if (db.engine === 'postgres') await makeDayPartition(db.db, 'request_log', day + 8);
    for (let i = 0; i < rows.length; i += 100)
      await db.db
        .insertInto('request_log' as never)
        .values(rows.slice(i, i + 100))
        .execute();
    await requestLogBatches.up(db.db, db.engine);
    await requestLogCallFiles.up(db.db, db.engine);
    await requestLogCallBytes.up(db.db, db.engine);

    const records = new LogRecords(db);
    const moved = await listAll(records, { limit: 500 });
    expect(moved).toHaveLength(1203);
    const byRequest = new Map(moved.map((r) => [r.requestId, r]));
    for (const r of rows) {
      const m = byRequest.get(r.request_id)!;
      expect(m).toEqual({
        id: r.id,
        dropDay: r.drop_day,
        at: r.at,
        requestId: r.request_id,
        owner: r.owner,
        keyId: r.key_id,
        plan: r.plan,
        endpoint: r.endpoint,
        method: r.method,
        status: r.status,
        statusClass: r.status_class,
        code: r.code,
        ms: r.ms,
        source: r.source,
        providers: r.providers,
        cached: r.cached,
        bytesOut: r.bytes_out,
        ip: r.ip,
        params: r.params,
        uploads: r.uploads,
        error: r.error,
      });
    }
    // The earlier version's own ids were random: each is found through the index of ids without a time.
    const one = rows[777];
    expect((await records.list({ owner: one.owner ?? undefined, requestId: one.request_id, limit: 1 })).rows.map((r) => r.id)).toEqual([
      one.id,
    ]);
    await expect(
      db.db
        .selectFrom('request_log' as never)
        .selectAll()
        .execute(),
    ).rejects.toThrow();
  });
});

function matches(r: LogRow, q: Omit<LogQuery, 'limit'>): boolean {
  return (
    (q.owner === undefined || r.owner === q.owner) &&
    (q.keyId === undefined || r.keyId === q.keyId) &&
    (q.endpoint === undefined || r.endpoint === q.endpoint) &&
    (q.statusClass === undefined || r.statusClass === q.statusClass) &&
    (q.status === undefined || r.status === q.status) &&
    (q.code === undefined || r.code === q.code) &&
    (q.from === undefined || r.at >= q.from) &&
    (q.to === undefined || r.at < q.to)
  );
}

/** Every page of a query, following its cursor; each page's rows newest first. */
async function listAll(records: LogRecords, q: LogQuery): Promise<LogRow[]> {
  const out: LogRow[] = [];
  let after: string | undefined;
  for (;;) {
    const { rows, more } = await records.list({ ...q, after });
    out.push(...rows);
    if (!more) return out;
    after = rows[rows.length - 1].id;
  }
}

/** The request log's files of a SQLite database's folder. */
function callFiles(dir: string): string[] {
  const files = path.join(dir, 'request-log');
  return fs.existsSync(files) ? fs.readdirSync(files).map((f) => path.join(files, f)) : [];
}

/** A call as a batch reads it back: from its bytes (SQLite's files, PostgreSQL's rows) and from their JSON (the rows of before). */
function readBack(c: CallRecord, named = false): LogRow {
  const batch = new CallBatch('owner', 1, 'tag12345');
  batch.add(c, named);
  const bytes = batch.row('bytes').callsBin!;
  const [row] = callsOf({ calls: bytes, owner: 'owner', dropDay: 1 });
  expect(callsOf(batch.row('json'))).toEqual([row]);
  batch.release();
  // Its buffer goes to the next batch: the row's bytes are its own.
  const next = new CallBatch('other', 1, 'tag67890');
  next.add({ ...c, requestId: 'another call', endpoint: 'another/endpoint' }, false);
  expect(callsOf({ calls: bytes, owner: 'owner', dropDay: 1 })).toEqual([row]);
  next.release();
  return row;
}

test('a call kept in a batch reads back as it was, whatever its texts hold', () => {
  const odd = [
    'plain',
    'with "quotes"',
    'back\\slash',
    'line\nbreak',
    'tab\there',
    'ünïcödé ✓',
    '\u0000\u001f',
    '</script>',
    '',
    '😀',
    'x'.repeat(100),
    `${'y'.repeat(60)}é`,
  ];
  const at = Date.UTC(2026, 10, 30, 7, 30);
  for (const s of odd) {
    const providers = [{ upstream: s, status: 502, code: s, ms: 3, breaker: true }];
    const uploads = [{ field: s, name: s, type: s, size: 1 }];
    for (const params of [
      { q: s, [s]: [s] },
      { q: s, [`${s}2`]: s, 10: s },
    ]) {
      const c: CallRecord = {
        at,
        seq: 40,
        requestId: s,
        keyId: s,
        plan: s,
        endpoint: s,
        method: s,
        status: 404,
        code: s,
        ms: 1.25,
        source: s,
        providers,
        cached: true,
        bytesOut: 12,
        ip: s,
        params,
        uploads,
        error: s,
      };
      const { providers: p, params: q, uploads: u, ...row } = readBack(c);
      expect(row).toEqual({
        id: callId(at, 40, 'tag12345'),
        dropDay: 1,
        owner: 'owner',
        at,
        requestId: s,
        keyId: s,
        plan: s,
        endpoint: s,
        method: s,
        status: 404,
        statusClass: 4,
        code: s,
        ms: 1.25,
        source: s,
        cached: 1,
        bytesOut: 12,
        ip: s,
        error: s,
      });
      // The providers, parameters and uploads as JSON texts of the values they were, as JSON.stringify writes them.
      expect([p, q, u]).toEqual([JSON.stringify(providers), JSON.stringify(params), JSON.stringify(uploads)]);
    }
  }
  const nulls: CallRecord = { ...blankCall(), requestId: 'r', endpoint: 'e', method: 'GET', status: 200 };
  expect(readBack(nulls)).toMatchObject({
    id: callId(0, 0, 'tag12345'),
    keyId: null,
    providers: null,
    params: null,
    uploads: null,
    error: null,
  });
  // The one provider that answered, kept as its time, reads back whole; a call of another writer keeps its id.
  expect(readBack({ ...nulls, source: 'binlist', providers: 1234, seq: 0, idTail: 'AbCdEfGh', at: 5e12 })).toMatchObject({
    id: `${idAt(5e12)}AbCdEfGh`,
    at: 5e12,
    providers: JSON.stringify([{ upstream: 'binlist', status: 200, ms: 12.34 }]),
  });
});

test("a batch's first and last ids are its oldest and newest calls', in whatever order they came", () => {
  const batch = new CallBatch(null, 1, 'tagA');
  const call = (at: number, seq: number, idTail?: string): CallRecord => ({ ...lone, at, seq, ...(idTail && { idTail }) });
  const lone: CallRecord = { ...blankCall(), requestId: 'r', endpoint: 'e', method: 'GET', status: 200 };
  // Times before the first call's (a clock set back) and far after it are kept as they were.
  for (const [at, seq] of [
    [2000, 3],
    [1000, 7],
    [2000, 40],
    [1000, 2],
    [1500, 0],
    [2 ** 40, 1],
  ])
    batch.add(call(at, seq), false);
  expect([batch.firstId, batch.lastId]).toEqual([callId(1000, 2, 'tagA'), callId(2 ** 40, 1, 'tagA')]);
  batch.add(call(999, 0, 'zzzzzzzz'), false);
  batch.add(call(2 ** 41, 0, '00000000'), false);
  expect([batch.firstId, batch.lastId]).toEqual([`${idAt(999)}zzzzzzzz`, `${idAt(2 ** 41)}00000000`]);
  expect(callsOf({ calls: batch.bytes(), owner: null, dropDay: 1 }).map((r) => r.id)).toEqual([
    callId(2000, 3, 'tagA'),
    callId(1000, 7, 'tagA'),
    callId(2000, 40, 'tagA'),
    callId(1000, 2, 'tagA'),
    callId(1500, 0, 'tagA'),
    callId(2 ** 40, 1, 'tagA'),
    `${idAt(999)}zzzzzzzz`,
    `${idAt(2 ** 41)}00000000`,
  ]);
  batch.release();
});

test("a call's time and bytes are kept as numbers whatever they were, and its providers as they were tried", async () => {
  const t = await freshDatabase('sqlite');
  const records = new LogRecords(t);
  const log = createRequestLog({ records, plans: PLANS, endpoints: [], ip: 'full', log: pino({ level: 'silent' }) });
  const attempts: ProviderAttempt[] = [{ upstream: 'binlist', status: 502, code: 'upstream_error', ms: 12.34 }];
  const call = {
    id: 'req-1',
    idGiven: true,
    identity: { status: 'ok', plan: 'premium', keyId: 'k1', accountId: 'acct-a' },
    req: { headers: {}, body: undefined },
    query: {},
    endpoint: 'tools/ccgen',
    method: 'GET',
    elapsedMs: Number.NaN,
    bytesOut: Number.POSITIVE_INFINITY,
    attempts,
  } as unknown as Call;
  log.record(call, 502, Date.now());
  // The one provider asked answered: kept as its time when it is the source, as a list when the adapter
  // named another source.
  const answered = (id: string, source: string) =>
    ({ ...call, id, attempts: undefined, answeredBy: 'binlist', answeredIn: 1234, outcome: { source } }) as unknown as Call;
  log.record(answered('req-2', 'binlist'), 200, Date.now());
  log.record(answered('req-3', 'binlist-mirror'), 200, Date.now());
  await log.close();
  const { rows } = await records.list({ owner: 'acct-a', limit: 5 });
  const one = JSON.stringify([{ upstream: 'binlist', status: 200, ms: 12.34 }]);
  expect(rows).toMatchObject([
    { requestId: 'req-3', source: 'binlist-mirror', providers: one },
    { requestId: 'req-2', source: 'binlist', providers: one },
    { requestId: 'req-1', ms: 0, bytesOut: 0, providers: JSON.stringify(attempts) },
  ]);
  await t.close();
});

test('the service makes UUIDv7 request ids: its time in the first 48 bits, version 7, the RFC 9562 variant, unique', () => {
  const at = Date.UTC(2026, 10, 29, 12, 34, 56, 789);
  const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedId(at + (i >> 8)));
  for (const [i, id] of ids.entries()) {
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOfRequestId(id)).toBe(at + (i >> 8));
  }
  expect(new Set(ids).size).toBe(1000);
  expect(timeOfRequestId('0190a7c4-1234-4abc-8def-0123456789ab')).toBeUndefined();
  expect(timeOfRequestId('caller-own-1')).toBeUndefined();
});

test('a flush asked for while a write is under way writes, once it resolves, every call recorded before it', async () => {
  const db = await freshDatabase('sqlite');
  const records = new LogRecords(db);
  const insert = records.insert.bind(records);
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  // The first write waits until released, as a slow store would.
  let first = true;
  records.insert = async (batches) => {
    if (first) {
      first = false;
      await held;
    }
    return insert(batches);
  };
  const now = Date.UTC(2026, 10, 29, 12);
  const log = createRequestLog({ records, plans: PLANS, endpoints: [], ip: 'truncated', log: pino({ level: 'silent' }), now: () => now });
  log.record(answered('caller-a', 'acct-a', 'k1', 'tools/ccgen', 200, undefined), 200, now);
  const underWay = log.flush();
  log.record(answered('caller-b', 'acct-a', 'k1', 'tools/ccgen', 200, undefined), 200, now + 1);
  const asked = log.flush();
  release();
  await asked;
  await underWay;
  expect((await records.list({ owner: 'acct-a', limit: 10 })).rows.map((r) => r.requestId)).toEqual(['caller-b', 'caller-a']);
  await log.close();
});
