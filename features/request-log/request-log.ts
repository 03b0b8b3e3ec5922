// The request log: every answered API call, recorded off the request path. The call observer hands each
// call to `record`, which copies what is kept of it into its batch at once (parameters redacted and capped:
// redact.ts) and keeps nothing else of the call; the calls of one owner and retention day go into one batch
// (a row of the table, engine/db/tables/request-log.ts, which holds them as bytes), and every FLUSH_MS the
// batches are written (records.ts). A store that fails
// costs the calls nothing: the batches wait, bounded, for the next flush, and beyond the bound the oldest go
// (logged). Once an hour (and at start) the days whose time has come are dropped.
import type { Logger } from 'pino';
import { providersAsked, type Call } from '../../engine/pipeline/call.js';
import type { EndpointSpec, PlanSpec } from '../../engine/catalog/load.js';
import { blankCall, CallBatch, CallClock } from '../../engine/db/tables/request-log.js';
import { keptAddress, keptParams, keptText, keptTexts, keptUploads } from './redact.js';
import { dayOf, type LogRecords } from './records.js';
import { retentionDays } from './retention.js';
import { remembered, rememberedLast } from '../../engine/remembered.js';

/**
 * How often the batches are written: a call shows in the inspector within a second. Each write costs the
 * same whatever it holds (a transaction, a file's write); written every 100 ms, they cost the cheapest calls
 * about 1–2 % more CPU (a pair of servers loaded at once on one core, 2026-11-30).
 */
const FLUSH_MS = 1000;
const SWEEP_MS = 3_600_000;
/** Calls held while the store does not take them (a minute of a busy server); beyond it the oldest go. */
const MAX_WAITING = 100_000;
/** Client addresses remembered with what is kept of them (callers come back), forgotten all at once beyond it. */
const ADDRESSES = 4096;

/**
 * The owner of a personal key's calls, made once a key: a string made anew for each call would be hashed anew
 * by the map of open batches.
 */
const keyOwner = rememberedLast(remembered((keyId) => `key:${keyId}`));

/** The list presentedKeys() answers for one key: read at once by the redaction and never kept, so made once. */
const oneKey: string[] = [''];

/** The keys a caller sent, in the X-API-Key header, the query or the body: each is scrubbed from the other values it sent. */
function presentedKeys(header: unknown, query: unknown, body: unknown): readonly string[] {
  // Nearly every call sends one key, in one place.
  const only =
    typeof header === 'string' && query === undefined && body === undefined
      ? header
      : typeof query === 'string' && header === undefined && body === undefined
        ? query
        : undefined;
  if (only !== undefined) {
    oneKey[0] = only;
    return oneKey;
  }
  const keys: string[] = [];
  for (const p of [header, query, body]) {
    if (typeof p === 'string') keys.push(p);
    else if (Array.isArray(p)) for (const k of p) if (typeof k === 'string') keys.push(k);
  }
  return keys;
}

export interface RequestLogDeps {
  records: LogRecords;
  plans: Record<string, PlanSpec>;
  endpoints: EndpointSpec[];
  ip: 'truncated' | 'full' | 'none';
  log: Logger;
  /** Tests move the clock. */
  now?: () => number;
}

export function createRequestLog(deps: RequestLogDeps) {
  const { records, plans, log } = deps;
  const now = deps.now ?? Date.now;
  // Per endpoint, the parameters its catalog entry marks `secret:`.
  const secrets = new Map(
    deps.endpoints.map((e) => [
      e.id,
      new Set(
        Object.entries(e.params)
          .filter(([, p]) => p.secret)
          .map(([name]) => name),
      ),
    ]),
  );
  const none = new Set<string>();
  // The batch filling now for each owner (a new one when its drop day changes); those closed and not written yet.
  let open = new Map<string | null, CallBatch>();
  let waiting: CallBatch[] = [];
  let held = 0;
  let dropped = 0;

  const clock = new CallClock();
  // What is kept of a call, filled anew for each: its batch copies it out at once.
  const kept = blankCall();

  const addresses = new Map<string, string | null>();
  const addressOf = rememberedLast((ip: string | undefined): string | null => {
    if (ip === undefined) return null;
    let known = addresses.get(ip);
    if (known === undefined) {
      if (addresses.size >= ADDRESSES) addresses.clear();
      addresses.set(ip, (known = keptAddress(ip, deps.ip)));
    }
    return known;
  });
  const secretsOf = rememberedLast((endpoint: string) => secrets.get(endpoint) ?? none);
  const daysOf = rememberedLast((plan: string | undefined) => retentionDays(plans, plan));
  // The batch last written to and its owner (a busy owner's calls come in a row), until the batches are written.
  let lastOwner: string | null | undefined;
  let lastBatch: CallBatch | undefined;

  /** The observer's part: runs as the answer is written, and copies what is kept of the call into its batch. */
  const record = (call: Call, status: number, at: number) => {
    if (held >= MAX_WAITING) {
      dropped++;
      return;
    }
    const id = call.identity;
    const ok = id?.status === 'ok' ? id : undefined;
    const plan = ok?.plan;
    // Whose calls these are: the account's, a personal key's of no account, nobody's for a shared key.
    const owner = ok?.accountId ?? (ok && plan && plans[plan]?.keyedBy === 'key' ? keyOwner(ok.keyId) : null);
    const dropDay = dayOf(at) + daysOf(plan) + 1;
    let batch = lastBatch !== undefined && owner === lastOwner ? lastBatch : open.get(owner);
    if (!batch || batch.dropDay !== dropDay || !batch.takes(at)) {
      if (batch) waiting.push(batch);
      batch = new CallBatch(owner, dropDay, clock.tag);
      open.set(owner, batch);
    }
    lastOwner = owner;
    lastBatch = batch;
    const raw: unknown = call.req.body;
    const body = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    // What was sent, the body over the query string, as the parse step reads it.
    const query = call.query;
    const sent = body ? { ...query, ...body } : query;
    const presented = presentedKeys(call.req.headers['x-api-key'], query.apikey, body?.apikey);
    const source = call.outcome?.source ?? null;
    // Nearly every call asks one provider, which answers and is the source: its time alone (CallRecord).
    kept.providers = call.answeredBy === source ? call.answeredIn : providersAsked(call);
    kept.at = at;
    kept.seq = clock.next(at);
    kept.requestId = call.id;
    kept.keyId = ok?.keyId ?? null;
    kept.plan = plan ?? null;
    kept.endpoint = call.endpoint;
    kept.method = call.method;
    kept.status = status;
    kept.code = call.errorCode ?? null;
    kept.ms = call.elapsedMs;
    kept.source = source;
    kept.cached = call.outcome?.cached === true;
    kept.bytesOut = call.bytesOut;
    kept.ip = addressOf(call.ip);
    const secret = secretsOf(call.endpoint);
    // Its parameters' names and values in turn when all are texts: a new list, which costs less than emptying one kept.
    const pairs: string[] = [];
    kept.params = keptTexts(sent, secret, presented, pairs) ? (pairs.length ? pairs : null) : keptParams(sent, secret, presented);
    kept.uploads = keptUploads(call.input?.files);
    kept.error = keptText(call.errorMessage, presented);
    batch.add(kept, call.idGiven);
    held++;
  };

  let flushing: Promise<void> | undefined;
  const write = async (): Promise<void> => {
    if (open.size) {
      for (const b of open.values()) waiting.push(b);
      open = new Map();
      lastBatch = undefined;
    }
    if (held > MAX_WAITING) {
      let over = 0;
      while (held > MAX_WAITING && waiting.length > 1) {
        const gone = waiting.shift()!;
        held -= gone.size;
        over += gone.size;
      }
      dropped += over;
      if (over) log.error({ dropped: over }, 'request log: the store has taken nothing for too long, its oldest calls are dropped');
    }
    if (!waiting.length) return;
    const batches = waiting;
    waiting = [];
    try {
      await records.insert(batches);
      for (const b of batches) {
        held -= b.size;
        b.release();
      }
    } catch (err) {
      // Kept for the next flush (batches written already are not written twice: their ids are taken).
      waiting = batches.concat(waiting);
      log.warn({ err: (err as Error).message, waiting: held }, 'request log: write failed, kept to write again');
    }
  };

  // One write at a time: a store that hangs holds what it was given, and the calls after it wait in their
  // batches (bounded). A flush waits for the write under way, then writes what came since: every call
  // recorded before it is written once it resolves.
  const flush = async (): Promise<void> => {
    while (flushing) await flushing;
    flushing = write().finally(() => (flushing = undefined));
    await flushing;
  };

  const sweep = async (): Promise<number> => {
    try {
      return await records.sweep(dayOf(now()), () => new Promise((r) => setImmediate(r)));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'request log: old days not dropped, tried again in an hour');
      return 0;
    }
  };

  // The timer's flush skips a beat while a write is under way, so a hanging store gathers no waiters.
  const flusher = setInterval(() => {
    if (!flushing) void flush();
  }, FLUSH_MS);
  flusher.unref();
  const sweeper = setInterval(() => void sweep(), SWEEP_MS);
  sweeper.unref();
  const swept = sweep();

  return {
    record,
    flush,
    sweep,
    /** Calls dropped since the start because the store took nothing for too long. */
    get dropped() {
      return dropped;
    },
    async close(): Promise<void> {
      clearInterval(flusher);
      clearInterval(sweeper);
      await swept;
      await flush();
      if (held) log.error({ calls: held }, 'request log: not written at exit');
    },
  };
}

export type RequestLog = ReturnType<typeof createRequestLog>;
