// The request log: every answered API call, recorded off the request path. The call observer hands each
// call to `record`, which keeps a few references and nothing else; once a second they are made into rows
// (parameters redacted and capped: redact.ts) and written in batches (records.ts). A store that fails
// costs the calls nothing: their rows wait, bounded, for the next second, and beyond the bound the oldest
// go (logged). Once an hour (and at start) the days whose time has come are dropped.
import crypto from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { Call, ProviderAttempt } from '../../engine/pipeline/call.js';
import type { EndpointSpec, PlanSpec } from '../../engine/catalog/load.js';
import type { UploadedFile } from '../../engine/types.js';
import type { RequestLogTable } from '../../engine/db/tables/request-log.js';
import { keptAddress, keptParams, keptText, keptUploads } from './redact.js';
import { dayOf, idAt, type LogRecords } from './records.js';
import { retentionDays } from './retention.js';

const FLUSH_MS = 1000;
const SWEEP_MS = 3_600_000;
/** Calls held while the store does not take them (a minute of a busy server); beyond it the oldest go. */
const MAX_WAITING = 100_000;

/** What is kept of a call at its answer: references only, made into a row at the next flush. */
interface Seen {
  at: number;
  requestId: string;
  keyId: string | undefined;
  accountId: string | undefined;
  plan: string | undefined;
  endpoint: string;
  method: string;
  status: number;
  code: string | undefined;
  ms: number;
  source: string | undefined;
  attempts: ProviderAttempt[] | undefined;
  cached: boolean;
  bytesOut: number;
  ip: string | undefined;
  query: Record<string, unknown>;
  /** What the body parsers read (a JSON object, a form's or multipart's fields), whatever the catalog declares. */
  body: unknown;
  files: Record<string, UploadedFile> | undefined;
  error: string | undefined;
  headerKey: unknown;
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
  let seen: Seen[] = [];
  let waiting: Insertable<RequestLogTable>[] = [];
  let dropped = 0;

  /** The observer's part: runs as the answer is written, so it only keeps references. */
  const record = (call: Call, status: number, at: number) => {
    const id = call.identity;
    const ok = id?.status === 'ok' ? id : undefined;
    if (seen.length >= MAX_WAITING) {
      dropped++;
      return;
    }
    seen.push({
      at,
      requestId: call.id,
      keyId: ok?.keyId,
      accountId: ok?.accountId,
      plan: ok?.plan,
      endpoint: call.endpoint,
      method: call.method,
      status,
      code: call.errorCode,
      ms: call.elapsedMs,
      source: call.outcome?.source,
      attempts: call.attempts,
      cached: call.outcome?.cached === true,
      bytesOut: call.bytesOut,
      ip: call.ip,
      query: call.query,
      body: call.req.body,
      files: call.input?.files,
      error: call.errorMessage,
      headerKey: call.req.headers['x-api-key'],
    });
  };

  /** Whose calls these are: the account's, a personal key's of no account, nobody's for a shared key. */
  const ownerOf = (s: Seen): string | null => {
    if (s.accountId) return s.accountId;
    if (s.keyId && s.plan && plans[s.plan]?.keyedBy === 'key') return `key:${s.keyId}`;
    return null;
  };

  // Calls of one millisecond keep their order in the ids: a sequence within it, then random characters
  // (unique across instances). Random bytes are drawn for 1,024 rows at a time (a call a row costs more).
  let lastMs = 0;
  let seq = 0;
  let random = Buffer.alloc(0);
  let taken = 0;
  const idOf = (at: number) => {
    seq = at === lastMs ? seq + 1 : 0;
    lastMs = at;
    if (taken + 6 > random.length) {
      random = crypto.randomBytes(6 * 1024);
      taken = 0;
    }
    const tail = random.toString('base64url', taken, (taken += 6));
    return `${idAt(at)}${Math.min(seq, 1295).toString(36).padStart(2, '0')}${tail}`;
  };

  const rowOf = (s: Seen): Insertable<RequestLogTable> => {
    const body = typeof s.body === 'object' && s.body !== null && !Array.isArray(s.body) ? (s.body as Record<string, unknown>) : undefined;
    // What was sent, the body over the query string, as the parse step reads it.
    const sent = body ? { ...s.query, ...body } : s.query;
    const presented = [s.headerKey, s.query.apikey, body?.apikey].flat().filter((k): k is string => typeof k === 'string');
    return {
      id: idOf(s.at),
      dropDay: dayOf(s.at) + retentionDays(plans, s.plan) + 1,
      at: s.at,
      requestId: s.requestId,
      owner: ownerOf(s),
      keyId: s.keyId ?? null,
      plan: s.plan ?? null,
      endpoint: s.endpoint,
      method: s.method,
      status: s.status,
      statusClass: Math.floor(s.status / 100),
      code: s.code ?? null,
      ms: Math.round(s.ms * 100) / 100,
      source: s.source ?? null,
      providers: s.attempts?.length ? JSON.stringify(s.attempts.map((a) => ({ ...a, ms: Math.round(a.ms * 100) / 100 }))) : null,
      cached: s.cached ? 1 : 0,
      bytesOut: s.bytesOut,
      ip: keptAddress(s.ip, deps.ip),
      params: keptParams(sent, secrets.get(s.endpoint) ?? none, presented),
      uploads: keptUploads(s.files),
      error: keptText(s.error, presented),
    };
  };

  let flushing: Promise<void> | undefined;
  const write = async (): Promise<void> => {
    if (seen.length) {
      const batch = seen;
      seen = [];
      for (const s of batch) waiting.push(rowOf(s));
    }
    if (waiting.length > MAX_WAITING) {
      const over = waiting.length - MAX_WAITING;
      waiting = waiting.slice(over);
      dropped += over;
      log.error({ dropped: over }, 'request log: the store has taken nothing for too long, its oldest calls are dropped');
    }
    if (!waiting.length) return;
    const rows = waiting;
    waiting = [];
    try {
      await records.insert(rows);
    } catch (err) {
      // Kept for the next second (rows written already are not written twice: their ids are taken).
      waiting = rows.concat(waiting);
      log.warn({ err: (err as Error).message, waiting: waiting.length }, 'request log: write failed, kept to write again');
    }
  };

  // One flush at a time: a store that hangs holds one batch, and the calls after it wait in `seen` (bounded).
  const flush = (): Promise<void> => (flushing ??= write().finally(() => (flushing = undefined)));

  const sweep = async (): Promise<number> => {
    try {
      return await records.sweep(dayOf(now()), () => new Promise((r) => setImmediate(r)));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'request log: old days not dropped, tried again in an hour');
      return 0;
    }
  };

  const flusher = setInterval(() => void flush(), FLUSH_MS);
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
      await flushing;
      await flush();
      if (waiting.length) log.error({ calls: waiting.length }, 'request log: not written at exit');
    },
  };
}

export type RequestLog = ReturnType<typeof createRequestLog>;
