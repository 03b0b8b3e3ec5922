// Usage history of every key: counts per endpoint and status class, and latency, per hour (kept 25 hours)
// and per day (kept 31 days); the last 50 calls; when and from where each key was last used.
// Recording costs an API request a few map updates and nothing else: what was seen is written once a
// second in one batch (one Redis pipeline, or one SQLite transaction, and one upsert of the keys' last
// uses), so metering keeps its one Redis round trip per request. Latency is kept as a histogram of fixed
// buckets (engine/infra/latency-buckets.ts).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store, WriteOp } from '../../engine/store/types.js';
import type { LastUse } from '../../engine/access/keystore.js';
import type { Call } from '../../engine/pipeline/call.js';
import { ReusedRing } from '../../engine/reused-ring.js';
import { LATENCY_BUCKETS, quantile } from '../../engine/infra/latency-buckets.js';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RECENT = 50;
const FLUSH_MS = 1000;
/** Seconds of history kept in memory while no store takes them (an hour). */
const MAX_UNSENT = 3600;

export type Period = 'hour' | 'day';
const SPAN: Record<Period, { ms: number; count: number; coll: string; ttlMs: number }> = {
  hour: { ms: HOUR, count: 24, coll: 'usage-h', ttlMs: 25 * HOUR },
  day: { ms: DAY, count: 30, coll: 'usage-d', ttlMs: 31 * DAY },
};

export interface RecentCall {
  at: string;
  endpoint: string;
  status: number;
  ms: number;
}
export interface Bucket {
  start: string;
  total: number;
  classes: Record<string, number>;
  p50Ms: number | null;
  p95Ms: number | null;
}
export interface History {
  period: Period;
  buckets: Bucket[];
  endpoints: { endpoint: string; total: number; classes: Record<string, number> }[];
  total: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** What one partition saw since the last flush. */
class Pending {
  /** endpoint → counts per status class (index: status / 100 - 1). */
  readonly counts = new Map<string, number[]>();
  readonly latency = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  /** Each latency bucket's milliseconds added up: its percentiles are read as its calls' mean. */
  readonly latencySum = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  /** The newest calls (epoch-ms times, made into dates only when written). */
  private readonly ring = new ReusedRing(RECENT, () => ({ at: 0, endpoint: '', status: 0, ms: 0 }));

  constructor(readonly partition: string) {}

  remember(endpoint: string, status: number, ms: number, at: number) {
    const e = this.ring.slot();
    e.at = at;
    e.endpoint = endpoint;
    e.status = status;
    e.ms = ms;
  }

  /** Oldest first. */
  recent() {
    return this.ring.entries();
  }
}

/** Writes when and from where keys were last used (KeyStore.recordLastUsed), once per flush. */
export type LastUseWriter = (uses: Map<string, LastUse>) => Promise<void>;

export function createUsage(store: Store, log: Logger, writeLastUses: LastUseWriter = async () => {}) {
  // partition → what it saw since the last flush.
  let pending = new Map<string, Pending>();
  // key id → the client address of its last call, read while the call's connection is open (a caller that
  // hangs up at once leaves no address to read by the time of the write).
  let lastIps = new Map<string, string>();

  /** `now`: the epoch ms of the answer (the caller's one reading, shared with the log and the monitor). */
  const record = (call: Call, status: number, now: number) => {
    const id = call.identity;
    const partition = call.usageKey;
    if (id?.status !== 'ok' || partition === undefined) return;
    let p = pending.get(partition);
    if (p === undefined) pending.set(partition, (p = new Pending(partition)));
    let c = p.counts.get(call.endpoint);
    if (c === undefined) p.counts.set(call.endpoint, (c = [0, 0, 0, 0, 0]));
    const cls = Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1;
    c[cls]++;
    const ms = call.elapsedMs;
    let b = 0;
    while (ms > LATENCY_BUCKETS[b]) b++;
    p.latency[b]++;
    // Summed as the last calls show them (whole ms), so no percentile reads above the slowest call shown.
    const shown = Math.round(ms);
    p.latencySum[b] += shown;
    p.remember(call.endpoint, status, shown, now);
    lastIps.set(id.keyId, call.ip ?? '');
  };

  const opsOf = (batch: Map<string, Pending>): WriteOp[] => {
    const now = Date.now();
    const ops: WriteOp[] = [];
    for (const p of batch.values()) {
      const partition = p.partition;
      const add: Record<string, number> = {};
      for (const [endpoint, counts] of p.counts)
        counts.forEach((n, i) => {
          if (n) add[`n|${endpoint}|${CLASSES[i]}`] = n;
        });
      p.latency.forEach((n, i) => {
        if (n) add[`ms|${i}`] = n;
      });
      p.latencySum.forEach((ms, i) => {
        if (ms) add[`sum|${i}`] = ms;
      });
      for (const span of Object.values(SPAN)) {
        ops.push({ kind: 'add', coll: span.coll, id: `${partition}|${Math.floor(now / span.ms) * span.ms}`, add, ttlMs: span.ttlMs });
      }
      ops.push({
        kind: 'push',
        list: `usage-recent:${partition}`,
        items: p.recent().map((r) => JSON.stringify({ ...r, at: new Date(r.at).toISOString() })),
        cap: RECENT,
        ttlMs: SPAN.day.ttlMs,
      });
    }
    return ops;
  };
  const usesOf = (ips: Map<string, string>): Map<string, LastUse> => {
    const at = new Date().toISOString();
    return new Map([...ips].map(([keyId, ip]) => [keyId, { at, ip }]));
  };

  // Batches no store has taken yet (Redis down, a full disk), oldest first: each is offered again every
  // second under its own id, which the store applies once (a write whose answer was lost counts once).
  const unsent: { id: string; ops: WriteOp[]; uses: Map<string, LastUse> }[] = [];
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (pending.size) {
      unsent.push({ id: randomUUID(), ops: opsOf(pending), uses: usesOf(lastIps) });
      pending = new Map();
      lastIps = new Map();
      // Beyond this, the oldest second goes: memory is not unbounded (docs/operations.md, "Redis outages").
      if (unsent.length > MAX_UNSENT) {
        unsent.shift();
        log.error({ keptSeconds: MAX_UNSENT }, 'usage history: the store has taken nothing for too long, its oldest second is dropped');
      }
    }
    if (!unsent.length) return flushing;
    flushing = flushing
      .then(async () => {
        while (unsent.length) {
          const batch = unsent[0];
          await store.write(batch.ops, batch.id);
          unsent.shift();
          // When a key was last used is a hint on the pages, not a record: a failure is only logged.
          await writeLastUses(batch.uses).catch((err: Error) => log.warn({ err: err.message }, 'usage history: last uses not written'));
        }
      })
      .catch((err: Error) => {
        log.warn({ err: err.message, unsentSeconds: unsent.length }, 'usage history: write failed, kept to write again');
      });
    return flushing;
  };
  const timer = setInterval(() => void flush(), FLUSH_MS);
  timer.unref();

  /** The buckets of a period that ends now, oldest first. */
  const startsOf = (span: (typeof SPAN)[Period], now: number) => {
    const first = Math.floor(now / span.ms) * span.ms - (span.count - 1) * span.ms;
    return Array.from({ length: span.count }, (_, i) => first + i * span.ms);
  };

  /**
   * Requests over a period of each group of partitions (the keys of each account on a page), in one read
   * of the counters for every group.
   */
  const totals = async (groups: string[][], period: Period, now = Date.now()): Promise<number[]> => {
    const span = SPAN[period];
    const starts = startsOf(span, now);
    const parts = [...new Set(groups.flat())];
    if (!parts.length) return groups.map(() => 0);
    const all = await store.countersMany(
      span.coll,
      parts.flatMap((partition) => starts.map((s) => `${partition}|${s}`)),
    );
    const byPartition = new Map<string, number>();
    parts.forEach((partition, j) => {
      let n = 0;
      for (const fields of all.slice(j * starts.length, (j + 1) * starts.length))
        for (const [field, v] of Object.entries(fields)) if (field.startsWith('n|')) n += v;
      byPartition.set(partition, n);
    });
    return groups.map((g) => g.reduce((s, partition) => s + byPartition.get(partition)!, 0));
  };

  /** The history of one partition, or of several added up (an account's keys, a key's earlier partition). */
  const history = async (partitions: string | string[], period: Period, now = Date.now()): Promise<History> => {
    const span = SPAN[period];
    const starts = startsOf(span, now);
    const parts = typeof partitions === 'string' ? [partitions] : partitions;
    const all = await store.countersMany(
      span.coll,
      parts.flatMap((partition) => starts.map((s) => `${partition}|${s}`)),
    );
    const sets = starts.map((_, i) => sumFields(parts.map((_p, j) => all[j * starts.length + i])));
    const endpoints = new Map<string, { endpoint: string; total: number; classes: Record<string, number> }>();
    const allLatency = new Array<number>(LATENCY_BUCKETS.length).fill(0);
    const allSums = new Array<number>(LATENCY_BUCKETS.length).fill(0);
    const buckets = sets.map((fields, i): Bucket => {
      const classes: Record<string, number> = Object.fromEntries(CLASSES.map((c) => [c, 0]));
      const latency = new Array<number>(LATENCY_BUCKETS.length).fill(0);
      const sums = new Array<number>(LATENCY_BUCKETS.length).fill(0);
      let total = 0;
      for (const [field, n] of Object.entries(fields)) {
        const [kind, a, b] = field.split('|');
        if (kind === 'ms') {
          latency[Number(a)] += n;
          allLatency[Number(a)] += n;
        } else if (kind === 'sum') {
          sums[Number(a)] += n;
          allSums[Number(a)] += n;
        } else if (kind === 'n') {
          total += n;
          classes[b] = (classes[b] ?? 0) + n;
          let e = endpoints.get(a);
          if (!e) endpoints.set(a, (e = { endpoint: a, total: 0, classes: {} }));
          e.total += n;
          e.classes[b] = (e.classes[b] ?? 0) + n;
        }
      }
      return {
        start: new Date(starts[i]).toISOString(),
        total,
        classes,
        p50Ms: quantile(latency, 0.5, sums),
        p95Ms: quantile(latency, 0.95, sums),
      };
    });
    return {
      period,
      buckets,
      endpoints: [...endpoints.values()].sort((x, y) => y.total - x.total || x.endpoint.localeCompare(y.endpoint)),
      total: buckets.reduce((s, b) => s + b.total, 0),
      p50Ms: quantile(allLatency, 0.5, allSums),
      p95Ms: quantile(allLatency, 0.95, allSums),
    };
  };

  /** The last calls of one partition or several, newest first. */
  const recent = async (partitions: string | string[]): Promise<RecentCall[]> => {
    const parts = typeof partitions === 'string' ? [partitions] : partitions;
    const lists = await Promise.all(parts.map((p) => store.recent(`usage-recent:${p}`, RECENT)));
    const calls = lists.flat().map((s) => JSON.parse(s) as RecentCall);
    return parts.length === 1 ? calls : calls.sort((a, b) => b.at.localeCompare(a.at)).slice(0, RECENT);
  };

  return {
    record,
    flush,
    history,
    totals,
    recent,
    /** Writes what is left; answers how many seconds of history no store took (lost at exit). */
    async close(): Promise<number> {
      clearInterval(timer);
      await flush();
      if (unsent.length) log.error({ unsentSeconds: unsent.length }, 'usage history: not written at exit');
      return unsent.length;
    },
  };
}

export type Usage = ReturnType<typeof createUsage>;

function sumFields(sets: Record<string, number>[]): Record<string, number> {
  if (sets.length === 1) return sets[0];
  const out: Record<string, number> = {};
  for (const set of sets) for (const [field, n] of Object.entries(set)) out[field] = (out[field] ?? 0) + n;
  return out;
}
