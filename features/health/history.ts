// Each endpoint's health history, one counter set per endpoint and UTC day (kept 90 days): answers that
// went well, failed or found the upstream changed, from probes and from real traffic apart, a latency
// histogram of the good ones, and who answered. Storage stays bounded whatever the traffic (at most 90 sets
// per endpoint), and several instances add into the same sets. Recording is a few map updates; what was
// seen is written every few seconds in one batch, as the usage history does (features/usage/usage.ts).
import type { Logger } from 'pino';
import type { Store, WriteOp } from '../../engine/store/types.js';
import { LATENCY_BUCKETS, quantile } from '../../engine/infra/latency-buckets.js';
import type { Verdict } from './verdict.js';

export const HISTORY_DAYS = 90;
/** The days the latency figures and the answering provider are read over. */
const RECENT_DAYS = 7;
const DAY = 86_400_000;
const COLL = 'health-d';
const FLUSH_MS = 5000;

export type Via = 'probe' | 'traffic';

export interface DayCounts {
  ok: number;
  fail: number;
  changed: number;
}

export interface EndpointHistory {
  /** HISTORY_DAYS days, oldest first, the last one today (UTC). */
  days: DayCounts[];
  /** Good answers over all answers in the 90 days, in percent; null without any. */
  uptime: number | null;
  /** Of the good answers of the last 7 days (to the latency bucket's upper bound). */
  p50Ms: number | null;
  p95Ms: number | null;
  /** Who answered most in the last 7 days. */
  provider: string | undefined;
}

export const dayStart = (now: number) => Math.floor(now / DAY) * DAY;

const VERDICTS: Verdict[] = ['ok', 'fail', 'changed'];
const VIAS: Via[] = ['probe', 'traffic'];

/** What one endpoint saw on one day since the last write: plain numbers, made into fields only when written. */
class Pending {
  /** [verdict][via], in the order of VERDICTS and VIAS. */
  readonly counts = [0, 0, 0, 0, 0, 0];
  readonly latency = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  readonly sources = new Map<string, number>();

  constructor(
    readonly endpoint: string,
    readonly day: number,
  ) {}

  fields(): Record<string, number> {
    const out: Record<string, number> = {};
    this.counts.forEach((n, i) => {
      if (n) out[`${VERDICTS[i >> 1]}|${VIAS[i & 1]}`] = n;
    });
    this.latency.forEach((n, i) => {
      if (n) out[`ms|${i}`] = n;
    });
    for (const [source, n] of this.sources) out[`src|${source}`] = n;
    return out;
  }
}

export function createHealthHistory(store: Store, log: Logger) {
  // endpoint → what it saw today since the last write; a day that ended waits in `done`.
  let pending = new Map<string, Pending>();
  let done: Pending[] = [];

  // Called for every answered API request: a few number updates, no string made.
  const add = (endpoint: string, via: Via, verdict: Verdict, ms: number, source: string | undefined, now = Date.now()) => {
    const day = dayStart(now);
    let p = pending.get(endpoint);
    if (p === undefined || p.day !== day) {
      if (p !== undefined) done.push(p);
      pending.set(endpoint, (p = new Pending(endpoint, day)));
    }
    p.counts[(verdict === 'ok' ? 0 : verdict === 'fail' ? 2 : 4) + (via === 'probe' ? 0 : 1)]++;
    if (verdict !== 'ok') return;
    let b = 0;
    while (ms > LATENCY_BUCKETS[b]) b++;
    p.latency[b]++;
    if (source !== undefined) p.sources.set(source, (p.sources.get(source) ?? 0) + 1);
  };

  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (!pending.size && !done.length) return flushing;
    const batch = [...done, ...pending.values()];
    pending = new Map();
    done = [];
    const ops: WriteOp[] = batch.map((p) => ({
      kind: 'add',
      coll: COLL,
      id: `${p.endpoint}|${p.day}`,
      add: p.fields(),
      ttlMs: (HISTORY_DAYS + 1) * DAY,
    }));
    // A failed write (Redis down) loses those seconds of history, never an answer.
    flushing = flushing.then(() => store.write(ops)).catch((err: Error) => log.warn({ err: err.message }, 'health history: write failed'));
    return flushing;
  };
  const timer = setInterval(() => void flush(), FLUSH_MS);
  timer.unref();

  /** The history of each endpoint asked for, what this instance has not written yet included. */
  const read = async (endpoints: string[], now = Date.now()): Promise<Map<string, EndpointHistory>> => {
    await flush();
    const first = dayStart(now) - (HISTORY_DAYS - 1) * DAY;
    const starts = Array.from({ length: HISTORY_DAYS }, (_, i) => first + i * DAY);
    const all = await store.countersMany(
      COLL,
      endpoints.flatMap((e) => starts.map((s) => `${e}|${s}`)),
    );
    const out = new Map<string, EndpointHistory>();
    endpoints.forEach((endpoint, j) => {
      const latency = new Array<number>(LATENCY_BUCKETS.length).fill(0);
      const sources = new Map<string, number>();
      let good = 0;
      let total = 0;
      const days = starts.map((_, i): DayCounts => {
        const day: DayCounts = { ok: 0, fail: 0, changed: 0 };
        const recent = i >= HISTORY_DAYS - RECENT_DAYS;
        for (const [field, n] of Object.entries(all[j * HISTORY_DAYS + i])) {
          const [kind, rest] = field.split('|');
          if (kind === 'ok' || kind === 'fail' || kind === 'changed') day[kind] += n;
          else if (kind === 'ms' && recent) latency[Number(rest)] += n;
          else if (kind === 'src' && recent) sources.set(rest, (sources.get(rest) ?? 0) + n);
        }
        good += day.ok;
        total += day.ok + day.fail + day.changed;
        return day;
      });
      out.set(endpoint, {
        days,
        uptime: total ? Math.floor((good / total) * 10000) / 100 : null,
        p50Ms: quantile(latency, 0.5),
        p95Ms: quantile(latency, 0.95),
        provider: [...sources].sort((a, b) => b[1] - a[1])[0]?.[0],
      });
    });
    return out;
  };

  return {
    add,
    flush,
    read,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type HealthHistory = ReturnType<typeof createHealthHistory>;
